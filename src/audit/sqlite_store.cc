// See sqlite_store.h.
#include "audit/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <utility>

namespace kubeon::audit {
namespace {

// Prepared statement owned for one call.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool prepared() const { return rc_ == SQLITE_OK; }
  int prepare_rc() const { return rc_; }
  void Bind(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT); }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  int Step() { return sqlite3_step(s_); }
  std::string Text(int col) const {
    const unsigned char* t = sqlite3_column_text(s_, col);
    return t ? std::string(reinterpret_cast<const char*>(t), size_t(sqlite3_column_bytes(s_, col))) : std::string();
  }
  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_OK;
};

std::string Prefix(const std::string& path) { return "audit db " + path + ": "; }

// One line: what failed and SQLite's (and the OS's) reason.
std::string Reason(sqlite3* db, int rc, std::chrono::milliseconds busy_timeout) {
  if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED) {
    char waited[32];
    std::snprintf(waited, sizeof(waited), "%gs", double(busy_timeout.count()) / 1000.0);
    return std::string("the database is locked by another writer (waited ") + waited +
           "); another kubeon-gpu may be using it";
  }
  std::string r = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  const int sys = db ? sqlite3_system_errno(db) : 0;
  if (sys != 0 && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_IOERR || (rc & 0xff) == SQLITE_PERM ||
                   (rc & 0xff) == SQLITE_READONLY)) {
    r += " (" + std::string(std::strerror(sys)) + ")";
  }
  return r;
}

