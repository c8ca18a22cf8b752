// SqliteAuditStore: the CLI's AuditStore, one SQLite file per cluster
// (default DefaultAuditDbPath()).
//
// Layout (schema version 1, recorded in table schema_version):
//   cluster(id = 1, server, kube_system_uid)      -- at most one row
//   changes(id UNIQUE, ..., revision)             -- one row per ChangeRecord,
//                                                    kept in insertion order
//   log(seq AUTOINCREMENT, ...)                   -- append-only: triggers
//                                                    refuse UPDATE and DELETE
//
// Contract (in addition to AuditStore's):
//  - Open creates the missing parent directories with mode 0700 and a
//    missing file with mode 0600 (SQLite gives its -wal and -shm files the
//    file's mode), sets journal_mode=WAL, synchronous=FULL and a busy
//    timeout, and creates the schema.  With Options::create_if_missing false
//    a missing file is an error and nothing is created.
//  - Open refuses a file whose schema version is newer than this build's
//    (kSchemaVersion), a file that is not an SQLite database, a path it
//    cannot open and a database another process keeps locked past the busy
//    timeout: one line naming the path and the OS or SQLite reason, and
//    nothing is written.
//  - Every write is one IMMEDIATE transaction: a second handle on the same
//    file (another process) waits up to the busy timeout for the first
//    writer, then fails with "... is locked by another writer ..." having
//    written nothing.  PutChange's compare-and-set reads and writes the
//    revision inside that transaction, so two handles cannot both win.
//  - Every error message starts with "audit db <path>: " (PutChange's
//    conflicts start with "conflict: audit db <path>: ").
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit_store.h"
#include "model/status.h"

struct sqlite3;

namespace kubeon::audit {

class SqliteAuditStore final : public AuditStore {
 public:
  static constexpr int kSchemaVersion = 1;

  struct Options {
    bool create_if_missing = true;
    // How long a write waits for another handle's transaction to end.
    std::chrono::milliseconds busy_timeout{10000};
  };

  // Opens (creating when allowed) the store at `path`.
  static Result<std::unique_ptr<AuditStore>> Open(const std::string& path, const Options& options);
  static Result<std::unique_ptr<AuditStore>> Open(const std::string& path) { return Open(path, Options()); }

  ~SqliteAuditStore() override;
  SqliteAuditStore(const SqliteAuditStore&) = delete;
  SqliteAuditStore& operator=(const SqliteAuditStore&) = delete;

  Status BindCluster(const ClusterIdentity& id) override;
  Result<std::optional<ClusterIdentity>> Cluster() override;
  Status PutChange(const ChangeRecord& record, int64_t expected_revision) override;
  Result<std::optional<ChangeRecord>> GetChange(const std::string& id) override;
  Result<std::vector<ChangeRecord>> ListChanges() override;
  Result<int64_t> Append(const LogEntry& entry) override;
  Result<std::vector<LogEntry>> Log(const std::string& change_id) override;

  const std::string& path() const { return path_; }

 private:
  SqliteAuditStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

  std::string path_;
  sqlite3* db_;  // owned
  std::chrono::milliseconds busy_timeout_{0};
};

// $XDG_STATE_HOME/kubeon/audit.db, else $HOME/.local/state/kubeon/audit.db,
// from the process environment; an error when neither is set (absolute).
Result<std::string> DefaultAuditDbPath();
// The same rule for given values ("" = unset).  Relative XDG_STATE_HOME
// values are ignored, as the XDG Base Directory specification asks.
Result<std::string> AuditDbPathFor(const std::string& xdg_state_home, const std::string& home);

}  // namespace kubeon::audit
