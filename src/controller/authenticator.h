// Authenticator: who a bearer token belongs to and whether that identity may
// take an action on a GpuChange, as the API server says.  The reviewer page
// (reviewer_api.h) asks it before every write.
//
// KubeAuthenticator asks the API server with the controller's own client:
//   1. TokenReview (authentication.k8s.io/v1, spec.token = the token): not
//      status.authenticated -> kUnauthenticated.  The identity is
//      status.user (username, uid, groups, extra): never a name the caller
//      typed.
//   2. SubjectAccessReview (authorization.k8s.io/v1) for that user, groups,
//      uid and extra with resourceAttributes {group gpu.kubeon.io, resource
//      gpuchanges, verb, name = the change id}: not status.allowed ->
//      kForbidden, naming the user and the missing verb.
//  Any API failure (unreachable, 5xx, the controller itself not allowed to
//  create reviews) -> kUnavailable, the message naming the review that failed.
//
// Invariants: a token never appears in a message, a log line or an error;
// kOk always carries a non-empty username.  Thread-safe (KubeClient is).
#pragma once

#include <string>
#include <vector>

#include "kube/client.h"

namespace kubeon::controller {

inline constexpr const char* kChangeApiGroup = "gpu.kubeon.io";
inline constexpr const char* kChangeResource = "gpuchanges";
inline constexpr const char* kApproveVerb = "approve";  // approve and reject
inline constexpr const char* kRevertVerb = "revert";

enum class AuthCode { kOk, kUnauthenticated, kForbidden, kUnavailable };

struct AuthDecision {
  AuthCode code = AuthCode::kUnauthenticated;
  std::string username;             // the API server's name for the caller ("" when unauthenticated)
  std::vector<std::string> groups;  // from TokenReview
  std::string message;              // why not (for a person), "" when kOk
};

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // May the bearer of `token` do `verb` on gpuchanges/`change_id`?
  // REQUIRES: token non-empty, verb one of kApproveVerb / kRevertVerb.
  virtual AuthDecision Check(const std::string& token, const std::string& verb, const std::string& change_id) = 0;
};

class KubeAuthenticator : public Authenticator {
 public:
  explicit KubeAuthenticator(kube::KubeClient& client) : client_(client) {}
  AuthDecision Check(const std::string& token, const std::string& verb, const std::string& change_id) override;

 private:
  kube::KubeClient& client_;
};

}  // namespace kubeon::controller