// Creates the missing directories of `dir` (outermost first) with mode 0700.
Status MakeDirs(const std::filesystem::path& dir) {
  if (dir.empty()) return Status::Ok();
  std::error_code ec;
  if (std::filesystem::exists(dir, ec)) {
    if (!std::filesystem::is_directory(dir, ec)) return Status::Error(dir.string() + " is not a directory");
    return Status::Ok();
  }
  if (dir.has_parent_path() && dir.parent_path() != dir) {
    Status s = MakeDirs(dir.parent_path());
    if (!s.ok()) return s;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::Error("cannot create directory " + dir.string() + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

constexpr const char* kSchema = R"sql(
CREATE TABLE schema_version(version INTEGER NOT NULL);
CREATE TABLE cluster(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  server TEXT NOT NULL,
  kube_system_uid TEXT NOT NULL);
CREATE TABLE changes(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  policy TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  step_json TEXT NOT NULL,
  undo_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  approved_by TEXT NOT NULL,
  approved_at TEXT NOT NULL,
  approval_expires_at TEXT NOT NULL,
  approved_hash TEXT NOT NULL,
  rejected_by TEXT NOT NULL,
  reason TEXT NOT NULL,
  revision INTEGER NOT NULL);
CREATE TABLE log(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time TEXT NOT NULL,
  change_id TEXT NOT NULL,
  action TEXT NOT NULL,
  outcome TEXT NOT NULL,
  detail TEXT NOT NULL,
  data_json TEXT NOT NULL);
CREATE INDEX log_by_change ON log(change_id, seq);
CREATE TRIGGER log_no_update BEFORE UPDATE ON log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER log_no_delete BEFORE DELETE ON log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
)sql";

constexpr const char* kChangeColumns =
    "id, policy, content_hash, state, step_json, undo_json, created_at, updated_at, approved_by, approved_at, "
    "approval_expires_at, approved_hash, rejected_by, reason, revision";

// Binds the 14 text columns of kChangeColumns (1..14) and the revision (15).
void BindChange(Stmt& s, const ChangeRecord& r, int64_t revision) {
  int i = 1;
  for (const std::string* v : {&r.id, &r.policy, &r.content_hash}) s.Bind(i++, *v);
  s.Bind(i++, std::string(ChangeStateName(r.state)));
  for (const std::string* v : {&r.step_json, &r.undo_json, &r.created_at, &r.updated_at, &r.approved_by,
                               &r.approved_at, &r.approval_expires_at, &r.approved_hash, &r.rejected_by, &r.reason}) {
    s.Bind(i++, *v);
  }
  s.Bind(i, revision);
}

bool ReadChange(const Stmt& s, ChangeRecord* r, std::string* bad_state) {
  int i = 0;
  for (std::string* v : {&r->id, &r->policy, &r->content_hash}) *v = s.Text(i++);
  const std::string state = s.Text(i++);
  for (std::string* v : {&r->step_json, &r->undo_json, &r->created_at, &r->updated_at, &r->approved_by,
                         &r->approved_at, &r->approval_expires_at, &r->approved_hash, &r->rejected_by, &r->reason}) {
    *v = s.Text(i++);
  }
  r->revision = s.Int(i);
  auto parsed = ParseChangeState(state);
  if (!parsed) {
    *bad_state = state;
    return false;
  }
  r->state = *parsed;
  return true;
}

std::string Describe(const ClusterIdentity& id) {
  return id.server + " (kube-system uid " + (id.kube_system_uid.empty() ? "unknown" : id.kube_system_uid) + ")";
}

// Everything a call needs to report errors and run transactions.
struct SqliteCall {
  const std::string& path;
  sqlite3* db;
  std::chrono::milliseconds busy_timeout;

  Status Fail(const std::string& what, int rc) const {
    return Status::Error(Prefix(path) + what + ": " + Reason(db, rc, busy_timeout));
  }
  Status Exec(const std::string& what, const char* sql) const {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    return rc == SQLITE_OK ? Status::Ok() : Fail(what, rc);
  }
  // Runs `body` in one IMMEDIATE transaction; commits when it returns OK.
  Status Transaction(const std::string& what, const std::function<Status()>& body) const {
    Status s = Exec(what, "BEGIN IMMEDIATE");
    if (!s.ok()) return s;
    s = body();
    if (s.ok()) s = Exec(what, "COMMIT");
    if (!s.ok()) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  }
};

}  // namespace

Result<std::unique_ptr<AuditStore>> SqliteAuditStore::Open(const std::string& path, const Options& options) {
  if (path.empty()) return Status::Error("audit db: empty path");
  const std::string pre = Prefix(path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Status::Error(pre + "cannot open: " + std::strerror(errno));
    if (!options.create_if_missing) {
      return Status::Error(pre + "does not exist (nothing has been recorded yet; `kubeon-gpu apply` creates it)");
    }
    Status s = MakeDirs(std::filesystem::path(path).parent_path());
    if (!s.ok()) return Status::Error(pre + s.message());
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return Status::Error(pre + "cannot create: " + std::strerror(errno));
    if (fd >= 0) ::close(fd);
  } else if (S_ISDIR(st.st_mode)) {
    return Status::Error(pre + "cannot open: is a directory");
  }

  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  if (rc != SQLITE_OK) {
    Status err = Status::Error(pre + "cannot open: " + Reason(db, rc, options.busy_timeout));
    sqlite3_close_v2(db);
    return err;
  }
  std::unique_ptr<SqliteAuditStore> store(new SqliteAuditStore(path, db));
  store->busy_timeout_ = options.busy_timeout;
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, int(options.busy_timeout.count()));
  const SqliteCall call{store->path_, db, options.busy_timeout};

  // Read before writing anything: a file that is not a database (or not
  // ours, or of a newer schema) is refused untouched.
  int64_t objects = 0;
  bool has_version = false;
  {
    Stmt q(db, "SELECT count(*), coalesce(sum(name = 'schema_version'), 0) FROM sqlite_master");
    if (!q.prepared()) return call.Fail("cannot read", q.prepare_rc());
    rc = q.Step();
    if (rc != SQLITE_ROW) return call.Fail("cannot read", rc);
    objects = q.Int(0);
    has_version = q.Int(1) > 0;
  }
  if (objects > 0 && !has_version) {
    return Status::Error(pre + "is an SQLite database but not a kubeon audit log (it has no schema_version table)");
  }
  auto read_version = [&]() -> Result<int64_t> {
    Stmt q(db, "SELECT max(version) FROM schema_version");
    if (!q.prepared()) return call.Fail("cannot read the schema version", q.prepare_rc());
    const int r = q.Step();
    if (r != SQLITE_ROW) return call.Fail("cannot read the schema version", r);
    return q.Int(0);
  };
  if (has_version) {
    auto v = read_version();
    if (!v.ok()) return v.status();
    if (*v > kSchemaVersion) {
      return Status::Error(pre + "schema version " + std::to_string(*v) + " is newer than this kubeon-gpu supports (" +
                           std::to_string(kSchemaVersion) + "); use a newer kubeon-gpu");
    }
  }

  {
    Stmt q(db, "PRAGMA journal_mode=WAL");
    if (!q.prepared()) return call.Fail("cannot enable WAL", q.prepare_rc());
    rc = q.Step();
    if (rc != SQLITE_ROW) return call.Fail("cannot enable WAL", rc);
    if (q.Text(0) != "wal") return Status::Error(pre + "cannot enable WAL (journal mode stays " + q.Text(0) + ")");
  }
  Status s = call.Exec("cannot set synchronous=FULL", "PRAGMA synchronous=FULL");
  if (!s.ok()) return s;
  if (!has_version) {
    s = call.Transaction("cannot create the schema", [&]() -> Status {
      // Another process may have created it since the check above.
      Stmt q(db, "SELECT count(*) FROM sqlite_master WHERE name = 'schema_version'");
      if (!q.prepared()) return call.Fail("cannot read", q.prepare_rc());
      if (q.Step() == SQLITE_ROW && q.Int(0) > 0) return Status::Ok();
      Status e = call.Exec("cannot create the schema", kSchema);
      if (!e.ok()) return e;
      Stmt ins(db, "INSERT INTO schema_version(version) VALUES (?1)");
      ins.Bind(1, int64_t{kSchemaVersion});
      const int r = ins.Step();
      return r == SQLITE_DONE ? Status::Ok() : call.Fail("cannot create the schema", r);
    });
    if (!s.ok()) return s;
  }
  return std::unique_ptr<AuditStore>(std::move(store));
}

