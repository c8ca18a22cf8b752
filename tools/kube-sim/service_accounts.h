// ServiceAccount tokens (the TokenRequest subresource) and Secret data, as
// kube-apiserver serves them.
//
// TokenRequest: POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token
// with an authentication.k8s.io/v1 TokenRequest answers 201 with
// status.token and status.expirationTimestamp.  spec.expirationSeconds
// defaults to 3600 and must be at least 600 (422 Invalid otherwise);
// spec.audiences defaults to the API server's
// ("https://kubernetes.default.svc.cluster.local").  The token is a JWT
// (HS256 under a key random per kube-sim process, so tokens do not outlive
// the process) with the claims a real one carries: iss, sub
// (system:serviceaccount:<ns>:<name>), aud, exp, iat, nbf, jti and
// kubernetes.io {namespace, serviceaccount {name, uid}}.
//
// Authenticate accepts such a token while it is unexpired in simulated
// time (Simulator::Now, so POST /sim/clock can expire it) and its
// ServiceAccount still exists with the uid it was issued for: the user is
// system:serviceaccount:<ns>:<name> (uid = the ServiceAccount's), groups
// system:serviceaccounts, system:serviceaccounts:<ns>,
// system:authenticated.
//
// NormalizeSecret applies what the API server does to a written Secret:
// stringData entries are base64-encoded into data (and stringData
// dropped), type defaults to Opaque, and every data value must be base64
// (400 BadRequest naming the key otherwise).
//
// Thread-safety: ServiceAccountTokens is immutable after construction; the
// functions taking a Store REQUIRE the Simulator mutex.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "identity.h"
#include "meta.h"
#include "store.h"

namespace kubeon::kubesim {

inline constexpr const char* kServiceAccounts = "serviceaccounts";
inline constexpr const char* kDefaultAudience = "https://kubernetes.default.svc.cluster.local";

// A token that authenticated: who, and the audiences it was issued for.
struct TokenIdentity {
  UserInfo user;
  std::vector<std::string> audiences;
};

class ServiceAccountTokens {
 public:
  ServiceAccountTokens();  // draws a random signing key

  // The TokenRequest answer for ServiceAccount ns/name; 404 when it does
  // not exist, 422 for a bad spec.
  Outcome<json> Issue(const Store& store, const std::string& ns, const std::string& name, const json& request,
                      TimePoint now) const;
  // The identity of a bearer token ("Bearer " prefix optional), or nullopt.
  std::optional<TokenIdentity> Authenticate(const Store& store, const std::string& token, TimePoint now) const;

 private:
  std::string Sign(const std::string& signing_input) const;
  std::string key_;
};

// REQUIRES: obj is a v1 Secret.
Outcome<bool> NormalizeSecret(json* obj);

}  // namespace kubeon::kubesim
