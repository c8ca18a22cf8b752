// The commands that read the audit log and decide on its changes:
//
//   kubeon-gpu changes  [--audit-db PATH|kubernetes] [--kubeconfig F] [--context C] [-o table|json]
//   kubeon-gpu audit    [--audit-db PATH|kubernetes] [--kubeconfig F] [--context C] [-o table|json] [--change ID]
//   kubeon-gpu approve ID [--kubeconfig F] [--context C] [--audit-db PATH|kubernetes] [--ttl 24h]
//   kubeon-gpu reject  ID [--reason TEXT] [--kubeconfig F] [--context C] [--audit-db PATH|kubernetes]
//
// The log is the store --audit-db names (cli/audit_db.h): a SQLite file
// (audit/sqlite_store.h, default DefaultAuditDbPath()) or, with
// `kubernetes`, the cluster's GpuChange objects (audit/kube_store.h).
// `changes` and `audit` only read it (a SQLite log that does not exist yet
// lists nothing) and contact the cluster only for the kubernetes store.
//
// `changes -o json` (a contract; fields may be added, never renamed):
//   {"audit_db", "cluster": {"server", "kube_system_uid"} | null,
//    "changes": [{"id", "policy", "state", "content_hash", "revision",
//      "created_at", "updated_at", "approval": {"by", "at", "expires_at",
//      "expired", "hash", "matches_step"} | null, "rejected_by" | null,
//      "reason", "step": <plan/schedule_json.h StepToJson> | null,
//      "step_error": null | "why the stored step does not read",
//      "attempt": N, "attempts": [{"number", "ended_at", "cause"}]}]}
//   (apply/change_json.h; "attempts" are the earlier, rolled-back ones)
// `audit -o json`: {"audit_db", "cluster", "entries": [{"seq", "time",
//   "change", "action", "outcome", "detail", "data"}]}.
//
// approve / reject:
//  - The decider is the identity the API server reports for the kubeconfig's
//    credentials (kube/identity.h WhoAmI), never a name typed on the command
//    line.
//  - The log must belong to the kubeconfig's cluster (API server URL and
//    kube-system uid, AuditStore::BindCluster semantics).
//  - approve takes a `proposed` change, or an `approved` one (re-approval
//    refreshes the approver and the expiry); it stores approved_by/at,
//    approval_expires_at = now + --ttl and approved_hash = the change's
//    content_hash, and appends an "approve" log entry.  reject takes a
//    `proposed` or `approved` change, stores rejected_by and the reason,
//    clears the approval, and appends a "reject" log entry.  The executor
//    acts only on an approval whose hash equals the step it is about to take
//    and that has not expired.
//  - The record is written with a compare-and-set on its revision, so a
//    decision racing the executor or another reviewer fails cleanly.
//  - With --audit-db kubernetes the decision is not written to the record:
//    approve sets the GpuChange's annotations gpu.kubeon.io/approve = the
//    change's content hash and gpu.kubeon.io/approved-by = the reviewer
//    (reject: gpu.kubeon.io/reject = the reason, gpu.kubeon.io/rejected-by),
//    which the ValidatingAdmissionPolicy kubeon-gpu-approvals checks against
//    the API server's record of who wrote them; the controller imports them
//    into the audit log (audit/kube_approvals.h) with its own approval TTL
//    (--ttl is not used).  Reviewers need only `patch` on gpuchanges.
//
// Errors (unknown id, a change in another state, e.g. `expired`, an
// unreadable or missing db, a log of another cluster, unreachable API
// server): one line "kubeon-gpu <command>: ..." on stderr, exit 1, nothing
// written.  Usage errors exit 2.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>

#include "cli/cli11_fwd.h"

namespace kubeon::cli {

struct ChangesArgs {
  std::string audit_db;  // "kubernetes", a SQLite path, or "" = DefaultAuditDbPath()
  std::string kubeconfig;  // --audit-db kubernetes only
  std::string context;
  std::string output = "table";
  // The time approvals are judged expired against; nullopt = the clock.
  std::optional<std::chrono::system_clock::time_point> now;
};

struct AuditArgs {
  std::string audit_db;
  std::string kubeconfig;  // --audit-db kubernetes only
  std::string context;
  std::string output = "table";
  std::string change_id;  // "" = every entry
};

struct DecideArgs {
  std::string id;
  std::string kubeconfig;  // "" = KUBECONFIG / ~/.kube/config / in-cluster
  std::string context;
  std::string audit_db;
  std::string ttl = "24h";  // approve only
  std::string reason;       // reject only
  std::optional<std::chrono::system_clock::time_point> now;
};

// Register the subcommands on `app`; each returns its CLI::App.
CLI::App* AddChangesCommand(CLI::App& app, ChangesArgs& args);
CLI::App* AddAuditCommand(CLI::App& app, AuditArgs& args);
CLI::App* AddApproveCommand(CLI::App& app, DecideArgs& args);
CLI::App* AddRejectCommand(CLI::App& app, DecideArgs& args);

// Run them; each returns the process exit code.
int RunChanges(const ChangesArgs& args, std::ostream& out, std::ostream& err);
int RunAudit(const AuditArgs& args, std::ostream& out, std::ostream& err);
int RunApprove(const DecideArgs& args, std::ostream& out, std::ostream& err);
int RunReject(const DecideArgs& args, std::ostream& out, std::ostream& err);

}  // namespace kubeon::cli
