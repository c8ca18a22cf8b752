// See rbac.h.
#include "rbac.h"

#include <algorithm>

#include "meta.h"
#include "selector.h"

namespace kubeon::kubesim {

namespace {

// The bootstrap policy (a minimal subset of kube-apiserver's
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy), as data.
constexpr const char* kBootstrap = R"json({
 "clusterRoles": [
  {"name": "cluster-admin", "rules": [
    {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
    {"nonResourceURLs": ["*"], "verbs": ["*"]}]},
  {"name": "system:discovery", "rules": [
    {"nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*",
                         "/readyz", "/version", "/version/"], "verbs": ["get"]}]},
  {"name": "system:public-info-viewer", "rules": [
    {"nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"], "verbs": ["get"]}]},
  {"name": "system:basic-user", "rules": [
    {"apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
     "verbs": ["create"]},
    {"apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"]}]},
  {"name": "system:auth-delegator", "rules": [
    {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
    {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]}]},
  {"name": "view", "rules": [
    {"apiGroups": [""], "resources": ["configmaps", "endpoints", "persistentvolumeclaims", "pods", "pods/log",
       "pods/status", "replicationcontrollers", "services", "services/status", "serviceaccounts", "events",
       "namespaces", "namespaces/status", "resourcequotas", "limitranges"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["apps"], "resources": ["daemonsets", "daemonsets/status", "deployments", "deployments/scale",
       "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
       "statefulsets/scale", "statefulsets/status"], "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["batch"], "resources": ["jobs", "jobs/status", "cronjobs", "cronjobs/status"],
     "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets", "poddisruptionbudgets/status"],
     "verbs": ["get", "list", "watch"]},
    {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["get", "list", "watch"]}]},
  {"name": "edit", "rules": [
    {"apiGroups": [""], "resources": ["configmaps", "endpoints", "persistentvolumeclaims", "pods", "pods/log",
       "pods/status", "replicationcontrollers", "services", "services/status", "serviceaccounts", "events",
       "namespaces", "namespaces/status", "resourcequotas", "limitranges", "secrets"],
     "verbs": ["get", "list", "watch"]},
    {"apiGroups": [""], "resources": ["configmaps", "endpoints", "persistentvolumeclaims", "pods", "pods/eviction",
       "replicationcontrollers", "services", "serviceaccounts", "secrets"],
     "verbs": ["create", "delete", "deletecollection", "patch", "update"]},
    {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]},
    {"apiGroups": ["apps"], "resources": ["daemonsets", "deployments", "deployments/scale", "replicasets",
       "replicasets/scale", "statefulsets", "statefulsets/scale", "daemonsets/status", "deployments/status",
       "replicasets/status", "statefulsets/status"],
     "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["batch"], "resources": ["jobs", "cronjobs", "jobs/status", "cronjobs/status"],
     "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets", "poddisruptionbudgets/status"],
     "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]},
    {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["get", "list", "watch"]}]},
  {"name": "admin", "rules": [
    {"apiGroups": ["", "apps", "batch", "policy", "events.k8s.io", "coordination.k8s.io"], "resources": ["*"],
     "verbs": ["*"]},
    {"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"], "verbs": ["*"]},
    {"apiGroups": ["authorization.k8s.io"], "resources": ["localsubjectaccessreviews"], "verbs": ["create"]}]}
 ],
 "clusterRoleBindings": [
  {"name": "cluster-admin", "role": "cluster-admin", "group": "system:masters"},
  {"name": "system:discovery", "role": "system:discovery", "group": "system:authenticated"},
  {"name": "system:public-info-viewer", "role": "system:public-info-viewer", "group": "system:authenticated"},
  {"name": "system:basic-user", "role": "system:basic-user", "group": "system:authenticated"}
 ]
})json";

bool Contains(const json* list, const std::string& value) {
  if (list == nullptr || !list->is_array()) return false;
  for (const auto& v : *list) {
    if (v.is_string() && v.get<std::string>() == value) return true;
  }
  return false;
}

