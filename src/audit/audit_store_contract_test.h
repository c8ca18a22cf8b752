// Test-only: the AuditStore contract (audit_store.h) as one value-
// parameterised GoogleTest suite, run against every implementation:
// sqlite_store_test instantiates it over a SQLite file, kube_store_test over
// an in-memory API (test_fake_kube_api.h) and over kube-sim.
//
// A backend holds one store's data; each Open() returns a new store instance
// on that data (a reopened file, another controller replica).  A backend
// factory returning nullptr skips the test (e.g. kube-sim not built).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "audit/audit_store.h"

namespace kubeon::audit::testing {

class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  virtual std::unique_ptr<AuditStore> Open() = 0;
};

struct ContractParam {
  std::string name;
  std::function<std::unique_ptr<StoreBackend>()> make;
};

inline std::string PrintContractParam(const ::testing::TestParamInfo<ContractParam>& info) { return info.param.name; }

// 64 lowercase hex digits derived from `text` (a content hash as the CRD's pattern wants).
inline std::string HexHash(const std::string& text) {
  static const char* k = "0123456789abcdef";
  std::string out;
  uint64_t h = 1469598103934665603ull;
  while (out.size() < 64) {
    for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h = h * 1099511628211ull + out.size();
    out += k[h >> 60];
  }
  return out;
}

inline ChangeRecord SampleChange(const std::string& id) {
  ChangeRecord r;
  r.id = id;
  r.policy = "gpu-sharing";
  r.content_hash = HexHash(id);
  r.state = ChangeState::kProposed;
  r.step_json = R"({"id":")" + id + R"(","nodes":["gpu-a"]})";
  r.created_at = "2026-12-03T10:00:00Z";
  r.updated_at = "2026-12-03T10:00:00Z";
  return r;
}

inline LogEntry SampleEntry(const std::string& change, const std::string& action) {
  LogEntry e;
  e.time = "2026-12-03T10:00:00Z";
  e.change_id = change;
  e.action = action;
  e.outcome = "intent";
  e.detail = "node gpu-a";
  e.data_json = R"({"node":"gpu-a"})";
  return e;
}

inline nlohmann::json J(const std::string& text) { return nlohmann::json::parse(text, nullptr, false); }

class AuditStoreContractTest : public ::testing::TestWithParam<ContractParam> {
 protected:
  void SetUp() override {
    backend_ = GetParam().make();
    if (!backend_) GTEST_SKIP() << GetParam().name << " backend not available";
  }
  std::unique_ptr<AuditStore> Open() {
    auto s = backend_->Open();
    EXPECT_TRUE(s) << "cannot open a " << GetParam().name << " store";
    return s;
  }
  std::unique_ptr<StoreBackend> backend_;
};

TEST_P(AuditStoreContractTest, ChangesRoundTripEveryField) {
  auto store = Open();
  ASSERT_TRUE(store);
  ChangeRecord r = SampleChange("ab12cd34");
  r.state = ChangeState::kRolledBack;
  r.undo_json = R"({"nodes":{"gpu-a":{"unschedulable":false}}})";
  r.approved_by = "alice";
  r.approved_at = "2026-12-03T10:05:00Z";
  r.approval_expires_at = "2026-12-04T10:05:00Z";
  r.approved_hash = HexHash("approved");
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
  EXPECT_EQ(J(g.step_json), J(r.step_json));
  EXPECT_EQ(J(g.undo_json), J(r.undo_json));
  EXPECT_EQ(g.created_at, r.created_at);
  EXPECT_EQ(g.updated_at, r.updated_at);
  EXPECT_EQ(g.approved_by, "alice");
  EXPECT_EQ(g.approved_at, r.approved_at);
  EXPECT_EQ(g.approval_expires_at, r.approval_expires_at);
  EXPECT_EQ(g.approved_hash, HexHash("approved"));
  EXPECT_EQ(g.rejected_by, "bob");
  EXPECT_EQ(g.reason, r.reason);
  EXPECT_EQ(g.revision, 1);

  auto none = store->GetChange("00000000");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_P(AuditStoreContractTest, ListKeepsInsertionOrderAcrossUpdates) {
  auto store = Open();
  ASSERT_TRUE(store);
  for (const char* id : {"zz000001", "aa000002", "mm000003"}) ASSERT_TRUE(store->PutChange(SampleChange(id), 0).ok());
  ChangeRecord first = SampleChange("zz000001");
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

TEST_P(AuditStoreContractTest, CompareAndSetOnRevision) {
  auto store = Open();
  ASSERT_TRUE(store);
  ChangeRecord r = SampleChange("ab12cd34");
  ASSERT_TRUE(store->PutChange(r, 0).ok());

  Status again = store->PutChange(r, 0);  // must not exist yet
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.message().rfind("conflict:", 0), 0u) << again.message();
  EXPECT_NE(again.message().find("already exists"), std::string::npos) << again.message();

  Status missing = store->PutChange(SampleChange("99999999"), 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message().rfind("conflict:", 0), 0u) << missing.message();
  EXPECT_FALSE(store->GetChange("99999999")->has_value());

  r.state = ChangeState::kApproved;
  ASSERT_TRUE(store->PutChange(r, 1).ok());
  r.state = ChangeState::kRejected;
  r.step_json = R"({"id":"ab12cd34","nodes":["gpu-b"]})";
  Status stale = store->PutChange(r, 1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.message().rfind("conflict:", 0), 0u) << stale.message();
  EXPECT_NE(stale.message().find("ab12cd34 is at revision 2, not 1"), std::string::npos) << stale.message();
  auto got = store->GetChange("ab12cd34");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->state, ChangeState::kApproved);  // the stale write changed nothing
  EXPECT_EQ(J((*got)->step_json), J(SampleChange("ab12cd34").step_json));
  EXPECT_EQ((*got)->revision, 2);
  ASSERT_TRUE(store->PutChange(r, 2).ok());
  got = store->GetChange("ab12cd34");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->revision, 3);
  EXPECT_EQ(J((*got)->step_json), J(r.step_json));  // a changed step is stored
}

