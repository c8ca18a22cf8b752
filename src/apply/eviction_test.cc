#include "apply/eviction.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeNode;
using testing::FakePod;
using testing::StepFixture;

class EvictionTest : public StepFixture {
 protected:
  void SetUp() override {
    cluster().Put("/api/v1/nodes/a", FakeNode("a", 4));
    for (const char* p : {"p1", "p2", "p3"}) cluster().Put(std::string("/api/v1/namespaces/ml/pods/") + p, FakePod("ml", p, "a"));
    cluster().Put("/api/v1/namespaces/ml/pods/cpu", FakePod("ml", "cpu", "a", ""));
    cluster().Put("/api/v1/namespaces/ml/pods/other", FakePod("ml", "other", "b"));
  }
};

TEST_F(EvictionTest, OnlyTheNodesGpuPodsInRankOrder) {
  StepJournal& j = Journal();
  ASSERT_TRUE(EvictGpuPods(j, "a", {{"ml/p3", 0}, {"ml/p1", 1}}).ok());
  EXPECT_EQ(cluster().writes, (std::vector<std::string>{"POST /api/v1/namespaces/ml/pods/p3/eviction",
                                                         "POST /api/v1/namespaces/ml/pods/p1/eviction",
                                                         "POST /api/v1/namespaces/ml/pods/p2/eviction"}));
  EXPECT_TRUE(cluster().objects.count("/api/v1/namespaces/ml/pods/cpu"));
  EXPECT_TRUE(cluster().objects.count("/api/v1/namespaces/ml/pods/other"));
  auto left = GpuPods(j, "a");
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
}

TEST_F(EvictionTest, ADisruptionBudgetIsWaitedOutEveryRetryInterval) {
  cluster().pdb_refusals["ml/p1"] = 2;
  options_.eviction_retry_interval = std::chrono::seconds(5);
  StepJournal& j = Journal();
  const auto start = clock_.now;
  ASSERT_TRUE(EvictAndWait(j, cluster().At("/api/v1/namespaces/ml/pods/p1"), start + std::chrono::minutes(1)).ok());
  EXPECT_EQ(clock_.now - start, std::chrono::seconds(10));
  EXPECT_NE(progress_.back().find("refused for now"), std::string::npos) << progress_.back();
}

TEST_F(EvictionTest, ThrottlingIsRetriedAfterTheServersRetryAfter) {
  cluster().throttle_evictions = 1;
  options_.eviction_retry_interval = std::chrono::seconds(5);
  StepJournal& j = Journal();
  const auto start = clock_.now;
  ASSERT_TRUE(EvictAndWait(j, cluster().At("/api/v1/namespaces/ml/pods/p1"), start + std::chrono::minutes(1)).ok());
  EXPECT_EQ(clock_.now - start, std::chrono::seconds(2));  // Retry-After: 2, not the 5 s PDB interval
  bool said = false;
  for (const auto& line : progress_) said |= line.find("throttled by the API server") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(EvictionTest, ABudgetStillRefusingAtTheDeadlineIsAnError) {
  cluster().pdb_refusals["ml/p1"] = 100;
  options_.eviction_retry_interval = std::chrono::seconds(5);
  StepJournal& j = Journal();
  Status s = EvictAndWait(j, cluster().At("/api/v1/namespaces/ml/pods/p1"), clock_.now + std::chrono::seconds(12));
  EXPECT_EQ(s.code(), StatusCode::kDisruptionBudget) << s.message();
  EXPECT_NE(s.message().find("still refused at the deadline"), std::string::npos);
  EXPECT_TRUE(cluster().objects.count("/api/v1/namespaces/ml/pods/p1"));
}

TEST_F(EvictionTest, ATerminatingPodIsWaitedForNotEvictedAgain) {
  json& p = cluster().At("/api/v1/namespaces/ml/pods/p1");
  p["metadata"]["deletionTimestamp"] = "2026-12-07T10:00:00Z";
  StepJournal& j = Journal();
  Status s = EvictAndWait(j, p, clock_.now + std::chrono::minutes(1));
  // It never goes (the fake has no kubelet): the wait is its grace (5 s) plus the margin.
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "timed out after 65 s waiting for pod ml/p1 to be gone");
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(EvictionTest, APodReplacedUnderItsNameIsGone) {
  StepJournal& j = Journal();
  json p = cluster().At("/api/v1/namespaces/ml/pods/p1");
  cluster().on_write = [&](const std::string&, json&) {};
  ASSERT_TRUE(EvictAndWait(j, p, clock_.now + std::chrono::minutes(1)).ok());
  json again = FakePod("ml", "p1", "a");
  again["metadata"]["uid"] = "uid-new";
  cluster().Put("/api/v1/namespaces/ml/pods/p1", again);
  p["metadata"]["deletionTimestamp"] = "2026-12-07T10:00:00Z";
  EXPECT_TRUE(EvictAndWait(j, p, clock_.now + std::chrono::minutes(1)).ok());
}

}  // namespace
}  // namespace kubeon::apply
