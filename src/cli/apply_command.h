// `kubeon-gpu apply` and `kubeon-gpu revert`: the executor's commands.
//
// apply: plans every selected policy from the live cluster (as `plan
// --from-cluster`), records each schedule step in the audit log, then
// carries out what the mode, the approvals and the window allow, one step at
// a time in the plan's order, holding the policy's Lease (apply/lease.h)
// while it writes.  A step left half way by an earlier run (state running)
// is finished or rolled back first.  Progress goes to stderr, one line per
// step and action; `-o json` prints the outcome on stdout.
//
// revert ID: restores exactly the fields change ID set, through the same
// safe sequence, after checking that nothing else changed them since and
// that the whole GPUs the workloads need exist.
//
// Both refuse to act with an audit log of another cluster (the log records
// the API server URL and the kube-system namespace's UID) and change nothing
// on bad input.  --audit-db (cli/audit_db.h) names a SQLite file or, with
// `kubernetes`, the cluster's GpuChange objects (audit/kube_store.h).
// Exit codes (apply): 0 all done or nothing to do; 3 a step waits for
// approval, the window or its retry backoff; 4 a step failed and was rolled
// back (now, or in every attempt the policy allows); 5 a rollback failed (its
// nodes stay cordoned and tainted); 6 no order of changes fits some GPU pool
// (spare GPUs needed; the other pools' steps ran); 1 any other error; 2 usage.  revert: 0 reverted; 4 refused or failed and rolled back;
// 5 rollback failed; 1 other errors.
#pragma once

#include <ostream>
#include <string>

#include "apply/step_context.h"
#include "audit/audit_store.h"
#include "cli/cli11_fwd.h"
#include "cli/plan_command.h"
#include "kube/client.h"

namespace kubeon::cli {

struct ApplyArgs {
  PlanArgs plan;  // history, policy, prices, catalog, kubeconfig, ... (from_cluster is forced)
  std::string audit_db;  // "kubernetes", a SQLite path, or "" = audit::DefaultAuditDbPath() (cli/audit_db.h)
  std::string mode;      // "" = the policy's
  std::string now;       // RFC 3339; "" = the clock
  bool dry_run = false;
  std::string output = "table";
  std::string lease_namespace = "kube-system";
  // Seconds the operator's ConfigMap sync is assumed to take (kubelet sync + cache TTL).
  int configmap_sync_seconds = 90;
  apply::WriteObserver write_observer;  // crash points (apply/step_context.h); never set by kubeon-gpu
};

struct RevertArgs {
  std::string id;
  std::string kubeconfig;
  std::string context;
  std::string audit_db;
  std::string lease_namespace = "kube-system";
  int configmap_sync_seconds = 90;
  bool quiet = false;
  apply::WriteObserver write_observer;  // crash points (apply/step_context.h); never set by kubeon-gpu
};

CLI::App* AddApplyCommand(CLI::App& app, ApplyArgs& args);
int RunApply(const ApplyArgs& args, std::ostream& out, std::ostream& err);

CLI::App* AddRevertCommand(CLI::App& app, RevertArgs& args);
int RunRevert(const RevertArgs& args, std::ostream& out, std::ostream& err);

}  // namespace kubeon::cli
