#include "apply/terminations.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeNode;
using testing::FakePod;
using testing::StepFixture;

const char* kOld = "/api/v1/namespaces/ml/pods/old";

// Node b's 2 GPUs are held by pod old, being deleted with a 30 s grace.
class TerminationsTest : public StepFixture {
 protected:
  void SetUp() override {
    cluster().Put("/api/v1/nodes/b", FakeNode("b", 2));
    json old = FakePod("ml", "old", "b", "nvidia.com/gpu", 2);
    old["metadata"]["deletionTimestamp"] = "2026-12-07T10:00:00Z";
    old["spec"]["terminationGracePeriodSeconds"] = 30;
    cluster().Put(kOld, old);
  }
  std::function<Status(const GpuLedger&)> Needs(int64_t n) {
    return [n](const GpuLedger& l) { return CheckNeeds(l, {{"nvidia.com/gpu", n, {"b"}, "freed by step 1"}}); };
  }
};

TEST_F(TerminationsTest, TheLedgerListsTerminatingPodsAndWhatTheyFreeOnceGone) {
  auto l = ReadGpuLedger(*client_);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->terminating.size(), 1u);
  EXPECT_EQ(l->terminating[0].name, "ml/old");
  EXPECT_EQ(l->terminating[0].grace_seconds, 30);
  EXPECT_EQ(l->Free("b", "nvidia.com/gpu"), 0);
  EXPECT_EQ(l->AfterTerminations().Free("b", "nvidia.com/gpu"), 2);
}

TEST_F(TerminationsTest, GpusStillHeldByTerminatingPodsAreWaitedFor) {
  int sleeps = 0;
  clock_.on_sleep = [&] {
    if (++sleeps == 5) cluster().objects.erase(kOld);  // the kubelet is done after 5 s
  };
  StepJournal& j = Journal();
  Status s = CheckCapacityAwaitingTerminations(j, Needs(2));
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(clock_.slept, std::chrono::seconds(5));
  EXPECT_EQ(LogLines(), (std::vector<std::string>{"await-terminations/intent", "await-terminations/ok"}));
  EXPECT_EQ(progress_.at(0), "5e1c0a77: waiting up to 90 s for 1 terminating pod(s) to free their GPUs: ml/old");
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(TerminationsTest, APodReplacedUnderItsNameCountsAsGone) {
  clock_.on_sleep = [&] {
    json again = FakePod("ml", "old", "c");
    again["metadata"]["uid"] = "uid-other";
    cluster().Put(kOld, again);
  };
  StepJournal& j = Journal();
  EXPECT_TRUE(CheckCapacityAwaitingTerminations(j, Needs(2)).ok());
}

TEST_F(TerminationsTest, NoWaitWhenItFitsOrWouldNotFitAnyway) {
  StepJournal& j = Journal();
  EXPECT_TRUE(CheckCapacityAwaitingTerminations(j, Needs(0)).ok());
  Status s = CheckCapacityAwaitingTerminations(j, Needs(3));  // 2 at most, even once it is gone
  EXPECT_EQ(s.message(), "capacity changed since the plan: the step needs 3 free nvidia.com/gpu (freed by step 1), "
                         "the cluster has 0");
  EXPECT_EQ(clock_.slept, std::chrono::milliseconds(0));
  EXPECT_TRUE(LogLines().empty());
}

TEST_F(TerminationsTest, APodThatNeverGoesIsNamedAtTheBound) {
  StepJournal& j = Journal();
  Status s = CheckCapacityAwaitingTerminations(j, Needs(2));
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message().rfind("pod ml/old is still terminating after 90 s", 0), 0u) << s.message();
  EXPECT_NE(s.message().find("the cluster has 0"), std::string::npos) << s.message();
  EXPECT_GE(clock_.slept, std::chrono::seconds(90));
}

}  // namespace
}  // namespace kubeon::apply
