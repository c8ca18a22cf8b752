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

#include "audit/audit_store_contract_test.h"

namespace kubeon::audit {
namespace {

using testing::AuditStoreContractTest;
using testing::SampleChange;

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

TEST(SqliteAuditStoreTest, ConflictsNameTheFile) {
  TempDir dir;
  auto store = MustOpen(dir.File("audit.db"));
  ASSERT_TRUE(store);
  ChangeRecord r = SampleChange("ab12cd34");
  ASSERT_TRUE(store->PutChange(r, 0).ok());
  ASSERT_TRUE(store->PutChange(r, 1).ok());
  Status stale = store->PutChange(r, 1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.message(), "conflict: audit db " + dir.File("audit.db") +
                                 ": change ab12cd34 is at revision 2, not 1 (another writer changed it)");
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

TEST(SqliteAuditStoreTest, ClusterMismatchNamesTheFile) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->BindCluster({"https://a.example:6443", "uid-a"}).ok());
  Status other = store->BindCluster({"https://b.example:6443", "uid-b"});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.message(), "audit log " + path +
                                 " belongs to cluster https://a.example:6443 (kube-system uid uid-a), not "
                                 "https://b.example:6443 (kube-system uid uid-b)");
  // The SQLite log is bound to the URL too (a kubeconfig names one server).
  EXPECT_FALSE(store->BindCluster({"https://other.example:6443", "uid-a"}).ok());
}
TEST(SqliteAuditStoreTest, FileIsInWalMode) {
  TempDir dir;
  const std::string path = dir.File("audit.db");
  {
    auto store = MustOpen(path);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
  }
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
  ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
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
  Status s = store->PutChange(SampleChange("ab12cd34"), 0);
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
  ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
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
  Status s = store->PutChange(SampleChange("ab12cd34"), 0);
  releaser.join();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE((*store->GetChange("ab12cd34")).has_value());
}

class SqliteBackend : public testing::StoreBackend {
 public:
  std::unique_ptr<AuditStore> Open() override { return MustOpen(dir_.File("audit.db")); }

 private:
  TempDir dir_;
};

INSTANTIATE_TEST_SUITE_P(Sqlite, AuditStoreContractTest,
                         ::testing::Values(testing::ContractParam{
                             "Sqlite", [] { return std::unique_ptr<testing::StoreBackend>(new SqliteBackend()); }}),
                         testing::PrintContractParam);

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
