// The resource types kube-sim serves: the static RESTMapping used by routing,
// storage and discovery.
//
// A ResourceType is identified by (group, plural); it is stored once, in its
// storage version, and may be served at several versions (policy/v1 and
// policy/v1beta1 for PodDisruptionBudgets).  StoreId() is the key of the
// type in the Store ("pods", "apps/deployments").
//
// Invariants: versions is non-empty and versions[0] is the storage and
// preferred version; plural names are unique within a group.
#pragma once

#include <string>
#include <vector>

namespace kubeon::kubesim {

struct CustomInfo;  // custom_resources.h

struct Subresource {
  std::string name;             // "status", "eviction", "scale"
  std::string group;            // group of the subresource's kind ("policy" for Eviction)
  std::string version;          // "" = same as the parent
  std::string kind;             // "Eviction", "Scale", or "" = parent kind
  std::vector<std::string> verbs;
};

struct ResourceType {
  std::string group;                  // "" = core
  std::vector<std::string> versions;  // served versions, [0] preferred/storage
  std::string plural;
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  std::vector<std::string> verbs;
  std::vector<Subresource> subresources;
  const CustomInfo* custom = nullptr;  // set for custom resources (custom_resources.h)

  std::string StoreId() const { return group.empty() ? plural : group + "/" + plural; }
  // "v1" or "apps/v1" for the given served version.
  std::string ApiVersion(const std::string& version) const {
    return group.empty() ? version : group + "/" + version;
  }
  bool Serves(const std::string& version) const;
  const Subresource* FindSubresource(const std::string& name) const;
  bool HasStatus() const { return FindSubresource("status") != nullptr; }
};

// All served types, in a fixed order.
const std::vector<ResourceType>& AllResources();
// The type served at group/version with this plural, or nullptr.
const ResourceType* FindResource(const std::string& group, const std::string& version,
                                 const std::string& plural);
// The type by store id ("pods", "apps/replicasets"), or nullptr.
const ResourceType* FindByStoreId(const std::string& store_id);
// The type whose kind is `kind` in `group` (any version), or nullptr.
const ResourceType* FindByKind(const std::string& group, const std::string& kind);

// Store ids used by the controllers.
inline constexpr const char* kPods = "pods";
inline constexpr const char* kNodes = "nodes";
inline constexpr const char* kNamespaces = "namespaces";
inline constexpr const char* kConfigMaps = "configmaps";
inline constexpr const char* kEvents = "events";
inline constexpr const char* kDeployments = "apps/deployments";
inline constexpr const char* kReplicaSets = "apps/replicasets";
inline constexpr const char* kStatefulSets = "apps/statefulsets";
inline constexpr const char* kDaemonSets = "apps/daemonsets";
inline constexpr const char* kPdbs = "policy/poddisruptionbudgets";
inline constexpr const char* kJobs = "batch/jobs";
inline constexpr const char* kLeases = "coordination.k8s.io/leases";

}  // namespace kubeon::kubesim
