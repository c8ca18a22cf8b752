#include "audit/kube_store.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "audit/audit_store_contract_test.h"
#include "audit/kube_sim_support.h"
#include "audit/test_fake_kube_api.h"

namespace kubeon::audit {
namespace {

using nlohmann::json;
using testing::AuditStoreContractTest;
using testing::FakeKubeApi;
using testing::J;
using testing::SampleChange;
using testing::SampleEntry;

// Stores over one in-memory API.
class FakeBackend : public testing::StoreBackend {
 public:
  std::unique_ptr<AuditStore> Open() override { return OpenKube(); }
  std::unique_ptr<KubeAuditStore> OpenKube(KubeAuditStore::Options o = {}) {
    kube::RestConfig config;
    config.server = "https://fake.test";
    config.token = "secret-token-value";
    clients_.push_back(std::make_unique<kube::KubeClient>(std::make_unique<FakeKubeApi>(state), config));
    return std::make_unique<KubeAuditStore>(*clients_.back(), o);
  }
  FakeKubeApi::State state;

 private:
  std::vector<std::unique_ptr<kube::KubeClient>> clients_;
};

// The contract tests' backend: stores over one kube-sim, each with its own client.
class KubeSimBackend : public testing::StoreBackend {
 public:
  static std::unique_ptr<testing::StoreBackend> Start(const std::string& binary) {
    auto sim = testing::KubeSimAudit::Start(binary);
    if (!sim) return nullptr;
    auto b = std::make_unique<KubeSimBackend>();
    b->sim_ = std::move(sim);
    return b;
  }
  std::unique_ptr<AuditStore> Open() override {
    clients_.push_back(sim_->Connect());
    if (!clients_.back()) return nullptr;
    return std::make_unique<KubeAuditStore>(*clients_.back(), KubeAuditStore::Options());
  }
  testing::KubeSimAudit& sim() { return *sim_; }

