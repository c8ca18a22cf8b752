// See apply_policy.h.
#include "apply/apply_policy.h"

#include "apply/foreign_changes.h"
#include "apply/lease_revert.h"

#include "plan/operator_fit.h"
#include "plan/planner.h"

namespace kubeon::apply {
namespace {

using SysClock = std::chrono::system_clock;

StepResult ToResult(const StepOutcome& o) {
  StepResult r;
  switch (o.kind) {
    case OutcomeKind::kDone: r.kind = StepResultKind::kDone; break;
    case OutcomeKind::kRolledBack: r.kind = StepResultKind::kRolledBack; break;
    case OutcomeKind::kRollbackFailed:
    case OutcomeKind::kCrashed: r.kind = StepResultKind::kRollbackFailed; break;
    case OutcomeKind::kLeaseLost: r.kind = StepResultKind::kLeaseLost; break;
  }
  r.message = o.cause;
  return r;
}

}  // namespace

StepArtifacts ArtifactsFor(const plan::Plan& plan, const model::Cluster& cluster,
                           const std::string& operator_namespace) {
  StepArtifacts a;
  plan::PlannerOptions po;
  po.operator_namespace = operator_namespace;
  a.operator_namespace = plan::OperatorNamespace(cluster, po);
  a.mig_configmap = po.mig_configmap_name;  // the names the plan's ConfigMaps carry
  a.mig_parted_config = plan.artifacts.mig_parted_config;
  a.device_plugin_configmap = po.device_plugin_configmap_name;
  a.device_plugin_configs = plan.artifacts.device_plugin_configs;
  return a;
}

ApplyPolicyResult ApplyPolicy(kube::KubeClient& client, audit::AuditStore* store, Clock& clock,
                              const PlannedPolicy& planned, const policy::GpuPolicy& policy,
                              const ApplyPolicyOptions& a) {
  auto progress = [&](const std::string& line) {
    if (a.progress) a.progress(line);
  };
  ApplyPolicyResult result;
  const policy::Mode mode = a.mode_override.value_or(policy.mode);
  const bool writes = !a.dry_run && mode != policy::Mode::kProposal;
  LeaseOptions lo;
  lo.namespace_ = a.lease_namespace;
  lo.policy = policy.name;
  lo.holder = a.lease_holder;
  lo.duration = a.lease_duration;
  PolicyLease lease(client, lo);
  if (writes) {
    Status held = lease.Acquire();
    if (!held.ok()) {
      result.report.policy = policy.name;
      result.report.error = held.message();
      progress(held.message());  // it names the policy
      return result;
    }
    progress("policy " + policy.name + ": holding Lease " + lease.Describe());
  }
  auto release = [&] {
    if (!writes) return;
    Status released = lease.Release();
    if (!released.ok()) progress("warning: " + released.message());
  };
  StepOptions so;
  so.configmap_sync = a.configmap_sync;
  so.write_observer = a.write_observer;
  so.patch_gitops_owners = policy.patch_gitops_owners;
  PlannedPolicy current = planned;
  std::optional<StepContext> ctx;  // only when the pass may write (the store is open)
  if (store) ctx.emplace(client, *store, clock, current.artifacts, so, policy.name, a.progress);
  if (writes) {
    const std::vector<StepOutcome> resumed = ResumeOrRollback(*ctx);
    for (const StepOutcome& o : resumed) {
      progress("change " + o.change_id + " left half way by an earlier run: " + OutcomeName(o.kind) +
               (o.cause.empty() ? "" : ": " + o.cause));
      if (o.kind == OutcomeKind::kRollbackFailed) result.resume_failed = true;
      if (o.kind == OutcomeKind::kRolledBack) result.resume_rolled_back = true;
      if (a.on_resumed) a.on_resumed(o);
    }
    if (!resumed.empty()) {
      progress("planning again now that the cluster is settled ...");
      Result<PlannedPolicy> again = a.replan();
      if (!again.ok()) {
        result.fatal = again.status();
        result.report.policy = policy.name;
        result.report.error = again.status().message();
        release();
        return result;
      }
      current = std::move(again.value());
      ctx.emplace(client, *store, clock, current.artifacts, so, policy.name, a.progress);
    }
    // A node held by a change another executor's log keeps is not acted
    // beside: said as an error (the controller's condition), nothing started.
    if (Status foreign = CheckForeignChanges(client, *store); !foreign.ok()) {
      progress("policy " + policy.name + ": " + foreign.message());
      result.report.policy = policy.name;
      result.report.error = foreign.message();
      release();
      return result;
    }
  }
  ApplyOptions ao;
  ao.mode = mode;
  ao.now = a.now;
  ao.dry_run = a.dry_run;
  ao.progress = a.progress;
  if (writes) {
    ao.renew_lease = [&]() -> Status {
      if (a.may_continue) {
        if (Status s = a.may_continue(); !s.ok()) return s;
      }
      return lease.Renew();
    };
  }
  auto run_step = [&](const plan::ScheduleStep& step) {
    StepContext step_ctx = *ctx;  // REQUIRES: writes (ApplyPlan runs no step otherwise)
    if (policy.window) {
      const auto now = a.now();
      const auto close = policy.window->CloseOf(now);
      if (close != std::chrono::sys_seconds::max()) {
        step_ctx.options.hard_deadline = SysClock::now() + (close - now);
      }
    }
    if (a.on_step_started) a.on_step_started(step);
    const auto started = std::chrono::steady_clock::now();
    // The step may outlast the Lease: keep renewing it while it runs.
    const StepOutcome o = WhileKeepingLease(lease, lo.duration, progress, [&](const Fence& fence) {
      step_ctx.fence = fence;  // every write checks the Lease first
      return RunStep(step_ctx, step);
    });
    for (const auto& p : o.gitops_patches) progress("GitOps-managed, not patched; commit this to its repository: " + p);
    if (a.on_step_finished) a.on_step_finished(step, o, std::chrono::steady_clock::now() - started);
    return ToResult(o);
  };
  result.report = ApplyPlan(current.plan, policy, store, ao, run_step);
  release();
  return result;
}

}  // namespace kubeon::apply