SqliteAuditStore::~SqliteAuditStore() { sqlite3_close_v2(db_); }

Status SqliteAuditStore::BindCluster(const ClusterIdentity& id) {
  const SqliteCall call{path_, db_, busy_timeout_};
  return call.Transaction("cannot record the cluster", [&]() -> Status {
    Stmt q(db_, "SELECT server, kube_system_uid FROM cluster WHERE id = 1");
    if (!q.prepared()) return call.Fail("cannot read the cluster", q.prepare_rc());
    const int rc = q.Step();
    if (rc == SQLITE_ROW) {
      const ClusterIdentity have{q.Text(0), q.Text(1)};
      if (have == id) return Status::Ok();
      return Status::Error("audit log " + path_ + " belongs to cluster " + Describe(have) + ", not " + Describe(id));
    }
    if (rc != SQLITE_DONE) return call.Fail("cannot read the cluster", rc);
    Stmt ins(db_, "INSERT INTO cluster(id, server, kube_system_uid) VALUES (1, ?1, ?2)");
    ins.Bind(1, id.server);
    ins.Bind(2, id.kube_system_uid);
    const int r = ins.Step();
    return r == SQLITE_DONE ? Status::Ok() : call.Fail("cannot record the cluster", r);
  });
}

Result<std::optional<ClusterIdentity>> SqliteAuditStore::Cluster() {
  const SqliteCall call{path_, db_, busy_timeout_};
  Stmt q(db_, "SELECT server, kube_system_uid FROM cluster WHERE id = 1");
  if (!q.prepared()) return call.Fail("cannot read the cluster", q.prepare_rc());
  const int rc = q.Step();
  if (rc == SQLITE_DONE) return std::optional<ClusterIdentity>();
  if (rc != SQLITE_ROW) return call.Fail("cannot read the cluster", rc);
  return std::optional<ClusterIdentity>(ClusterIdentity{q.Text(0), q.Text(1)});
}

Status SqliteAuditStore::PutChange(const ChangeRecord& record, int64_t expected_revision) {
  const SqliteCall call{path_, db_, busy_timeout_};
  if (record.id.empty()) return Status::Error(Prefix(path_) + "cannot record a change without an id");
  return call.Transaction("cannot record change " + record.id, [&]() -> Status {
    Stmt q(db_, "SELECT revision FROM changes WHERE id = ?1");
    q.Bind(1, record.id);
    const int rc = q.Step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return call.Fail("cannot read change " + record.id, rc);
    const bool exists = rc == SQLITE_ROW;
    const int64_t have = exists ? q.Int(0) : 0;
    const std::string conflict = "conflict: " + Prefix(path_) + "change " + record.id;
    if (expected_revision == 0 && exists) {
      return Status::Error(conflict + " already exists (revision " + std::to_string(have) + ")", StatusCode::kConflict);
    }
    if (expected_revision != 0 && !exists) {
      return Status::Error(conflict + " does not exist (expected revision " + std::to_string(expected_revision) + ")",
                           StatusCode::kConflict);
    }
    if (exists && have != expected_revision) {
      return Status::Error(conflict + " is at revision " + std::to_string(have) + ", not " +
                               std::to_string(expected_revision) + " (another writer changed it)",
                           StatusCode::kConflict);
    }
    const std::string sql = exists ? "UPDATE changes SET (" + std::string(kChangeColumns) +
                                       ") = (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
                                       "WHERE id = ?1"
                                 : "INSERT INTO changes(" + std::string(kChangeColumns) +
                                       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
    Stmt w(db_, sql.c_str());
    if (!w.prepared()) return call.Fail("cannot record change " + record.id, w.prepare_rc());
    BindChange(w, record, expected_revision + 1);
    const int r = w.Step();
    return r == SQLITE_DONE ? Status::Ok() : call.Fail("cannot record change " + record.id, r);
  });
}

