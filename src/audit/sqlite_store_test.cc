#include "audit/sqlite_store.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace kubeon::audit {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kubeon-audit-XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

std::unique_ptr<AuditStore> MustOpen(const std::string& path, SqliteAuditStore::Options o = {}) {
  auto s = SqliteAuditStore::Open(path, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : nullptr;
}

ChangeRecord Sample(const std::string& id) {
  ChangeRecord r;
  r.id = id;
  r.policy = "gpu-sharing";
  r.content_hash = id + "ffffeeeedddd";
  r.state = ChangeState::kProposed;
  r.step_json = R"({"id":")" + id + R"(","nodes":["gpu-a"]})";
  r.created_at = "2026-12-03T10:00:00Z";
  r.updated_at = "2026-12-03T10:00:00Z";
  return r;
}

TEST(SqliteAuditStoreTest, ChangesRoundTripEveryField) {
  TempDir dir;
  auto store = MustOpen(dir.File("audit.db"));
  ASSERT_TRUE(store);
  ChangeRecord r = Sample("ab12cd34");
  r.state = ChangeState::kRolledBack;
  r.undo_json = R"({"nodes":{"gpu-a":{"unschedulable":false}}})";
  r.approved_by = "alice";
  r.approved_at = "2026-12-03T10:05:00Z";
  r.approval_expires_at = "2026-12-04T10:05:00Z";
  r.approved_hash = "abc";
  r.rejected_by = "bob";
  r.reason = "with \"quotes\", 'single' and ünïcode\nnewline";
  ASSERT_TRUE(store->PutChange(r, 0).ok());
  auto got = store->GetChange("ab12cd34");
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_TRUE(got->has_value());
  const ChangeRecord& g = **got;
  EXPECT_EQ(g.id, r.id);
  EXPECT_EQ(g.policy, r.policy);
  EXPECT_EQ(g.content_hash, r.content_hash);
  EXPECT_EQ(g.state, ChangeState::kRolledBack);
  EXPECT_EQ(g.step_json, r.step_json);
  EXPECT_EQ(g.undo_json, r.undo_json);
  EXPECT_EQ(g.created_at, r.created_at);
  EXPECT_EQ(g.updated_at, r.updated_at);
  EXPECT_EQ(g.approved_by, "alice");
  EXPECT_EQ(g.approved_at, r.approved_at);
  EXPECT_EQ(g.approval_expires_at, r.approval_expires_at);
  EXPECT_EQ(g.approved_hash, "abc");
  EXPECT_EQ(g.rejected_by, "bob");
  EXPECT_EQ(g.reason, r.reason);
  EXPECT_EQ(g.revision, 1);

  auto none = store->GetChange("00000000");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(SqliteAuditStoreTest, ListKeepsInsertionOrderAcrossUpdates) {
  TempDir dir;
  auto store = MustOpen(dir.File("audit.db"));
  ASSERT_TRUE(store);
  for (const char* id : {"zz000001", "aa000002", "mm000003"}) ASSERT_TRUE(store->PutChange(Sample(id), 0).ok());
  ChangeRecord first = Sample("zz000001");
  first.state = ChangeState::kApproved;
  ASSERT_TRUE(store->PutChange(first, 1).ok());
  auto all = store->ListChanges();
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].id, "zz000001");
  EXPECT_EQ((*all)[0].state, ChangeState::kApproved);
  EXPECT_EQ((*all)[0].revision, 2);
  EXPECT_EQ((*all)[1].id, "aa000002");
  EXPECT_EQ((*all)[2].id, "mm000003");
}

TEST(SqliteAuditStoreTest, CompareAndSetOnRevision) {
  TempDir dir;
  auto store = MustOpen(dir.File("audit.db"));
  ASSERT_TRUE(store);
  ChangeRecord r = Sample("ab12cd34");
  ASSERT_TRUE(store->PutChange(r, 0).ok());

  Status again = store->PutChange(r, 0);  // must not exist yet
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.message().rfind("conflict:", 0), 0u) << again.message();
  EXPECT_NE(again.message().find("already exists"), std::string::npos) << again.message();

  Status missing = store->PutChange(Sample("99999999"), 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message().rfind("conflict:", 0), 0u) << missing.message();

  r.state = ChangeState::kApproved;
  ASSERT_TRUE(store->PutChange(r, 1).ok());
  r.state = ChangeState::kRejected;
  Status stale = store->PutChange(r, 1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.message(), "conflict: audit db " + dir.File("audit.db") +
                                 ": change ab12cd34 is at revision 2, not 1 (another writer changed it)");
  auto got = store->GetChange("ab12cd34");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->state, ChangeState::kApproved);  // the stale write changed nothing
  EXPECT_EQ((*got)->revision, 2);
  ASSERT_TRUE(store->PutChange(r, 2).ok());
  EXPECT_EQ((*store->GetChange("ab12cd34"))->revision, 3);
}

