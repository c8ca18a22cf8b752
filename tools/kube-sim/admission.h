// ValidatingAdmissionPolicies (admissionregistration.k8s.io/v1) enforced on
// writes, for the CEL subset of cel.h.
//
// A write (operation CREATE, UPDATE or DELETE; PATCH is UPDATE) is checked
// against every ValidatingAdmissionPolicyBinding whose policy exists and
// matches the request: spec.matchConstraints.resourceRules (operations,
// apiGroups, apiVersions, resources as "plural", "plural/sub", "*",
// "plural/*", "*/sub", resourceNames) minus excludeResourceRules,
// objectSelector on the object's (or old object's) labels, then the
// binding's own matchResources the same way, then the policy's
// matchConditions (all true).  Each validation whose expression is false
// denies the request when the binding's validationActions hold "Deny"
// (a "Warn" action makes it a warning instead): 422 Invalid (or the
// validation's reason: Forbidden 403, Unauthorized 401, RequestEntityTooLarge
// 413) with the message
//   ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied
//   request: <message, or "failed expression: <expression>">
// An expression that fails to evaluate is a denial under failurePolicy Fail
// (the default) and ignored under Ignore.  A policy using CEL outside the
// subset is stored but not enforced: NotEnforced names it and why, and the
// caller warns once (kube-sim's stderr).
//
// Variables: object and oldObject (null when absent), request {operation,
// userInfo {username, uid, groups}, name, namespace, resource {group,
// version, resource}, subResource}.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "identity.h"
#include "store.h"

namespace kubeon::kubesim {

inline constexpr const char* kValidatingAdmissionPolicies = "admissionregistration.k8s.io/validatingadmissionpolicies";
inline constexpr const char* kValidatingAdmissionPolicyBindings =
    "admissionregistration.k8s.io/validatingadmissionpolicybindings";

struct AdmissionRequest {
  std::string operation;  // CREATE, UPDATE, DELETE
  std::string group, version, resource, subresource, ns, name;
  json object;      // null for DELETE
  json old_object;  // null for CREATE
  UserInfo user;
};

struct AdmissionResult {
  std::optional<ApiError> denied;
  std::vector<std::string> warnings;
  // "<policy>: <why>" for each matching policy that is not enforced.
  std::vector<std::string> not_enforced;
};

// REQUIRES: the store's lock held.
AdmissionResult Admit(const Store& store, const AdmissionRequest& request);

}  // namespace kubeon::kubesim