 private:
  std::unique_ptr<testing::KubeSimAudit> sim_;
  std::vector<std::unique_ptr<kube::KubeClient>> clients_;
};

std::vector<testing::ContractParam> Backends() {
  std::vector<testing::ContractParam> b = {
      {"FakeApi", [] { return std::unique_ptr<testing::StoreBackend>(new FakeBackend()); }}};
#ifdef KUBE_SIM_BINARY
  b.push_back({"KubeSim", [] { return KubeSimBackend::Start(KUBE_SIM_BINARY); }});
#endif
  return b;
}

INSTANTIATE_TEST_SUITE_P(Kube, AuditStoreContractTest, ::testing::ValuesIn(Backends()), testing::PrintContractParam);

const json& Object(FakeBackend& b, const std::string& id) {
  return b.state.objects[std::string(kGpuChangesPath) + "/" + id];
}

TEST(KubeAuditStoreTest, GpuChangeLayout) {
  FakeBackend b;
  auto store = b.OpenKube();
  ChangeRecord r = SampleChange("ab12cd34");
  r.undo_json = R"({"nodes":{}})";
  ASSERT_TRUE(store->PutChange(r, 0).ok());
  const json& o = Object(b, "ab12cd34");
  EXPECT_EQ(o["apiVersion"], "gpu.kubeon.io/v1");
  EXPECT_EQ(o["kind"], "GpuChange");
  EXPECT_EQ(o["metadata"]["labels"][kPolicyLabel], "gpu-sharing");
  EXPECT_FALSE(o["metadata"].contains("ownerReferences"));
  EXPECT_EQ(o["spec"]["policy"], "gpu-sharing");
  EXPECT_EQ(o["spec"]["contentHash"], r.content_hash);
  EXPECT_EQ(o["spec"]["createdAt"], r.created_at);
  EXPECT_EQ(o["spec"]["step"], J(r.step_json));
  EXPECT_EQ(o["status"]["state"], "proposed");
  EXPECT_EQ(o["status"]["revision"], 1);
  EXPECT_EQ(o["status"]["undo"], J(r.undo_json));
  EXPECT_EQ(o["status"]["observedGeneration"], 1);

  // A new step rewrites the spec (a new generation) and the status follows it.
  r.step_json = R"({"id":"ab12cd34","nodes":["gpu-b"]})";
  r.policy = "other";
  ASSERT_TRUE(store->PutChange(r, 1).ok());
  const json& o2 = Object(b, "ab12cd34");
  EXPECT_EQ(o2["metadata"]["generation"], 2);
  EXPECT_EQ(o2["status"]["observedGeneration"], 2);
  EXPECT_EQ(o2["metadata"]["labels"][kPolicyLabel], "other");
}

TEST(KubeAuditStoreTest, StatusConflictFromAnAppendIsRetriedButARevisionChangeIsNot) {
  FakeBackend b;
  auto store = b.OpenKube();
  ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
  ChangeRecord r = SampleChange("ab12cd34");
  r.state = ChangeState::kApproved;
  b.state.fail_next_status_puts = 2;  // e.g. log appends landing between read and write
  ASSERT_TRUE(store->PutChange(r, 1).ok());
  EXPECT_EQ((*store->GetChange("ab12cd34"))->revision, 2);
  b.state.fail_next_status_puts = 1000;  // never wins
  KubeAuditStore::Options o;
  o.max_attempts = 3;
  auto stubborn = b.OpenKube(o);
  Status s = stubborn->PutChange(r, 2);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "conflict: the cluster's GpuChange objects: change ab12cd34: gave up after 3 conflicting writes");
  EXPECT_EQ((*store->GetChange("ab12cd34"))->revision, 2);
}

TEST(KubeAuditStoreTest, HalfCreatedObjectReadsAsAbsentAndIsAdopted) {
  FakeBackend b;
  auto store = b.OpenKube();
  // A writer created the object and died before its status write.
  b.state.objects[std::string(kGpuChangesPath) + "/ab12cd34"] = {
      {"apiVersion", "gpu.kubeon.io/v1"},
      {"kind", "GpuChange"},
      {"metadata", {{"name", "ab12cd34"}, {"resourceVersion", "7"}, {"generation", 1}}},
      {"spec", {{"policy", "gpu-sharing"}}}};
  EXPECT_FALSE(store->GetChange("ab12cd34")->has_value());
  EXPECT_TRUE(store->ListChanges()->empty());
  ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
  auto got = store->GetChange("ab12cd34");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->revision, 1);
  EXPECT_EQ((*got)->content_hash, SampleChange("ab12cd34").content_hash);
}

TEST(KubeAuditStoreTest, LogIsCappedAndSummarised) {
  FakeBackend b;
  KubeAuditStore::Options o;
  o.max_log_entries = 3;
  auto store = b.OpenKube(o);
  ASSERT_TRUE(store->PutChange(SampleChange("ab12cd34"), 0).ok());
  for (const char* action : {"cordon", "evict", "evict", "label", "uncordon"}) {
    ASSERT_TRUE(store->Append(SampleEntry("ab12cd34", action)).ok());
  }
  const json& status = Object(b, "ab12cd34")["status"];
  ASSERT_EQ(status["log"].size(), 3u);
  EXPECT_EQ(status["logSummary"],
            json({{"entries", 2}, {"firstSeq", 1}, {"lastSeq", 2}, {"byAction", {{"cordon", 1}, {"evict", 1}}}}));
  auto log = store->Log("ab12cd34");
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 4u);
  EXPECT_EQ((*log)[0].action, kSummaryAction);
  EXPECT_EQ((*log)[0].seq, 2);
  EXPECT_EQ((*log)[0].detail, "2 older entries (seq 1..2) were summarised: cordon 1 evict 1");
  EXPECT_EQ((*log)[1].seq, 3);
  EXPECT_EQ((*log)[3].action, "uncordon");
  EXPECT_EQ(store->Log("")->size(), 4u);

  // The byte cap holds too: a few large entries push the oldest out.
  KubeAuditStore::Options small;
  small.max_log_bytes = 4096;
  auto bytes = b.OpenKube(small);
  LogEntry big = SampleEntry("", "run-start");
  big.detail = std::string(1500, 'x');
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(bytes->Append(big).ok());
  const json cm = b.state.objects["/api/v1/namespaces/kubeon-system/configmaps/kubeon-gpu-audit"];
  const json kept = json::parse(cm["data"]["log"].get<std::string>());
  EXPECT_LE(kept.dump().size(), 4096u);
  EXPECT_EQ(kept.size(), 2u);
  EXPECT_EQ(json::parse(cm["data"]["logSummary"].get<std::string>())["entries"], 3);
}