TEST(SqliteAuditStoreTest, LogIsNumberedAndFilteredByChange) {
  TempDir dir;
  auto store = MustOpen(dir.File("audit.db"));
  ASSERT_TRUE(store);
  auto entry = [](const std::string& change, const std::string& action) {
    LogEntry e;
    e.time = "2026-12-03T10:00:00Z";
    e.change_id = change;
    e.action = action;
    e.outcome = "intent";
    e.detail = "node gpu-a";
    e.data_json = R"({"node":"gpu-a"})";
    return e;
  };
  auto s1 = store->Append(entry("", "run-start"));
  auto s2 = store->Append(entry("ab12cd34", "cordon"));
  auto s3 = store->Append(entry("ef56ab78", "cordon"));
  auto s4 = store->Append(entry("ab12cd34", "evict"));
  ASSERT_TRUE(s1.ok() && s2.ok() && s3.ok() && s4.ok());
  EXPECT_EQ(*s1, 1);
  EXPECT_EQ(*s2, 2);
  EXPECT_EQ(*s3, 3);
  EXPECT_EQ(*s4, 4);
  auto all = store->Log("");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].action, "run-start");
  EXPECT_EQ((*all)[3].data_json, R"({"node":"gpu-a"})");
  auto one = store->Log("ab12cd34");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 2u);
  EXPECT_EQ((*one)[0].seq, 2);
  EXPECT_EQ((*one)[1].seq, 4);
  EXPECT_EQ((*one)[1].action, "evict");
}

TEST(SqliteAuditStoreTest, LogRefusesChangesBehindTheStoresBack) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  {
    auto store = MustOpen(path);
    ASSERT_TRUE(store);
    LogEntry e;
    e.action = "cordon";
    ASSERT_TRUE(store->Append(e).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(db, "UPDATE log SET action = 'x'", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(db, "DELETE FROM log", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  auto log = store->Log("");
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].action, "cordon");
}

TEST(SqliteAuditStoreTest, ClusterBindingRefusesAnotherCluster) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  auto none = store->Cluster();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  const ClusterIdentity a{"https://a.example:6443", "uid-a"};
  const ClusterIdentity b{"https://b.example:6443", "uid-b"};
  ASSERT_TRUE(store->BindCluster(a).ok());
  ASSERT_TRUE(store->BindCluster(a).ok());  // same cluster: fine
  Status other = store->BindCluster(b);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.message(), "audit log " + path +
                                 " belongs to cluster https://a.example:6443 (kube-system uid uid-a), not "
                                 "https://b.example:6443 (kube-system uid uid-b)");
  // Same server, another kube-system namespace (a recreated cluster): refused too.
  EXPECT_FALSE(store->BindCluster({"https://a.example:6443", "uid-other"}).ok());
  auto got = store->Cluster();
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, a);
}