TEST_P(AuditStoreContractTest, LogIsNumberedAndFilteredByChange) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());  // ef56ab78 has no record
  auto s1 = store->Append(SampleEntry("", "run-start"));
  auto s2 = store->Append(SampleEntry("ab12cd34", "cordon"));
  auto s3 = store->Append(SampleEntry("ef56ab78", "cordon"));
  auto s4 = store->Append(SampleEntry("ab12cd34", "evict"));
  ASSERT_TRUE(s1.ok() && s2.ok() && s3.ok() && s4.ok());
  EXPECT_EQ(*s1, 1);
  EXPECT_EQ(*s2, 2);
  EXPECT_EQ(*s3, 3);
  EXPECT_EQ(*s4, 4);
  auto all = store->Log("");
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].action, "run-start");
  EXPECT_EQ((*all)[0].change_id, "");
  EXPECT_EQ((*all)[2].change_id, "ef56ab78");
  EXPECT_EQ(J((*all)[3].data_json), J(R"({"node":"gpu-a"})"));
  EXPECT_EQ((*all)[3].detail, "node gpu-a");
  EXPECT_EQ((*all)[3].outcome, "intent");
  EXPECT_EQ((*all)[3].time, "2026-12-03T10:00:00Z");
  auto one = store->Log("ab12cd34");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 2u);
  EXPECT_EQ((*one)[0].seq, 2);
  EXPECT_EQ((*one)[1].seq, 4);
  EXPECT_EQ((*one)[1].action, "evict");
  EXPECT_EQ((*one)[1].change_id, "ab12cd34");
  auto orphan = store->Log("ef56ab78");
  ASSERT_TRUE(orphan.ok());
  ASSERT_EQ(orphan->size(), 1u);
  EXPECT_EQ((*orphan)[0].seq, 3);
  // Appending does not change the record's revision (no PutChange conflict).
  ChangeRecord r = SampleChange("ab12cd34");
  r.state = ChangeState::kApproved;
  EXPECT_TRUE(store->PutChange(r, 1).ok());
  EXPECT_EQ(store->Log("ab12cd34")->size(), 2u);  // PutChange keeps the log
}

TEST_P(AuditStoreContractTest, ClusterBindingRefusesAnotherCluster) {
  auto store = Open();
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
  for (const char* part : {"https://a.example:6443", "uid-a", "https://b.example:6443", "uid-b"}) {
    EXPECT_NE(other.message().find(part), std::string::npos) << other.message();
  }
  // Same server, another kube-system namespace (a recreated cluster): refused too.
  EXPECT_FALSE(store->BindCluster({"https://a.example:6443", "uid-other"}).ok());
  auto got = Open()->Cluster();  // and another instance sees the binding
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, a);
}

TEST_P(AuditStoreContractTest, EverythingSurvivesReopen) {
  {
    auto store = Open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->BindCluster({"https://a", "uid-a"}).ok());
    ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
    ASSERT_TRUE(store->Append(SampleEntry("ab12cd34", "cordon")).ok());
  }
  auto store = Open();
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
  ASSERT_TRUE(seq.ok()) << seq.status().message();
  EXPECT_EQ(*seq, 2);  // numbering continues
  auto log = store->Log("");
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 2u);
  EXPECT_EQ((*log)[0].action, "cordon");
  EXPECT_EQ((*log)[1].action, "uncordon");
}

TEST_P(AuditStoreContractTest, TwoInstancesCompareAndSetCleanly) {
  auto a = Open();
  auto b = Open();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(a->PutChange(SampleChange("ab12cd34"), 0).ok());
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
  // Numbers from two instances never collide.
  auto s1 = a->Append(SampleEntry("ab12cd34", "cordon"));
  auto s2 = b->Append(SampleEntry("ab12cd34", "evict"));
  auto s3 = a->Append(SampleEntry("", "run-end"));
  ASSERT_TRUE(s1.ok() && s2.ok() && s3.ok());
  EXPECT_LT(*s1, *s2);
  EXPECT_LT(*s2, *s3);
}

}  // namespace kubeon::audit::testing
