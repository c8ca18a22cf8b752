// The Kubernetes REST API of the simulator, independent of the HTTP
// library: a request in, a response (or a watch stream) out.
//
// Serves discovery (discovery.h), the OpenAPI documents
// (openapi_endpoint.h), the resource paths (route.h) with
// GET/LIST/WATCH, POST, PUT, PATCH (merge, strategic merge, JSON patch),
// DELETE (with ownerReference cascading, propagationPolicy Orphan
// honoured) and DELETE on collections, the status, scale and eviction
// subresources, and the test endpoints:
//   GET  /sim/state               store counts, version, settings, faults
//   GET|POST /sim/faults          read / replace the fault set
//   GET|POST /sim/settings        read / merge settings
//   POST /sim/reconcile           run the controllers now
//   GET  /sim/clock               simulated time (Simulator::ClockState)
//   POST /sim/clock {"advanceSeconds": N}  jump simulated time forward
//   GET  /sim/devices             node GPUs, MIG devices and the pods holding them
// and GET /api/v1/namespaces/<ns>/pods/<name>/log (plain text, what
// `kubectl logs` reads: PodLogs; tailLines honoured, follow returns at once).
// Authentication (identity.h): a request needs "Authorization: Bearer
// <token>" (the admin token, a `users` setting's, or a ServiceAccount token
// from TokenRequest, service_accounts.h) or a verified client certificate
// (ApiRequest::client_cert_verified), else 401; POST
// /apis/authentication.k8s.io/<v>/selfsubjectreviews reports the identity.
// Authorization (rbac.h, request_attributes.h): every request of a user
// outside group system:masters must be allowed by RBAC, else 403
// Forbidden; /sim/ endpoints are non-resource URLs like /version.  The
// review kinds (reviews.h) are answered without storing anything.  Writes
// pass the ValidatingAdmissionPolicies (admission.h) before they are stored.  With an
// audit log (SetAuditLog, audit_log.h) every answered request is recorded.
// Failures are metav1.Status bodies with the matching HTTP code.
// Thread-safe: every request takes the Simulator's mutex while it touches
// the store; a watch stream is drained without it.
#pragma once

#include <atomic>
#include <functional>
#include <set>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "audit_log.h"
#include "identity.h"
#include "service_accounts.h"
#include "sim.h"
#include "watch_stream.h"

namespace kubeon::kubesim {

struct ApiRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string path;    // without the query
  std::multimap<std::string, std::string> query;    // decoded
  std::map<std::string, std::string> headers;       // lower-case names
  std::string body;
  bool client_cert_verified = false;
  std::string client_cert_cn;                  // subject CN of the verified certificate
  std::vector<std::string> client_cert_orgs;   // its subject O entries

  // Set by Api on writes: the admission check (admission.h) of the object
  // about to be stored; an error denies the write.  Operation CREATE,
  // UPDATE or DELETE; `object` / `old_object` null when absent.
  std::function<std::optional<ApiError>(const std::string& operation, const json& object, const json& old_object)>
      admit;

  std::string Param(const std::string& key) const;
  std::string Header(const std::string& key) const;  // `key` lower-case
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::shared_ptr<WatchStream> watch;  // set: stream it instead of `body`
  // Extra response headers (ETag, Location, Warning, ...); a name may repeat.
  std::vector<std::pair<std::string, std::string>> headers;
};

class Api {
 public:
  // `token` empty: bearer tokens are not accepted (client certs only).
  Api(Simulator& sim, std::string token, std::string server_address);
  ApiResponse Handle(const ApiRequest& req);
  // Ends every open watch stream (at shutdown).
  void StopWatches() { stopping_.store(true); }
  void SetServerAddress(std::string address) { server_address_ = std::move(address); }
  // REQUIRES: before the first Handle.
  void SetAuditLog(std::unique_ptr<AuditLog> log) { audit_ = std::move(log); }

 private:
  ApiResponse Dispatch(const ApiRequest& req, const UserInfo& user);
  // Who the bearer token is (admin, a `users` token, a ServiceAccount token).
  std::optional<TokenIdentity> AuthenticateToken(const std::string& authorization);
  // The review and TokenRequest answers, or nullopt when `route` is neither.
  std::optional<ApiResponse> Virtual(const ApiRequest& req, const struct Route& route, const UserInfo& user);
  ApiResponse SimEndpoint(const ApiRequest& req);
  // The pods/log response when `path` is a pod's log, else nullopt.
  std::optional<ApiResponse> PodLog(const ApiRequest& req, const std::string& path);
  ApiResponse Watch(const ApiRequest& req, const struct Route& route);

  Simulator& sim_;
  std::string token_;
  std::string server_address_;
  std::atomic<bool> stopping_{false};
  ServiceAccountTokens sa_tokens_;
  std::set<std::string> warned_policies_;  // not enforced, already reported (guarded by the sim mutex)
  std::unique_ptr<AuditLog> audit_;
};

}  // namespace kubeon::kubesim