TEST(SqliteAuditStoreTest, EverythingSurvivesReopen) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  {
    auto store = MustOpen(path);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->BindCluster({"https://a", "uid-a"}).ok());
    ASSERT_TRUE(store->PutChange(Sample("ab12cd34"), 0).ok());
    LogEntry e;
    e.change_id = "ab12cd34";
    e.action = "cordon";
    ASSERT_TRUE(store->Append(e).ok());
  }
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  auto cluster = store->Cluster();
  ASSERT_TRUE(cluster.ok() && cluster->has_value());
  EXPECT_EQ((*cluster)->kube_system_uid, "uid-a");
  auto r = store->GetChange("ab12cd34");
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->revision, 1);
  LogEntry e;
  e.action = "uncordon";
  auto seq = store->Append(e);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 2);  // numbering continues

  // The file is in WAL mode (persistent), so each commit is a WAL append.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(SqliteAuditStoreTest, CreatesPrivateDirectoriesAndFile) {
  TempDir dir;
  const std::string path = dir.File("state/kubeon/audit.db");
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->PutChange(Sample("ab12cd34"), 0).ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  for (const char* d : {"state", "state/kubeon"}) {
    ASSERT_EQ(::stat(dir.File(d).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << d;
  }
  ASSERT_EQ(::stat((path + "-wal").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(SqliteAuditStoreTest, MissingFileWithoutCreateIsAnErrorAndCreatesNothing) {
  TempDir dir;
  const std::string path = dir.File("sub/audit.db");
  SqliteAuditStore::Options o;
  o.create_if_missing = false;
  auto s = SqliteAuditStore::Open(path, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message().rfind("audit db " + path + ": does not exist", 0), 0u) << s.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir.File("sub")));
}

TEST(SqliteAuditStoreTest, FileThatIsNotADatabaseIsRefusedUntouched) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  const std::string text(4096, 'x');
  std::ofstream(path, std::ios::binary) << "this is not SQLite\n" << text;
  auto s = SqliteAuditStore::Open(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "audit db " + path + ": cannot read: file is not a database");
  EXPECT_EQ(ReadAll(path), "this is not SQLite\n" + text);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST(SqliteAuditStoreTest, OtherSqliteDatabaseIsRefused) {
  TempDir dir;
  const std::string path = dir.File("other.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto s = SqliteAuditStore::Open(path);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("not a kubeon audit log"), std::string::npos) << s.status().message();
}

TEST(SqliteAuditStoreTest, NewerSchemaIsRefused) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  { ASSERT_TRUE(MustOpen(path)); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE schema_version SET version = 7", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto s = SqliteAuditStore::Open(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "audit db " + path + ": schema version 7 is newer than this kubeon-gpu supports (1); use a newer kubeon-gpu");
}

TEST(SqliteAuditStoreTest, UnopenablePathsNameThePathAndTheReason) {
  TempDir dir;
  auto as_dir = SqliteAuditStore::Open(dir.File(""));
  ASSERT_FALSE(as_dir.ok());
  EXPECT_NE(as_dir.status().message().find("is a directory"), std::string::npos) << as_dir.status().message();

  std::ofstream(dir.File("plain")) << "x";
  const std::string under_file = dir.File("plain/audit.db");
  auto s = SqliteAuditStore::Open(under_file);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "audit db " + under_file + ": cannot open: Not a directory");
  EXPECT_EQ(ReadAll(dir.File("plain")), "x");
}

TEST(SqliteAuditStoreTest, TwoHandlesCompareAndSetCleanly) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  auto a = MustOpen(path);
  auto b = MustOpen(path);
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->PutChange(Sample("ab12cd34"), 0).ok());
  // b sees a's write and both start from revision 1; only one wins.
  auto seen = b->GetChange("ab12cd34");
  ASSERT_TRUE(seen.ok() && seen->has_value());
  ChangeRecord ra = **seen, rb = **seen;
  ra.state = ChangeState::kApproved;
  rb.state = ChangeState::kRejected;
  ASSERT_TRUE(a->PutChange(ra, 1).ok());
  Status lost = b->PutChange(rb, 1);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.message().rfind("conflict:", 0), 0u) << lost.message();
  EXPECT_EQ((*b->GetChange("ab12cd34"))->state, ChangeState::kApproved);
}

// A raw connection holding the write lock stands for another process mid-write.
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) {
    EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  ~WriteLock() {
    Release();
    sqlite3_close(db_);
  }
  void Release() {
    if (held_) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    held_ = false;
  }

 private:
  sqlite3* db_ = nullptr;
  bool held_ = true;
};

TEST(SqliteAuditStoreTest, LockedDatabaseFailsCleanlyAfterTheBusyTimeout) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  SqliteAuditStore::Options o;
  o.busy_timeout = std::chrono::milliseconds(50);
  auto store = MustOpen(path, o);
  ASSERT_TRUE(store);
  WriteLock lock(path);
  Status s = store->PutChange(Sample("ab12cd34"), 0);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("audit db " + path + ": cannot record change ab12cd34: the database is locked", 0), 0u)
      << s.message();
  LogEntry e;
  EXPECT_FALSE(store->Append(e).ok());
  lock.Release();
  auto r = store->GetChange("ab12cd34");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());  // nothing was written
  auto log = store->Log("");
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(log->empty());
  ASSERT_TRUE(store->PutChange(Sample("ab12cd34"), 0).ok());
}

TEST(SqliteAuditStoreTest, SecondWriterWaitsForTheFirst) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  SqliteAuditStore::Options o;
  o.busy_timeout = std::chrono::milliseconds(60000);  // generous: the lock is released long before
  auto store = MustOpen(path, o);
  ASSERT_TRUE(store);
  auto lock = std::make_unique<WriteLock>(path);
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    lock->Release();
  });
  Status s = store->PutChange(Sample("ab12cd34"), 0);
  releaser.join();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE((*store->GetChange("ab12cd34")).has_value());
}

TEST(AuditDbPathTest, XdgStateHomeElseHome) {
  EXPECT_EQ(*AuditDbPathFor("/x/state", "/home/u"), "/x/state/kubeon/audit.db");
  EXPECT_EQ(*AuditDbPathFor("", "/home/u"), "/home/u/.local/state/kubeon/audit.db");
  EXPECT_EQ(*AuditDbPathFor("relative/state", "/home/u"), "/home/u/.local/state/kubeon/audit.db");
  auto none = AuditDbPathFor("", "");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("--audit-db"), std::string::npos);
}

}  // namespace
}  // namespace kubeon::audit
