// AuditStore: where the executor records every change (one ScheduleStep of a
// plan) and every action it takes, before it takes it, with what is needed to
// undo it.  The CLI's store is SQLite (sqlite_store.h); the controller's is
// GpuChange custom resources in the API server (issue 12).  Both implement
// this interface, so the executor, `changes`, `approve`, `reject`, `revert`
// and `audit` do not know which one they use.
//
// Contract (every implementation):
//  - Durable: a call that returns OK has reached stable storage (SQLite: WAL,
//    synchronous=FULL); a crash after it loses nothing it wrote.
//  - A store belongs to one cluster.  BindCluster records the identity on
//    first use and fails on every later call with another identity, naming
//    both ("audit log ... belongs to cluster https://a (kube-system uid X), not
//    https://b (uid Y)"); nothing is written then.
//  - PutChange with `expected_revision` is a compare-and-set on the record's
//    revision (0 = the record must not exist yet): a stale writer gets an
//    error whose message starts with "conflict:" and nothing changes.  Every
//    successful PutChange increments ChangeRecord::revision.
//  - Append gives each entry the next sequence number (1, 2, ...) of the
//    store; entries are never changed or removed.
//  - Errors are values naming the store (its path or "the cluster's GpuChange
//    objects") and what failed; never an exception.
//  - Not required to be thread-safe: one executor uses a store at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace kubeon::audit {

// proposed -> approved | rejected | expired; approved|proposed(Auto) -> running;
// running -> done | failed | rolled-back; done -> reverted.
enum class ChangeState {
  kProposed,
  kApproved,
  kRejected,
  kExpired,
  kRunning,
  kDone,
  kFailed,      // failed and its rollback failed too: node left cordoned and tainted
  kRolledBack,  // failed, then rolled back to the state before the step
  kReverted,
};
// "proposed", "approved", "rejected", "expired", "running", "done", "failed",
// "rolled-back", "reverted".
std::string_view ChangeStateName(ChangeState s);
std::optional<ChangeState> ParseChangeState(std::string_view name);

// Which cluster a log belongs to.
struct ClusterIdentity {
  std::string server;           // API server URL as in the kubeconfig
  std::string kube_system_uid;  // metadata.uid of the kube-system namespace
  bool operator==(const ClusterIdentity&) const = default;
};

struct ChangeRecord {
  std::string id;            // ScheduleStep::id
  std::string policy;        // GpuPolicy name
  std::string content_hash;  // ScheduleStep::content_hash of what was proposed
  ChangeState state = ChangeState::kProposed;
  std::string step_json;  // the ScheduleStep as JSON (plan/schedule_json.h)
  // What the executor needs to undo the step: every field it changed with its
  // value before (JSON object, executor-defined; "{}" before it acts).
  std::string undo_json = "{}";
  std::string created_at;  // RFC 3339 UTC
  std::string updated_at;
  // Approval: who (the API server's identity for the approver's credentials,
  // from SelfSubjectReview), when, and until when it holds.  The approval is
  // for approved_hash; it expires when the next plan's step differs.
  std::string approved_by;
  std::string approved_at;
  std::string approval_expires_at;
  std::string approved_hash;
  std::string rejected_by;
  std::string reason;  // rejection reason, or why it failed / expired
  int64_t revision = 0;  // set by the store
};

// One line of the step log.
struct LogEntry {
  int64_t seq = 0;         // set by the store
  std::string time;        // RFC 3339 UTC
  std::string change_id;   // "" for run-level entries
  std::string action;      // e.g. "cordon", "evict", "label", "patch-owner", "rollback"
  std::string outcome;     // "intent" | "ok" | "failed" | "skipped"
  std::string detail;      // one line for a person (object names, values)
  std::string data_json;   // machine-readable detail (may be "{}")
};

class AuditStore {
 public:
  virtual ~AuditStore() = default;

  // Records `id` on first use; afterwards fails unless it equals the recorded one.
  virtual Status BindCluster(const ClusterIdentity& id) = 0;
  // The recorded identity, nullopt before the first BindCluster.
  virtual Result<std::optional<ClusterIdentity>> Cluster() = 0;

  // Inserts or replaces the record with record.id (see the revision contract).
  virtual Status PutChange(const ChangeRecord& record, int64_t expected_revision) = 0;
  // nullopt when no record has that id.
  virtual Result<std::optional<ChangeRecord>> GetChange(const std::string& id) = 0;
  // Every record, oldest first.
  virtual Result<std::vector<ChangeRecord>> ListChanges() = 0;

  // Appends an entry; returns its sequence number.
  virtual Result<int64_t> Append(const LogEntry& entry) = 0;
  // Entries in sequence order; change_id "" = all.
  virtual Result<std::vector<LogEntry>> Log(const std::string& change_id) = 0;
};

}  // namespace kubeon::audit
