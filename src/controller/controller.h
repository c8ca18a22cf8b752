// Controller: the loop of `kubeon-gpu controller` (cli/controller_command.h).
//
// Each pass (Reconcile):
//  1. reads the GpuPolicy objects (the API: gpupolicies.gpu.kubeon.io, or a
//     policy file for clusters without the CRD) and parses each
//     (policy_object.h); an invalid one gets an InvalidPolicy view;
//  2. reads the cluster and the history once (inputs::ReadPlanInputs);
//  3. scopes the policies (policy_scope.h): overlapping selectors -> an
//     OverlappingPolicies error on each, neither planned; workloads spanning
//     two policies -> conflicts of both, excluded from both plans;
//  4. plans the rest (inputs::PlanEach), updates PolicyViews and the metrics;
//  5. only while this replica leads (leader_election.h): records an Event
//     when a policy's plan changed, runs the executor for each planned policy
//     (apply::ApplyPolicy: its mode, approvals and window decide what runs;
//     Events and metrics per step) and writes each policy's status
//     (policy_status.h).  A replica that does not lead only plans (the
//     reviewer page shows its views).
// Run() makes a pass at start, whenever Trigger() is called (the policy
// watch: a policy added, deleted or with a new generation) and every resync.
//
// Health (/healthz): "" while the loop made progress (a pass began or ended,
// or a step logged an action) within stuck_after.  Ready (/readyz): "" once
// a pass planned every policy and the last pass reached the API server.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "apply/clock.h"
#include "apply/step_context.h"
#include "audit/audit_store.h"
#include "inputs/plan_each.h"
#include "inputs/plan_inputs.h"
#include "controller/event_recorder.h"
#include "controller/json_log.h"
#include "controller/leader_election.h"
#include "controller/metrics.h"
#include "controller/policy_view.h"
#include "kube/client.h"

namespace kubeon::controller {

struct ControllerOptions {
  inputs::PlanArgs plan;       // history, prices, catalog, kubeconfig (from_cluster forced); policy_file: see below
  std::string policy_file;  // "" = GpuPolicy objects from the API
  std::string lease_namespace = "kube-system";  // per-policy executor Leases (apply/lease.h)
  std::chrono::seconds policy_lease{60};
  std::string identity;                         // this replica (Lease holders, Events)
  std::chrono::seconds configmap_sync{90};
  apply::WriteObserver write_observer;  // crash points (apply/step_context.h); never set by kubeon-gpu
  std::chrono::seconds resync{600};
  std::chrono::seconds stuck_after{1800};
  // How long an approval imported from a GpuChange's annotations holds
  // (audit/kube_approvals.h), as `kubeon-gpu approve --ttl`'s default.
  std::chrono::seconds approval_ttl{std::chrono::hours(24)};
};

class Controller {
 public:
  // REQUIRES: every reference outlives the controller; store may be null
  // (then nothing is recorded and no step runs: plan-only); leader null =
  // always act (a single replica).
  Controller(kube::KubeClient& client, audit::AuditStore* store, LeaderElector* leader, JsonLog& log,
             Metrics& metrics, PolicyViews& views, ControllerOptions options);

  // One pass (see above).
  void Reconcile();
  // Passes until *stop: at start, on Trigger() and every resync.
  void Run(const std::atomic<bool>& stop);
  void Trigger();
  // Watches gpupolicies and calls Trigger() on a change of the set or of a
  // generation, until *stop (run on its own thread).  No-op with policy_file.
  void WatchPolicies(const std::atomic<bool>& stop);

  std::string Health() const;
  std::string Ready() const;

 private:
  struct PolicyObject {
    nlohmann::json object;
    std::string uid;
    int64_t generation = 0;
  };
  Result<std::vector<PolicyObject>> ReadPolicyObjects();
  // kubeon_gpu_api_errors_total for the controller's own calls (the
  // executor's errors end up in its outcomes and the step log).
  void CountApiError(const std::string& verb, int code);
  void RecordEvent(const std::string& policy, const std::string& uid, const std::string& type,
                   const std::string& reason, const std::string& message);
  void Beat();
  bool Leading() const { return leader_ == nullptr || leader_->IsLeader(); }
  void Act(const PolicyView& view, const PolicyObject& object, const inputs::PlanInputs& inputs,
           const std::map<model::WorkloadRef, std::string>& excluded);
  void WriteStatus(const PolicyView& view);
  // With the GpuChange store: approvals and rejections written as annotations
  // (audit/kube_approvals.h) become audit-log decisions, once per pass.
  void ImportApprovals();
  // Revert requests of the policy's done changes (the reviewer page's Revert).
  void CarryOutRevertRequests(const PolicyView& view, const PolicyObject& object);
  std::string Now() const;

  kube::KubeClient& client_;
  audit::AuditStore* store_;
  // Why approvals by annotation are not trusted ("" = they are, or the store
  // is SQLite, where they do not apply); set by the leader each pass.
  std::string approvals_not_guarded_;
  LeaderElector* leader_;
  JsonLog& log_;
  Metrics& metrics_;
  PolicyViews& views_;
  ControllerOptions options_;
  EventRecorder events_;
  apply::RealClock clock_;
  std::map<std::string, std::string> plan_hash_;  // policy -> hash of its last plan (PlanChanged Events)
  std::mutex mu_;
  std::condition_variable cv_;
  bool triggered_ = false;
  std::atomic<int64_t> last_beat_ns_{0};
  std::atomic<bool> api_ok_{false};
  mutable std::mutex api_mu_;
  std::string api_error_;
};

}  // namespace kubeon::controller
