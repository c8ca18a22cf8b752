#include "apply/step_wait.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using testing::StepFixture;

class StepWaitTest : public StepFixture {};

TEST_F(StepWaitTest, PollChecksEveryIntervalUntilDone) {
  StepJournal& j = Journal();
  int checks = 0;
  Status s = Poll(j, "x", std::chrono::seconds(60), [&]() -> Result<bool> { return ++checks == 3; });
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(checks, 3);
  EXPECT_EQ(clock_.slept, std::chrono::seconds(2));
}

TEST_F(StepWaitTest, PollTimesOutNamingWhatItWaitedFor) {
  StepJournal& j = Journal();
  Status s = Poll(j, "the rollout of Deployment ml/a", std::chrono::seconds(10), []() -> Result<bool> { return false; });
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "timed out after 10 s waiting for the rollout of Deployment ml/a");
}

TEST_F(StepWaitTest, PollGivesUpWithTheChecksError) {
  StepJournal& j = Journal();
  Status s = Poll(j, "x", std::chrono::seconds(10),
                  []() -> Result<bool> { return Status::Error("mig-manager failed", StatusCode::kAborted); });
  EXPECT_EQ(s.message(), "mig-manager failed");
}

TEST_F(StepWaitTest, TheHardDeadlineStopsTheForwardSequenceButNotARollback) {
  options_.hard_deadline = clock_.now + std::chrono::seconds(5);
  StepJournal& j = Journal();
  EXPECT_TRUE(CheckDeadline(j, "evicting").ok());
  Status s = Poll(j, "x", std::chrono::minutes(10), []() -> Result<bool> { return false; });
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  EXPECT_EQ(s.message(), "hard deadline passed while waiting for x");
  j.StartRollingBack();
  EXPECT_TRUE(CheckDeadline(j, "evicting").ok());
}

}  // namespace
}  // namespace kubeon::apply
