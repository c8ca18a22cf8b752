#include "cli/apply_command.h"

#include <chrono>
#include <iomanip>
#include <memory>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "apply/apply_policy.h"
#include "apply/apply_run.h"
#include "apply/clock.h"
#include "apply/lease.h"
#include "apply/lease_revert.h"
#include "apply/rfc3339.h"
#include "apply/step_runner.h"
#include "audit/change_id.h"
#include "cli/audit_db.h"
#include "cli/terminal_text.h"
#include "kube/identity.h"
#include "kube/snapshot.h"
#include "plan/operator_fit.h"

namespace kubeon::cli {
namespace {

using SysClock = std::chrono::system_clock;

std::optional<policy::Mode> ParseMode(const std::string& text) {
  if (text == "Proposal") return policy::Mode::kProposal;
  if (text == "Approve") return policy::Mode::kApprove;
  if (text == "Auto") return policy::Mode::kAuto;
  return std::nullopt;
}

Result<std::unique_ptr<kube::KubeClient>> Connect(const std::string& kubeconfig, const std::string& context) {
  kube::SnapshotOptions o;
  o.kubeconfig = kubeconfig;
  o.context = context;
  return kube::ConnectWithOptions(o);
}

apply::StepArtifacts ArtifactsOf(const plan::Plan& plan, const model::Cluster& cluster, const PlanArgs& args) {
  return apply::ArtifactsFor(plan, cluster, args.operator_namespace);
}

std::string Money(double usd) {
  std::ostringstream s;
  s << "$" << std::fixed << std::setprecision(0) << usd;
  return s.str();
}

std::string RenderApplyTable(const std::vector<apply::ApplyReport>& reports) {
  std::ostringstream out;
  for (const auto& r : reports) {
    out << "policy " << r.policy << "\n";
    if (!r.error.empty()) out << "  error: " << r.error << "\n";
    for (const auto& [pool, why] : r.blocked_pools) {
      out << "  pool " << pool << ": no order of its changes fits (" << why << "); its nodes stay as they are\n";
    }
    if (!r.feasible) {
      out << "  spare GPUs needed:";
      for (const auto& [model, n] : r.spare_gpus_needed) out << " " << n << " x " << model;
      out << (r.steps.empty() ? "\n  nothing started\n" : "\n  the other pools' steps:\n");
    }
    for (const auto& id : r.expired) out << "  " << id << "  expired (no longer in the plan)\n";
    if (r.steps.empty() && r.feasible && r.error.empty()) out << "  nothing to do: the cluster matches the plan\n";
    for (const auto& s : r.steps) {
      std::string nodes;
      for (const auto& n : s.nodes) nodes += (nodes.empty() ? "" : ",") + n;
      out << "  " << s.index << ". " << s.id << "  " << std::left << std::setw(17) << s.outcome << " " << nodes
          << "  frees " << s.gpus_freed << " GPU(s), " << Money(s.monthly_savings_usd) << "/month";
      if (!s.why.empty()) out << "\n       " << s.why;
      out << "\n";
    }
  }
  return EscapeControl(out.str(), /*keep_newlines=*/true);
}

std::string RenderApplyJson(const std::vector<apply::ApplyReport>& reports, int exit_code) {
  nlohmann::json j = {{"policies", nlohmann::json::array()}, {"exit_code", exit_code}};
  for (const auto& r : reports) {
    nlohmann::json p = {{"policy", r.policy},
                        {"feasible", r.feasible},
                        {"spare_gpus_needed", r.spare_gpus_needed},
                        {"blocked_pools", r.blocked_pools},
                        {"expired", r.expired},
                        {"error", r.error},
                        {"steps", nlohmann::json::array()}};
    for (const auto& s : r.steps) {
      p["steps"].push_back({{"index", s.index},
                            {"id", s.id},
                            {"outcome", s.outcome},
                            {"why", s.why},
                            {"nodes", s.nodes},
                            {"gpus_freed", s.gpus_freed},
                            {"monthly_savings_usd", s.monthly_savings_usd}});
    }
    j["policies"].push_back(std::move(p));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

CLI::App* AddApplyCommand(CLI::App& app, ApplyArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "apply",
      "Carry out the plan on the live cluster, one step at a time in the plan's order, as the policy's mode, "
      "approvals and change window allow: cordon and taint the step's nodes, evict their GPU pods through the "
      "Eviction API (PodDisruptionBudgets respected), write the GPU Operator's MIG or device-plugin configuration, "
      "wait for it, patch the owners onto their slices, wait for their rollouts, uncordon. Every step is recorded "
      "in the audit log before it is taken and can be reverted (kubeon-gpu revert).");
  cmd->footer(
      "Modes: Proposal records the steps and changes nothing; Approve runs approved steps (kubeon-gpu approve "
      "ID); Auto runs clean steps on its own and flagged ones only when approved. A step starts only inside the "
      "window and only when its estimated duration ends before the window closes; a step still running when the "
      "window closes rolls back. A rolled-back step is proposed again after spec.disruption.retryBackoff "
      "(doubled each time), up to spec.disruption.maxAttempts attempts.\n\n"
      "Exit codes: 0 all done or nothing to do; 3 a step waits for approval, the window or its retry backoff; 4 a "
      "step failed and was rolled back (now, or in every attempt allowed); 5 a rollback failed: its nodes stay cordoned and tainted (gpu.kubeon.io/step), see "
      "kubeon-gpu audit; 6 no order of changes fits some GPU pool: spare GPUs needed, its nodes left as they are "
      "(the other pools' steps ran); 1 other "
      "errors (nothing changed); 2 usage.");
  AddLivePlanFlags(cmd, a.plan, "--metrics");
  cmd->add_option("--policy", a.plan.policy_file, "GpuPolicy YAML file")->required();
  cmd->add_option("--policy-name", a.plan.policy_name, "Apply only the policy with this metadata.name");
  AddAuditDbOption(cmd, a.audit_db);
  cmd->add_option("--mode", a.mode, "Override the policy's mode for this run: Proposal, Approve or Auto")
      ->check(CLI::IsMember({"Proposal", "Approve", "Auto"}));
  cmd->add_option("--now", a.now, "Decide windows and approval expiry as if it were this time (RFC 3339), for tests");
  cmd->add_flag("--dry-run", a.dry_run,
                "Print the steps it would take and what would stop them; write nothing to the cluster or the log");
  cmd->add_option("-o,--output", a.output, "Outcome format on stdout: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--lease-namespace", a.lease_namespace,
                  "Namespace of the policy Leases every executor holds while it writes (default kube-system)")
      ->check(NamespaceName());
  cmd->add_option("--configmap-sync-seconds", a.configmap_sync_seconds,
                  "How long the kubelet takes to show a changed ConfigMap to the GPU Operator's pods (default 90)")
      ->check(CLI::Range(0, 3600));
  cmd->add_flag("-q,--quiet", a.plan.quiet, "No progress on stderr");
  return cmd;
}

int RunApply(const ApplyArgs& a, std::ostream& out, std::ostream& err) {
  auto progress = [&](const std::string& line) {
    if (!a.plan.quiet) err << line << "\n";
  };
  std::optional<policy::Mode> mode_override;
  if (!a.mode.empty()) {
    mode_override = ParseMode(a.mode);
    if (!mode_override) {
      err << "error: --mode: \"" << a.mode << "\" is not Proposal, Approve or Auto\n";
      return 2;
    }
  }
  std::optional<std::chrono::sys_seconds> fixed_now;
  if (!a.now.empty()) {
    fixed_now = apply::ParseTime(a.now);
    if (!fixed_now) {
      err << "error: --now: \"" << a.now << "\" is not an RFC 3339 time like 2026-12-05T03:00:00Z\n";
      return 2;
    }
  }
  PlanArgs pa = a.plan;
  pa.from_cluster = true;
  pa.cluster_file.clear();
  int code = 0;
  Result<PlannedCluster> planned = BuildPlans(pa, progress, &code);
  if (!planned.ok()) {
    err << "error: " << planned.status().message() << "\n";
    return code;
  }
  Result<std::unique_ptr<kube::KubeClient>> client = Connect(pa.kubeconfig, pa.context);
  if (!client.ok()) {
    err << "error: " << client.status().message() << "\n";
    return 1;
  }
  std::unique_ptr<audit::AuditStore> store;
  if (!a.dry_run) {
    Result<std::unique_ptr<audit::AuditStore>> s = OpenStoreFor(a.audit_db, **client, true);
    if (!s.ok()) {
      err << "error: " << s.status().message() << "\n";
      return 1;
    }
    store = std::move(s.value());
  }
  const auto started_wall = SysClock::now();
  const auto started = std::chrono::steady_clock::now();
  auto now_fn = [&]() -> std::chrono::sys_seconds {
    const auto base = fixed_now ? *fixed_now : std::chrono::floor<std::chrono::seconds>(started_wall);
    return base + std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started);
  };
  // A policy that could not be planned is reported and its steps are not
  // taken; the other policies are applied.
  for (const auto& f : planned->failed) err << "error: " << f.message << "\n";
  apply::RealClock clock;
  std::vector<apply::ApplyReport> reports;
  bool resume_failed = false, resume_rolled_back = false;
  for (size_t i = 0; i < planned->plans.size(); ++i) {
    const policy::GpuPolicy& policy = planned->policies[i];
    apply::ApplyPolicyOptions po;
    po.mode_override = mode_override;
    po.dry_run = a.dry_run;
    po.lease_namespace = a.lease_namespace;
    po.configmap_sync = std::chrono::seconds(a.configmap_sync_seconds);
    po.write_observer = a.write_observer;
    po.now = now_fn;
    po.progress = progress;
    po.replan = [&]() -> Result<apply::PlannedPolicy> {
      Result<PlannedCluster> again = BuildPlans(pa, progress, &code);
      if (!again.ok()) return again.status();
      for (size_t k = 0; k < again->policies.size(); ++k) {
        if (again->policies[k].name != policy.name) continue;
        return apply::PlannedPolicy{again->plans[k], ArtifactsOf(again->plans[k], again->cluster, pa)};
      }
      for (const auto& f : again->failed) {
        if (f.policy == policy.name) return Status::Error(f.message);
      }
      return Status::Error("policy \"" + policy.name + "\": not planned again");
    };
    apply::ApplyPolicyResult r =
        apply::ApplyPolicy(**client, store.get(), clock,
                           apply::PlannedPolicy{planned->plans[i], ArtifactsOf(planned->plans[i], planned->cluster, pa)},
                           policy, po);
    if (!r.fatal.ok()) {
      err << "error: " << r.fatal.message() << "\n";
      return code;
    }
    resume_failed = resume_failed || r.resume_failed;
    resume_rolled_back = resume_rolled_back || r.resume_rolled_back;
    reports.push_back(std::move(r.report));
  }
  int exit_code = apply::ApplyExitCode(reports);
  if (!planned->failed.empty() && exit_code == 0) exit_code = 1;
  if (resume_failed) {
    exit_code = 5;
  } else if (resume_rolled_back && exit_code != 5) {
    exit_code = 4;
  }
  out << (a.output == "json" ? RenderApplyJson(reports, exit_code) : RenderApplyTable(reports));
  return exit_code;
}

CLI::App* AddRevertCommand(CLI::App& app, RevertArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "revert",
      "Undo a done change: restore exactly the fields it set (MIG config and device-plugin labels, owners' GPU "
      "requests, tolerations and node affinity) through the same safe sequence as apply, after checking that "
      "nothing else changed those fields since and that the whole GPUs the workloads need exist.");
  cmd->footer("Exit codes: 0 reverted; 4 refused (nothing changed) or failed and rolled back; 5 the rollback failed "
              "(nodes left cordoned and tainted); 1 other errors.");
  cmd->add_option("ID", a.id, "Change id, as listed by kubeon-gpu changes")->required();
  cmd->add_option("--kubeconfig", a.kubeconfig, "kubeconfig file");
  cmd->add_option("--context", a.context, "kubeconfig context");
  AddAuditDbOption(cmd, a.audit_db);
  cmd->add_option("--lease-namespace", a.lease_namespace, "Namespace of the policy Leases (default kube-system)")
      ->check(NamespaceName());
  cmd->add_option("--configmap-sync-seconds", a.configmap_sync_seconds,
                  "How long the kubelet takes to show a changed ConfigMap (default 90)")
      ->check(CLI::Range(0, 3600));
  cmd->add_flag("-q,--quiet", a.quiet, "No progress on stderr");
  return cmd;
}

int RunRevert(const RevertArgs& a, std::ostream& out, std::ostream& err) {
  auto progress = [&](const std::string& line) {
    if (!a.quiet) err << line << "\n";
  };
  if (Status bad = audit::CheckChangeId(a.id); !bad.ok()) {
    err << "error: " << bad.message() << "\n";
    return 2;
  }
  Result<std::unique_ptr<kube::KubeClient>> client = Connect(a.kubeconfig, a.context);
  if (!client.ok()) {
    err << "error: " << client.status().message() << "\n";
    return 1;
  }
  Result<std::unique_ptr<audit::AuditStore>> store = OpenStoreFor(a.audit_db, **client, false);
  if (!store.ok()) {
    err << "error: " << store.status().message() << "\n";
    return 1;
  }
  Result<std::optional<audit::ChangeRecord>> record = (*store)->GetChange(a.id);
  if (!record.ok()) {
    err << "error: " << record.status().message() << "\n";
    return 1;
  }
  if (!record->has_value()) {
    err << "error: no change " << a.id << " in the audit log (kubeon-gpu changes lists them)\n";
    return 1;
  }
  const audit::ChangeRecord& r = **record;
  if (r.state != audit::ChangeState::kDone) {
    err << "error: change " << a.id << " is " << audit::ChangeStateName(r.state)
        << "; only a done change can be reverted\n";
    return 4;  // refused, nothing changed
  }
  apply::LeaseOptions lo;
  lo.namespace_ = a.lease_namespace;
  lo.policy = r.policy;
  apply::RealClock clock;
  apply::StepOptions so;
  so.configmap_sync = std::chrono::seconds(a.configmap_sync_seconds);
  so.write_observer = a.write_observer;
  apply::StepContext ctx{**client, **store, clock, apply::StepArtifacts{}, so, r.policy, progress};
  Result<apply::StepOutcome> reverted = apply::RevertUnderLease(ctx, lo, a.id);
  if (!reverted.ok()) {
    err << "error: " << reverted.status().message() << "\n";
    return 1;
  }
  const apply::StepOutcome& o = *reverted;
  switch (o.kind) {
    case apply::OutcomeKind::kDone:
      out << "change " << a.id << " reverted\n";
      return 0;
    case apply::OutcomeKind::kRolledBack:
      err << "error: revert of " << a.id << " not done: " << o.cause << "\n";
      return 4;
    case apply::OutcomeKind::kRollbackFailed:
    case apply::OutcomeKind::kCrashed:
      err << "error: revert of " << a.id << " failed and so did its rollback: " << o.cause
          << "; the nodes stay cordoned and tainted (gpu.kubeon.io/step)\n";
      return 5;
    case apply::OutcomeKind::kLeaseLost:
      err << "error: revert of " << a.id << " stopped: " << o.cause << "\n";
      return 1;
  }
  return 1;
}

}  // namespace kubeon::cli