TEST(KubeAuditStoreTest, ErrorsNameTheStoreAndNeverTheToken) {
  FakeBackend b;
  auto store = b.OpenKube();
  ChangeRecord r = SampleChange("ab12cd34");
  r.step_json = "[1, 2]";
  Status s = store->PutChange(r, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "the cluster's GpuChange objects: step JSON of change ab12cd34 is not a JSON object");
  LogEntry e = SampleEntry("", "x");
  e.data_json = "not json";
  EXPECT_FALSE(store->Append(e).ok());

  // An API server that refuses everything.
  kube::RestConfig config;
  config.server = "https://127.0.0.1:1";  // nothing listens there
  config.token = "secret-token-value";
  kube::ClientOptions co;
  co.retry_deadline = std::chrono::milliseconds(0);
  auto client = kube::KubeClient::Connect(config, co);
  ASSERT_TRUE(client.ok());
  KubeAuditStore unreachable(**client, {});
  auto list = unreachable.ListChanges();
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().message().rfind("the cluster's GpuChange objects: cannot list changes: ", 0), 0u)
      << list.status().message();
  EXPECT_EQ(list.status().message().find("secret-token-value"), std::string::npos);
}

TEST(KubeAuditStoreTest, BindingComparesTheClusterNotTheUrl) {
  FakeBackend b;
  auto store = b.OpenKube();
  ASSERT_TRUE(store->BindCluster({"https://kubernetes.default.svc", "uid-a"}).ok());
  EXPECT_TRUE(store->BindCluster({"https://api.example:6443", "uid-a"}).ok());  // the CLI, from outside
  Status other = store->BindCluster({"https://api.example:6443", "uid-b"});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.message(),
            "the cluster's GpuChange objects belong to cluster https://kubernetes.default.svc (kube-system uid "
            "uid-a), not https://api.example:6443 (kube-system uid uid-b)");
}

#ifdef KUBE_SIM_BINARY
// Two controller replicas (two clients, two stores) on kube-sim.
class KubeStoreOnSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::KubeSimAudit::Start(KUBE_SIM_BINARY);
    if (!sim_) GTEST_SKIP() << "kube-sim audit store not available (deploy/crd-gpuchange.yaml or kubectl missing)";
    ca_ = sim_->Connect();
    cb_ = sim_->Connect();
    ASSERT_TRUE(ca_ && cb_);
    a_ = std::make_unique<KubeAuditStore>(*ca_, KubeAuditStore::Options());
    b_ = std::make_unique<KubeAuditStore>(*cb_, KubeAuditStore::Options());
  }
  std::unique_ptr<testing::KubeSimAudit> sim_;
  std::unique_ptr<kube::KubeClient> ca_, cb_;
  std::unique_ptr<KubeAuditStore> a_, b_;
};

