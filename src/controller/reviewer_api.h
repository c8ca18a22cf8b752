// ReviewerApi: the reviewer page and its JSON API, mounted on the
// controller's HTTP server (cpp-httplib).  Routes:
//
//   GET  /                          the page (web/index.html, embedded: web_assets.h)
//   GET  /static/<file>             its script and style sheet
//   GET  /api/policies              [{name, mode, planned_at, error, window_open,
//                                     conflicts, summary | null, steps, feasible}]
//   GET  /api/policies/{name}       the plan view the page draws (PlanViewJson below)
//   GET  /api/policies/{name}/history?namespace=&kind=&name=&points=200
//                                   {workload, points: [[unix_s, MiB], ...], peak_memory_mib,
//                                    slice, slice_memory_mib, headroom}; only for a workload
//                                    of that policy's plan (else 404); points 2..1000
//   GET  /api/changes               {changes: [...]} as `kubeon-gpu changes -o json`, plus
//                                    revert_requested {by, at} | null per change
//   GET  /api/changes/{id}/log      {entries: [{seq, time, change, action, outcome, detail, data}]}
//   POST /api/changes/{id}/approve  {"hash": "<content hash the reviewer saw>"}
//   POST /api/changes/{id}/reject   {"reason": "..."}
//   POST /api/changes/{id}/revert   {}
//
// Reads need no credentials (the page shows what the controller plans; the
// Service is cluster-internal unless exposed).  Writes need
// `Authorization: Bearer <the reviewer's Kubernetes token>`; the token is
// checked by the Authenticator (TokenReview + SubjectAccessReview for verb
// `approve` (approve and reject) or `revert` on gpuchanges.gpu.kubeon.io,
// resourceName = the change id).  No token or a token the API server does not
// accept: 401; a user without the verb: 403 naming user and verb; the API
// server unreachable: 503.  The decision recorded names the TokenReview's
// username, never a name sent by the caller.  Rules: audit/decision.h
// (same as `kubeon-gpu approve|reject`); the record is written with
// PutChange's compare-and-set (a racing writer gets 409) and then the log
// entry appended.
//
// Revert does not act on the cluster from an HTTP handler: it records a
// revert request (log entry "revert-request", outcome "intent") that the
// executor carries out — the controller's leader, or `kubeon-gpu revert ID`
// — holding the policy's Lease, with RevertChange's checks (apply/step_runner.h).
// The page shows the request until the change is `reverted`.
//
// Hardening: request bodies over Options::max_body_bytes get 413; errors are
// JSON {"error": "..."}; writes are authorized only by the Authorization
// header (no cookies), so a cross-site form cannot write; every response
// carries a strict Content-Security-Policy (no inline script or style, only
// 'self'), X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer and
// X-Frame-Options: DENY.  Static files carry their ETag (304 on
// If-None-Match) and Cache-Control: no-cache; API answers no-store.  No token
// is ever logged or echoed.
//
// Threading: handlers run on the server's threads; PolicyViews and
// HistorySource are read concurrently (both must be thread-safe), and each
// request opens its own AuditStore from the factory (AuditStore is not
// required to be thread-safe).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "audit/audit_store.h"
#include "controller/authenticator.h"
#include "controller/policy_view.h"
#include "model/status.h"

namespace httplib {
class Server;
}

namespace kubeon::controller {

using AuditStoreFactory = std::function<Result<std::unique_ptr<audit::AuditStore>>()>;

struct ReviewerOptions {
  std::chrono::seconds approval_ttl{std::chrono::hours(24)};  // as `kubeon-gpu approve --ttl` default
  size_t max_body_bytes = 16 * 1024;
  // The time decisions are stamped with; empty = the system clock.
  std::function<std::chrono::system_clock::time_point()> now;
};

class ReviewerApi {
 public:
  ReviewerApi(PolicyViews& views, AuditStoreFactory stores, HistorySource& history, Authenticator& auth,
              ReviewerOptions options = {});
  // Registers the routes above and the security headers on `server`.
  // REQUIRES: called once, before the server starts listening.
  void Register(httplib::Server& server);

 private:
  PolicyViews& views_;
  AuditStoreFactory stores_;
  HistorySource& history_;
  Authenticator& auth_;
  ReviewerOptions options_;
};

// The plan view of one policy, as GET /api/policies/{name} returns it:
// {name, generation, planned_at, error, conflicts, window_open,
//  policy: {mode, headroom, window} | null,
//  plan: null | {summary, warnings, workloads: [{namespace, kind, name, pods, gpu_model,
//     peak_memory_mib, peak_compute, history_hours, decision, slice, slice_memory_mib,
//     gpu_memory_mib, headroom_mib, reason, isolation}],
//   nodes: [{name, gpu_model, instance_type, method, gpu_count, gpus_before, gpus_after, freed,
//     time_slicing_replicas, isolation, monthly_savings_usd, notes, disrupted_pods: [{pod, owner, why}],
//     gpus: [{index, mig_enabled, whole, slices: [{profile, fraction, memory_mib, workload}]}]}],
//   schedule: plan/schedule_json.h ScheduleToJson}}
// A slice's fraction is its share of the GPU drawn: memory slices of the MIG
// profile over the model's (mig-catalog.json), 1/replicas for a time-sliced
// sharer, 1 for a GPU held whole.
nlohmann::json PlanViewJson(const PolicyView& view);

}  // namespace kubeon::controller
