// Role-based access control as kube-apiserver's RBAC authorizer decides it
// (k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac), over the Roles,
// ClusterRoles, RoleBindings and ClusterRoleBindings in the store.
//
// A request is allowed when a rule of a role bound to the user allows it:
//  - ClusterRoleBindings grant their ClusterRole everywhere (all
//    namespaces, cluster-scoped resources, non-resource URLs);
//  - RoleBindings in namespace N grant their Role (of N) or ClusterRole to
//    resource requests in namespace N only;
//  - a subject matches as User (username), Group (one of the groups) or
//    ServiceAccount (system:serviceaccount:<ns>:<name>; a RoleBinding's
//    subject without a namespace means the binding's).
// A PolicyRule allows a resource request when its verbs, apiGroups and
// resources match ("*" matches anything; a resource entry is "pods",
// "pods/eviction", or "*/status"; "*" also covers every subresource) and,
// if it lists resourceNames, the request names one of them (so a list or
// create without a name never matches such a rule).  Custom verbs
// ("approve") match literally.  A non-resource request matches
// nonResourceURLs entries that are "*", the exact path, or a prefix ending
// in "*".  A ClusterRole with an aggregationRule also carries the rules of
// every ClusterRole whose labels match one of its clusterRoleSelectors.
//
// Users in group system:masters are allowed everything without RBAC (as
// the apiserver's privileged-group authorizer).
//
// SeedBootstrapRbac adds the default cluster roles and bindings a fresh
// cluster has (minimal versions): cluster-admin (bound to system:masters),
// system:discovery, system:public-info-viewer and system:basic-user (bound
// to system:authenticated: discovery, /version, /healthz, /openapi and the
// self reviews), system:auth-delegator (tokenreviews and
// subjectaccessreviews create), and view, edit, admin.
#pragma once

#include <string>
#include <vector>

#include "identity.h"
#include "request_attributes.h"
#include "store.h"

namespace kubeon::kubesim {

inline constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";
inline constexpr const char* kRoles = "rbac.authorization.k8s.io/roles";
inline constexpr const char* kClusterRoles = "rbac.authorization.k8s.io/clusterroles";
inline constexpr const char* kRoleBindings = "rbac.authorization.k8s.io/rolebindings";
inline constexpr const char* kClusterRoleBindings = "rbac.authorization.k8s.io/clusterrolebindings";

struct Decision {
  bool allowed = false;
  // Allowed: `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r"
  // to User "u"` (as the real authorizer words it); denied: "".
  std::string reason;
};

// Whether one rbac/v1 PolicyRule (JSON) allows `a`.
bool RuleAllows(const json& rule, const RequestAttributes& a);

// True when `user` bypasses RBAC (group system:masters).
bool Privileged(const UserInfo& user);

// REQUIRES: the store's lock (Simulator mutex) held.
Decision Authorize(const Store& store, const UserInfo& user, const RequestAttributes& a);

// The rules that apply to `user` in namespace `ns` ("" = cluster-wide
// only): every rule of the ClusterRoleBindings' roles, then those of the
// RoleBindings in `ns`.  What SelfSubjectRulesReview reports.
std::vector<json> RulesFor(const Store& store, const UserInfo& user, const std::string& ns);

// Adds the bootstrap roles and bindings that are missing (never replaces).
void SeedBootstrapRbac(Store& store);

}  // namespace kubeon::kubesim
