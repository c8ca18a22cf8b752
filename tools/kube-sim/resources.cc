// See resources.h.  Verbs, short names and categories are those a v1.32
// kube-apiserver advertises, so kubectl resolves "po", "deploy", "pdb", ...
#include "resources.h"

#include <algorithm>

namespace kubeon::kubesim {

namespace {

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};
const std::vector<std::string> kStatusVerbs = {"get", "patch", "update"};

Subresource Status() { return {"status", "", "", "", kStatusVerbs}; }
Subresource Scale() { return {"scale", "autoscaling", "v1", "Scale", kStatusVerbs}; }

std::vector<ResourceType> Build() {
  std::vector<ResourceType> r;
  r.push_back({"", {"v1"}, "namespaces", "namespace", "Namespace", false, {"ns"}, {},
               {"create", "delete", "get", "list", "patch", "update", "watch"}, {Status()}});
  r.push_back({"", {"v1"}, "nodes", "node", "Node", false, {"no"}, {}, kAllVerbs, {Status()}});
  r.push_back({"",
               {"v1"},
               "pods",
               "pod",
               "Pod",
               true,
               {"po"},
               {"all"},
               kAllVerbs,
               {Status(), {"eviction", "policy", "v1", "Eviction", {"create"}}}});
  r.push_back({"", {"v1"}, "configmaps", "configmap", "ConfigMap", true, {"cm"}, {}, kAllVerbs, {}});
  r.push_back({"", {"v1"}, "events", "event", "Event", true, {"ev"}, {}, kAllVerbs, {}});
  r.push_back({"", {"v1"}, "services", "service", "Service", true, {"svc"}, {"all"}, kAllVerbs,
               {Status()}});
  r.push_back({"apps", {"v1"}, "deployments", "deployment", "Deployment", true, {"deploy"},
               {"all"}, kAllVerbs, {Status(), Scale()}});
  r.push_back({"apps", {"v1"}, "replicasets", "replicaset", "ReplicaSet", true, {"rs"}, {"all"},
               kAllVerbs, {Status(), Scale()}});
  r.push_back({"apps", {"v1"}, "statefulsets", "statefulset", "StatefulSet", true, {"sts"},
               {"all"}, kAllVerbs, {Status(), Scale()}});
  r.push_back({"apps", {"v1"}, "daemonsets", "daemonset", "DaemonSet", true, {"ds"}, {"all"},
               kAllVerbs, {Status()}});
  r.push_back({"policy", {"v1", "v1beta1"}, "poddisruptionbudgets", "poddisruptionbudget",
               "PodDisruptionBudget", true, {"pdb"}, {}, kAllVerbs, {Status()}});
  r.push_back({"batch", {"v1"}, "jobs", "job", "Job", true, {}, {"all"}, kAllVerbs, {Status()}});
  r.push_back({"coordination.k8s.io", {"v1"}, "leases", "lease", "Lease", true, {}, {}, kAllVerbs, {}});
  r.push_back({"apiextensions.k8s.io", {"v1"}, "customresourcedefinitions", "customresourcedefinition",
               "CustomResourceDefinition", false, {"crd", "crds"}, {"api-extensions"}, kAllVerbs, {Status()}});
  return r;
}

}  // namespace

bool ResourceType::Serves(const std::string& version) const {
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

const Subresource* ResourceType::FindSubresource(const std::string& name) const {
  for (const auto& s : subresources) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const std::vector<ResourceType>& AllResources() {
  static const std::vector<ResourceType> all = Build();
  return all;
}

const ResourceType* FindResource(const std::string& group, const std::string& version,
                                 const std::string& plural) {
  for (const auto& r : AllResources()) {
    if (r.group == group && r.plural == plural && r.Serves(version)) return &r;
  }
  return nullptr;
}

const ResourceType* FindByStoreId(const std::string& store_id) {
  for (const auto& r : AllResources()) {
    if (r.StoreId() == store_id) return &r;
  }
  return nullptr;
}

const ResourceType* FindByKind(const std::string& group, const std::string& kind) {
  for (const auto& r : AllResources()) {
    if (r.group == group && r.kind == kind) return &r;
  }
  return nullptr;
}

}  // namespace kubeon::kubesim