Result<std::optional<ChangeRecord>> SqliteAuditStore::GetChange(const std::string& id) {
  const SqliteCall call{path_, db_, busy_timeout_};
  const std::string sql = "SELECT " + std::string(kChangeColumns) + " FROM changes WHERE id = ?1";
  Stmt q(db_, sql.c_str());
  if (!q.prepared()) return call.Fail("cannot read change " + id, q.prepare_rc());
  q.Bind(1, id);
  const int rc = q.Step();
  if (rc == SQLITE_DONE) return std::optional<ChangeRecord>();
  if (rc != SQLITE_ROW) return call.Fail("cannot read change " + id, rc);
  ChangeRecord r;
  std::string bad;
  if (!ReadChange(q, &r, &bad)) return Status::Error(Prefix(path_) + "change " + id + " has unknown state \"" + bad + "\"");
  return std::optional<ChangeRecord>(std::move(r));
}

Result<std::vector<ChangeRecord>> SqliteAuditStore::ListChanges() {
  const SqliteCall call{path_, db_, busy_timeout_};
  const std::string sql = "SELECT " + std::string(kChangeColumns) + " FROM changes ORDER BY seq";
  Stmt q(db_, sql.c_str());
  if (!q.prepared()) return call.Fail("cannot list changes", q.prepare_rc());
  std::vector<ChangeRecord> out;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    ChangeRecord r;
    std::string bad;
    if (!ReadChange(q, &r, &bad)) {
      return Status::Error(Prefix(path_) + "change " + r.id + " has unknown state \"" + bad + "\"");
    }
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return call.Fail("cannot list changes", rc);
  return out;
}

Result<int64_t> SqliteAuditStore::Append(const LogEntry& e) {
  const SqliteCall call{path_, db_, busy_timeout_};
  int64_t seq = 0;
  Status s = call.Transaction("cannot append to the log", [&]() -> Status {
    Stmt w(db_, "INSERT INTO log(time, change_id, action, outcome, detail, data_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!w.prepared()) return call.Fail("cannot append to the log", w.prepare_rc());
    int i = 1;
    for (const std::string* v : {&e.time, &e.change_id, &e.action, &e.outcome, &e.detail, &e.data_json}) {
      w.Bind(i++, *v);
    }
    const int r = w.Step();
    if (r != SQLITE_DONE) return call.Fail("cannot append to the log", r);
    seq = sqlite3_last_insert_rowid(db_);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return seq;
}

Result<std::vector<LogEntry>> SqliteAuditStore::Log(const std::string& change_id) {
  const SqliteCall call{path_, db_, busy_timeout_};
  Stmt q(db_, change_id.empty()
                  ? "SELECT seq, time, change_id, action, outcome, detail, data_json FROM log ORDER BY seq"
                  : "SELECT seq, time, change_id, action, outcome, detail, data_json FROM log WHERE change_id = ?1 "
                    "ORDER BY seq");
  if (!q.prepared()) return call.Fail("cannot read the log", q.prepare_rc());
  if (!change_id.empty()) q.Bind(1, change_id);
  std::vector<LogEntry> out;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    LogEntry e;
    e.seq = q.Int(0);
    int i = 1;
    for (std::string* v : {&e.time, &e.change_id, &e.action, &e.outcome, &e.detail, &e.data_json}) *v = q.Text(i++);
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return call.Fail("cannot read the log", rc);
  return out;
}

Result<std::string> AuditDbPathFor(const std::string& xdg_state_home, const std::string& home) {
  if (!xdg_state_home.empty() && xdg_state_home[0] == '/') return xdg_state_home + "/kubeon/audit.db";
  if (!home.empty()) return home + "/.local/state/kubeon/audit.db";
  return Status::Error("audit db: neither XDG_STATE_HOME nor HOME is set; give --audit-db PATH");
}

Result<std::string> DefaultAuditDbPath() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  const char* home = std::getenv("HOME");
  return AuditDbPathFor(xdg ? xdg : "", home ? home : "");
}

}  // namespace kubeon::audit
