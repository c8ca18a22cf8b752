// The review kinds: create-only, never stored, answered at once (201) from
// kube-sim's authenticators and its RBAC authorizer (rbac.h).
//
//  authentication.k8s.io/v1 TokenReview        spec.token -> status
//      {authenticated, user {username, uid, groups}, audiences}; an
//      unknown, forged or expired token is authenticated false with an
//      error.  spec.audiences, when given, must share one with the token's
//      (ServiceAccount tokens; other tokens carry the API server audience).
//  authorization.k8s.io/v1 SubjectAccessReview     spec.user/groups/uid +
//      exactly one of resourceAttributes {namespace, verb, group, version,
//      resource, subresource, name} and nonResourceAttributes {path, verb}
//      -> status {allowed, reason}; 422 when neither user nor groups, or
//      not exactly one attribute set, is given.
//  SelfSubjectAccessReview       the same for the requesting user
//      (kubectl auth can-i).
//  LocalSubjectAccessReview      namespaced; resourceAttributes.namespace
//      must be empty or the URL's namespace.
//  SelfSubjectRulesReview        spec.namespace -> status {resourceRules,
//      nonResourceRules, incomplete: false} (kubectl auth can-i --list).
// Who may create a review is decided before, like any request (reviews of
// others need system:auth-delegator; self reviews are system:basic-user).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "identity.h"
#include "route.h"
#include "service_accounts.h"
#include "store.h"

namespace kubeon::kubesim {

// Who a bearer token is (without "Bearer "), or nullopt.
using TokenAuthenticator = std::function<std::optional<TokenIdentity>(const std::string& token)>;

// True when `route` names one of the review kinds above.
bool IsReview(const Route& route);

// The answered review (the request with its status filled in).
// REQUIRES: IsReview(route); the Simulator mutex held; `authenticate` is
// callable with it held.
Outcome<json> Review(const Store& store, const Route& route, const json& body, const UserInfo& requester,
                     const TokenAuthenticator& authenticate);

}  // namespace kubeon::kubesim
