// Who a request is: kube-sim's authentication and the
// authentication.k8s.io SelfSubjectReview that reports it.
//
// Identities (each stable for the life of the simulated cluster):
//  - the bearer token kube-sim was started with (--token, written into
//    --kubeconfig-out): user "kube-sim-admin", groups system:masters;
//  - a verified client certificate: user = subject CN, groups = subject O
//    entries (as kube-apiserver's x509 authenticator); the one in
//    --client-cert-kubeconfig-out is CN kube-sim-admin, O system:masters;
//  - the `users` setting: [{"name": "alice", "uid": "u-1", "groups":
//    ["reviewers"], "token": "alice-token"}]; a user with a token
//    authenticates with it, one without gets a client certificate in its
//    kubeconfig (--user-kubeconfig-dir, main.cc).
// Every authenticated user also gets the group system:authenticated, as
// from a real API server.
//
// SelfSubjectReview: POST /apis/authentication.k8s.io/{v1,v1beta1,v1alpha1}/
// selfsubjectreviews answers 201 with status.userInfo {username, uid (when
// known), groups}; it stores nothing (kubectl auth whoami: 1.27 uses
// v1alpha1, 1.28+ v1 then v1beta1).
//
// Invariants of SimUser (checked by ParseSimUsers): name non-empty, of
// [A-Za-z0-9@._:-]; token, when set, of [A-Za-z0-9._-] and unique among the
// users; groups non-empty strings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

struct UserInfo {
  std::string username;
  std::string uid;  // "" = none
  std::vector<std::string> groups;

  json ToJson() const;  // authentication.k8s.io UserInfo
};

struct SimUser {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::string token;  // "" = authenticates with a client certificate
};

inline constexpr const char* kAuthenticationGroup = "authentication.k8s.io";
inline constexpr const char* kAdminUser = "kube-sim-admin";
inline constexpr const char* kAdminGroup = "system:masters";

// Parses the `users` setting (a JSON array of objects); errors name the entry.
Outcome<std::vector<SimUser>> ParseSimUsers(const json& j);
json SimUsersJson(const std::vector<SimUser>& users);

// The user a bearer `authorization` header stands for: `admin_token` (when
// non-empty) is kube-sim-admin, else a user's token; nullopt if neither.
std::optional<UserInfo> TokenUser(const std::string& authorization, const std::string& admin_token,
                                  const std::vector<SimUser>& users);
// The user of a verified client certificate's subject.
UserInfo CertUser(const std::string& common_name, const std::vector<std::string>& organizations);

// The served version ("v1", "v1beta1", "v1alpha1") when `path` is the
// selfsubjectreviews collection, else nullopt.
std::optional<std::string> SelfSubjectReviewVersion(const std::string& path);
// The SelfSubjectReview answering `user` at `version`.
json SelfSubjectReview(const UserInfo& user, const std::string& version);

// Discovery of authentication.k8s.io: its versions, newest first, and the
// APIResourceList entry of selfsubjectreviews.
const std::vector<std::string>& AuthenticationVersions();
json SelfSubjectReviewResource();

}  // namespace kubeon::kubesim
