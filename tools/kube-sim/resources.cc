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
  // Identities, RBAC, reviews, admission policies and events.k8s.io
  // (rbac.h, reviews.h, service_accounts.h); the review kinds are
  // create-only and never stored.
  const std::vector<std::string> create = {"create"};
  r.push_back({"", {"v1"}, "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"}, {}, kAllVerbs,
               {{"token", "authentication.k8s.io", "v1", "TokenRequest", create}}});
  r.push_back({"", {"v1"}, "secrets", "secret", "Secret", true, {}, {}, kAllVerbs, {}});
  const std::string rbac = "rbac.authorization.k8s.io";
  r.push_back({rbac, {"v1"}, "roles", "role", "Role", true, {}, {}, kAllVerbs, {}});
  r.push_back({rbac, {"v1"}, "rolebindings", "rolebinding", "RoleBinding", true, {}, {}, kAllVerbs, {}});
  r.push_back({rbac, {"v1"}, "clusterroles", "clusterrole", "ClusterRole", false, {}, {}, kAllVerbs, {}});
  r.push_back({rbac, {"v1"}, "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, {}, {},
               kAllVerbs, {}});
  r.push_back({"authentication.k8s.io", {"v1"}, "tokenreviews", "tokenreview", "TokenReview", false, {}, {}, create, {}});
  const std::string authz = "authorization.k8s.io";
  r.push_back({authz, {"v1"}, "subjectaccessreviews", "subjectaccessreview", "SubjectAccessReview", false, {}, {},
               create, {}});
  r.push_back({authz, {"v1"}, "selfsubjectaccessreviews", "selfsubjectaccessreview", "SelfSubjectAccessReview",
               false, {}, {}, create, {}});
  r.push_back({authz, {"v1"}, "localsubjectaccessreviews", "localsubjectaccessreview", "LocalSubjectAccessReview",
               true, {}, {}, create, {}});
  r.push_back({authz, {"v1"}, "selfsubjectrulesreviews", "selfsubjectrulesreview", "SelfSubjectRulesReview", false,
               {}, {}, create, {}});
  const std::string admission = "admissionregistration.k8s.io";
  r.push_back({admission, {"v1"}, "validatingadmissionpolicies", "validatingadmissionpolicy",
               "ValidatingAdmissionPolicy", false, {}, {"api-extensions"}, kAllVerbs, {Status()}});
  r.push_back({admission, {"v1"}, "validatingadmissionpolicybindings", "validatingadmissionpolicybinding",
               "ValidatingAdmissionPolicyBinding", false, {}, {"api-extensions"}, kAllVerbs, {}});
  r.push_back({"events.k8s.io", {"v1"}, "events", "event", "Event", true, {"ev"}, {}, kAllVerbs, {}});
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