const json* Field(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

bool VerbMatches(const json& rule, const std::string& verb) {
  const json* verbs = Field(rule, "verbs");
  return Contains(verbs, "*") || Contains(verbs, verb);
}

bool ResourceMatches(const json& rule, const RequestAttributes& a) {
  const json* resources = Field(rule, "resources");
  if (resources == nullptr || !resources->is_array()) return false;
  const std::string combined = a.CombinedResource();
  for (const auto& r : *resources) {
    if (!r.is_string()) continue;
    const std::string& s = r.get_ref<const std::string&>();
    if (s == "*" || s == combined) return true;
    if (!a.subresource.empty() && s == "*/" + a.subresource) return true;
  }
  return false;
}

bool ResourceNameMatches(const json& rule, const std::string& name) {
  const json* names = Field(rule, "resourceNames");
  if (names == nullptr || !names->is_array() || names->empty()) return true;
  return !name.empty() && Contains(names, name);
}

bool NonResourceUrlMatches(const json& rule, const std::string& path) {
  const json* urls = Field(rule, "nonResourceURLs");
  if (urls == nullptr || !urls->is_array()) return false;
  for (const auto& u : *urls) {
    if (!u.is_string()) continue;
    const std::string& s = u.get_ref<const std::string&>();
    if (s == "*" || s == path) return true;
    if (!s.empty() && s.back() == '*' && path.rfind(s.substr(0, s.size() - 1), 0) == 0) return true;
  }
  return false;
}

bool InGroups(const UserInfo& user, const std::string& group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

// The first subject of `binding` that is `user`, or nullptr.  `ns` is the
// namespace of a RoleBinding ("" for a ClusterRoleBinding).
const json* SubjectFor(const json& binding, const UserInfo& user, const std::string& ns) {
  const json* subjects = Field(binding, "subjects");
  if (subjects == nullptr || !subjects->is_array()) return nullptr;
  for (const auto& s : *subjects) {
    if (!s.is_object()) continue;
    const std::string kind = s.value("kind", ""), name = s.value("name", "");
    if (kind == "User" && name == user.username) return &s;
    if (kind == "Group" && InGroups(user, name)) return &s;
    if (kind == "ServiceAccount") {
      std::string sa_ns = s.value("namespace", "");
      if (sa_ns.empty()) sa_ns = ns;
      if (!sa_ns.empty() && user.username == "system:serviceaccount:" + sa_ns + ":" + name) return &s;
    }
  }
  return nullptr;
}

std::string DescribeSubject(const json& s) {
  std::string name = s.value("name", "");
  if (s.value("kind", "") == "ServiceAccount" && !s.value("namespace", "").empty()) {
    name += "/" + s.value("namespace", "");
  }
  return s.value("kind", "") + " \"" + name + "\"";
}

void AppendRules(const json& role, std::vector<json>* out) {
  const json* rules = Field(role, "rules");
  if (rules == nullptr || !rules->is_array()) return;
  for (const auto& r : *rules) {
    if (r.is_object()) out->push_back(r);
  }
}

// The rules of ClusterRole `name`, with those its aggregationRule selects.
std::vector<json> ClusterRoleRules(const Store& store, const std::string& name) {
  std::vector<json> out;
  const json* role = store.Get(kClusterRoles, "", name);
  if (role == nullptr) return out;
  AppendRules(*role, &out);
  const json* selectors = Find(*role, {"aggregationRule", "clusterRoleSelectors"});
  if (selectors == nullptr || !selectors->is_array()) return out;
  std::vector<LabelSelector> parsed;
  for (const auto& s : *selectors) {
    auto sel = LabelSelector::FromJson(s);
    if (sel.ok()) parsed.push_back(sel.value());
  }
  store.ForEach(kClusterRoles, "", "", [&](const std::string&, const json& other) {
    if (Name(other) == name) return true;
    const json* labels = Find(other, {"metadata", "labels"});
    json none = json::object();
    for (const auto& sel : parsed) {
      if (sel.Matches(labels != nullptr ? *labels : none)) {
        AppendRules(other, &out);
        break;
      }
    }
    return true;
  });
  return out;
}

std::vector<json> RoleRefRules(const Store& store, const json& binding, const std::string& ns) {
  const std::string kind = Str(binding, {"roleRef", "kind"}), name = Str(binding, {"roleRef", "name"});
  if (kind == "ClusterRole") return ClusterRoleRules(store, name);
  std::vector<json> out;
  if (kind == "Role" && !ns.empty()) {
    if (const json* role = store.Get(kRoles, ns, name)) AppendRules(*role, &out);
  }
  return out;
}

// Calls fn(rules, describe) for every binding of `user` that applies in
// `ns`; fn returns false to stop.
template <typename Fn>
void VisitBindings(const Store& store, const UserInfo& user, const std::string& ns, bool namespaced_too, Fn fn) {
  bool more = true;
  store.ForEach(kClusterRoleBindings, "", "", [&](const std::string&, const json& b) {
    const json* subject = SubjectFor(b, user, "");
    if (subject == nullptr) return true;
    more = fn(RoleRefRules(store, b, ""), [&] {
      return "ClusterRoleBinding \"" + Name(b) + "\" of " + Str(b, {"roleRef", "kind"}) + " \"" +
             Str(b, {"roleRef", "name"}) + "\" to " + DescribeSubject(*subject);
    });
    return more;
  });
  if (!more || !namespaced_too || ns.empty()) return;
  store.ForEach(kRoleBindings, ns, "", [&](const std::string&, const json& b) {
    const json* subject = SubjectFor(b, user, ns);
    if (subject == nullptr) return true;
    return fn(RoleRefRules(store, b, ns), [&] {
      return "RoleBinding \"" + Name(b) + "/" + ns + "\" of " + Str(b, {"roleRef", "kind"}) + " \"" +
             Str(b, {"roleRef", "name"}) + "\" to " + DescribeSubject(*subject);
    });
  });
}

}  // namespace

bool RuleAllows(const json& rule, const RequestAttributes& a) {
  if (!rule.is_object() || !VerbMatches(rule, a.verb)) return false;
  if (!a.resource_request) return NonResourceUrlMatches(rule, a.path);
  const json* groups = Field(rule, "apiGroups");
  if (!Contains(groups, "*") && !Contains(groups, a.api_group)) return false;
  return ResourceMatches(rule, a) && ResourceNameMatches(rule, a.name);
}

bool Privileged(const UserInfo& user) { return InGroups(user, kAdminGroup); }

Decision Authorize(const Store& store, const UserInfo& user, const RequestAttributes& a) {
  Decision d;
  if (Privileged(user)) {
    d.allowed = true;
    return d;
  }
  VisitBindings(store, user, a.ns, a.resource_request, [&](const std::vector<json>& rules, auto describe) {
    for (const auto& rule : rules) {
      if (RuleAllows(rule, a)) {
        d.allowed = true;
        d.reason = "RBAC: allowed by " + describe();
        return false;
      }
    }
    return true;
  });
  return d;
}

std::vector<json> RulesFor(const Store& store, const UserInfo& user, const std::string& ns) {
  std::vector<json> out;
  VisitBindings(store, user, ns, true, [&](const std::vector<json>& rules, auto) {
    out.insert(out.end(), rules.begin(), rules.end());
    return true;
  });
  return out;
}

void SeedBootstrapRbac(Store& store) {
  const json policy = json::parse(kBootstrap);
  const json annotations = {{"rbac.authorization.kubernetes.io/autoupdate", "true"}};
  const json labels = {{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  for (const auto& role : policy["clusterRoles"]) {
    const std::string name = role["name"];
    if (store.Get(kClusterRoles, "", name) != nullptr) continue;
    store.Restore(kClusterRoles, {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                                  {"kind", "ClusterRole"},
                                  {"metadata", {{"name", name}, {"labels", labels}, {"annotations", annotations}}},
                                  {"rules", role["rules"]}});
  }
  for (const auto& b : policy["clusterRoleBindings"]) {
    const std::string name = b["name"];
    if (store.Get(kClusterRoleBindings, "", name) != nullptr) continue;
    store.Restore(kClusterRoleBindings,
                  {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"kind", "ClusterRoleBinding"},
                   {"metadata", {{"name", name}, {"labels", labels}, {"annotations", annotations}}},
                   {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", "ClusterRole"}, {"name", b["role"]}}},
                   {"subjects", json::array({{{"apiGroup", kRbacGroup}, {"kind", "Group"}, {"name", b["group"]}}})}});
  }
}

}  // namespace kubeon::kubesim