TEST_F(KubeStoreOnSimTest, ReplicasRacingPutChangeOneWins) {
  ASSERT_TRUE(a_->PutChange(SampleChange("ab12cd34"), 0).ok());
  for (int64_t round = 1; round <= 5; ++round) {
    ChangeRecord ra = SampleChange("ab12cd34"), rb = SampleChange("ab12cd34");
    ra.reason = "a" + std::to_string(round);
    rb.reason = "b" + std::to_string(round);
    Status sa, sb;
    std::thread ta([&] { sa = a_->PutChange(ra, round); });
    std::thread tb([&] { sb = b_->PutChange(rb, round); });
    ta.join();
    tb.join();
    ASSERT_NE(sa.ok(), sb.ok()) << "round " << round << ": " << sa.message() << " / " << sb.message();
    const Status& lost = sa.ok() ? sb : sa;
    EXPECT_EQ(lost.message().rfind("conflict: the cluster's GpuChange objects: change ab12cd34", 0), 0u)
        << lost.message();
    auto got = b_->GetChange("ab12cd34");
    ASSERT_TRUE(got.ok() && got->has_value());
    EXPECT_EQ((*got)->revision, round + 1);
    EXPECT_EQ((*got)->reason, sa.ok() ? ra.reason : rb.reason);  // the winner's record, whole
  }
}

TEST_F(KubeStoreOnSimTest, ReplicasAppendingNumberUniquely) {
  ASSERT_TRUE(a_->PutChange(SampleChange("ab12cd34"), 0).ok());
  std::vector<int64_t> seqs_a, seqs_b;
  auto run = [](KubeAuditStore& s, std::vector<int64_t>& seqs, const std::string& change) {
    for (int i = 0; i < 10; ++i) {
      auto seq = s.Append(SampleEntry(i % 2 ? change : "", "step"));
      ASSERT_TRUE(seq.ok()) << seq.status().message();
      seqs.push_back(*seq);
    }
  };
  std::thread ta([&] { run(*a_, seqs_a, "ab12cd34"); });
  std::thread tb([&] { run(*b_, seqs_b, "ab12cd34"); });
  ta.join();
  tb.join();
  std::set<int64_t> all(seqs_a.begin(), seqs_a.end());
  all.insert(seqs_b.begin(), seqs_b.end());
  EXPECT_EQ(all.size(), 20u);  // unique
  EXPECT_TRUE(std::is_sorted(seqs_a.begin(), seqs_a.end()));
  EXPECT_TRUE(std::is_sorted(seqs_b.begin(), seqs_b.end()));
  auto log = a_->Log("");
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->size(), 20u);  // nothing lost
  for (size_t i = 1; i < log->size(); ++i) EXPECT_LT((*log)[i - 1].seq, (*log)[i].seq);
}

TEST_F(KubeStoreOnSimTest, LogCapAndKubectlView) {
  KubeAuditStore::Options o;
  o.max_log_entries = 5;
  KubeAuditStore capped(*ca_, o);
  ChangeRecord r = SampleChange("ab12cd34");
  r.state = ChangeState::kDone;
  ASSERT_TRUE(capped.PutChange(r, 0).ok());
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(capped.Append(SampleEntry("ab12cd34", i < 4 ? "cordon" : "evict")).ok());
  auto log = b_->Log("ab12cd34");  // another replica reads it back
  ASSERT_TRUE(log.ok());
  ASSERT_EQ(log->size(), 6u);
  EXPECT_EQ((*log)[0].action, kSummaryAction);
  EXPECT_EQ((*log)[0].detail, "7 older entries (seq 1..7) were summarised: cordon 4 evict 3");
  EXPECT_EQ((*log)[5].seq, 12);
  auto object = a_->GetObject("ab12cd34");
  ASSERT_TRUE(object.ok() && object->has_value());
  const json& o2 = **object;
  EXPECT_FALSE(o2["metadata"].contains("ownerReferences"));
  EXPECT_EQ(o2["status"]["logSummary"]["entries"], 7);

  auto [rc, out] = sim_->Kubectl("get gpuchanges -l gpu.kubeon.io/policy=gpu-sharing");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("ab12cd34"), std::string::npos) << out;
  EXPECT_NE(out.find("gpu-sharing"), std::string::npos) << out;
  EXPECT_NE(out.find("done"), std::string::npos) << out;
}
#endif

}  // namespace
}  // namespace kubeon::audit
