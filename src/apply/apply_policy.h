// ApplyPolicy: one executor pass over one policy, shared by `kubeon-gpu
// apply` (cli/apply_command.cc) and the in-cluster controller
// (controller/controller.h).
//
// In order:
//  1. when the pass may write (not dry_run, mode not Proposal): take the
//     policy's Lease (lease.h); held by someone else -> report.error, nothing
//     else happens;
//  2. finish or roll back every change of the policy left running by an
//     earlier executor (ResumeOrRollback); when there was one, the plan was
//     made from a half-done cluster, so options.replan makes it again (an
//     error there ends the pass: fatal);
//  3. ApplyPlan (apply_run.h) with a step runner that bounds a step by the
//     window's close and keeps the Lease renewed while the step runs;
//  4. release the Lease.
// Observers (on_step_started, on_step_finished) see each step that runs;
// they are how the controller emits Events and metrics.
//
// REQUIRES: store != nullptr unless options.dry_run; client, store and clock
// outlive the call.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "apply/apply_run.h"
#include "apply/clock.h"
#include "apply/lease.h"
#include "apply/step_runner.h"
#include "audit/audit_store.h"
#include "kube/client.h"
#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::apply {

// A plan and the artifact names its steps write.
struct PlannedPolicy {
  plan::Plan plan;
  StepArtifacts artifacts;
};

// The artifact names and contents a plan's steps write: the operator
// namespace (operator_namespace, else the ClusterPolicy's, else
// gpu-operator; plan/operator_fit.h) and the plan's ConfigMaps.
StepArtifacts ArtifactsFor(const plan::Plan& plan, const model::Cluster& cluster,
                           const std::string& operator_namespace);

struct ApplyPolicyOptions {
  std::optional<policy::Mode> mode_override;  // nullopt = the policy's mode
  bool dry_run = false;
  std::string lease_namespace = "kube-system";
  std::string lease_holder;  // "" = MakeHolderIdentity("kubeon-gpu")
  std::chrono::seconds lease_duration{60};
  std::chrono::seconds configmap_sync{90};
  WriteObserver write_observer;  // crash points (step_context.h); may be empty
  std::function<std::chrono::sys_seconds()> now;   // the time the gate and the window see
  std::function<void(const std::string&)> progress;  // may be empty
  // Plans again after a resume (step 2); REQUIRES: set unless dry_run.
  std::function<Result<PlannedPolicy>()> replan;
  // Checked before each step starts, with the Lease renewal; an error stops
  // the pass (the controller: still the leader).  May be empty.
  std::function<Status()> may_continue;
  std::function<void(const plan::ScheduleStep&)> on_step_started;
  std::function<void(const plan::ScheduleStep&, const StepOutcome&, std::chrono::duration<double> took)>
      on_step_finished;
  std::function<void(const StepOutcome&)> on_resumed;  // a change left half way, finished or rolled back
};

struct ApplyPolicyResult {
  ApplyReport report;
  bool resume_failed = false;       // a left-over change's rollback failed
  bool resume_rolled_back = false;  // a left-over change was rolled back
  Status fatal;                     // replan failed: the pass stopped (report.steps empty)
};

ApplyPolicyResult ApplyPolicy(kube::KubeClient& client, audit::AuditStore* store, Clock& clock,
                              const PlannedPolicy& planned, const policy::GpuPolicy& policy,
                              const ApplyPolicyOptions& options);

}  // namespace kubeon::apply
