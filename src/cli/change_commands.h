// The commands that read the audit log and decide on its changes:
//
//   kubeon-gpu changes  [--audit-db PATH] [-o table|json]
//   kubeon-gpu audit    [--audit-db PATH] [-o table|json] [--change ID]
//   kubeon-gpu approve ID [--kubeconfig F] [--context C] [--audit-db PATH] [--ttl 24h]
//   kubeon-gpu reject  ID [--reason TEXT] [--kubeconfig F] [--context C] [--audit-db PATH]
//
// The log is the SQLite store of audit/sqlite_store.h at --audit-db, default
// DefaultAuditDbPath().  `changes` and `audit` only read it (a log that does
// not exist yet lists nothing) and never contact the cluster.
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

#include <CLI/CLI.hpp>

namespace kubeon::cli {

struct ChangesArgs {
  std::string audit_db;  // "" = DefaultAuditDbPath()
  std::string output = "table";
  // The time approvals are judged expired against; nullopt = the clock.
  std::optional<std::chrono::system_clock::time_point> now;
};

struct AuditArgs {
  std::string audit_db;
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
