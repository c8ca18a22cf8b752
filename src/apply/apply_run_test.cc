// ApplyPlan's bookkeeping on a real SQLite audit log, with a recording step
// runner in place of the cluster: what is recorded, what runs, in which
// order, and what stops the run.
#include "apply/apply_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "apply/rfc3339.h"
#include "audit/sqlite_store.h"

namespace kubeon::apply {
namespace {

using audit::ChangeState;

class ApplyRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("apply_run_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    auto s = audit::SqliteAuditStore::Open((dir_ / "audit.db").string());
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s.value());
    auto w = policy::Window::Parse("Sat 02:00-06:00 UTC");
    ASSERT_TRUE(w.ok());
    policy_.name = "gpu-sharing";
    policy_.window = *w;
    plan_.policy_name = "gpu-sharing";
    for (int i = 1; i <= 3; ++i) {
      plan::ScheduleStep s;
      s.index = i;
      s.content_hash = std::string(8, static_cast<char>('a' + i)) + std::string(56, '0');
      s.id = s.content_hash.substr(0, 8);
      s.method = "mig";
      s.nodes = {"gpu-" + std::to_string(i)};
      s.gpus_freed = i;
      s.estimated_seconds = 600;
      plan_.schedule.steps.push_back(s);
    }
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  ApplyReport Run(policy::Mode mode, const std::string& now, bool dry_run = false) {
    ApplyOptions o;
    o.mode = mode;
    const auto t = ParseTime(now).value();
    o.now = [t] { return t; };
    o.dry_run = dry_run;
    return ApplyPlan(plan_, policy_, dry_run ? nullptr : store_.get(), o, [this](const plan::ScheduleStep& s) {
      ran_.push_back(s.id);
      StepResult r;
      if (s.id == fail_id_) {
        r.kind = StepResultKind::kRolledBack;
        r.message = "eviction of ml/a-0 blocked by its PodDisruptionBudget past the deadline; rolled back";
      }
      return r;
    });
  }

  ChangeState State(const std::string& id) {
    auto r = store_->GetChange(id);
    EXPECT_TRUE(r.ok() && r->has_value()) << id;
    return r.ok() && r->has_value() ? (*r)->state : ChangeState::kExpired;
  }

  void Approve(const std::string& id, const std::string& until = "2026-12-06T00:00:00Z") {
    auto r = store_->GetChange(id);
    ASSERT_TRUE(r.ok() && r->has_value());
    audit::ChangeRecord c = **r;
    c.state = ChangeState::kApproved;
    c.approved_by = "alice";
    c.approved_hash = c.content_hash;
    c.approval_expires_at = until;
    ASSERT_TRUE(store_->PutChange(c, c.revision).ok());
  }

  std::filesystem::path dir_;
  std::unique_ptr<audit::AuditStore> store_;
  policy::GpuPolicy policy_;
  plan::Plan plan_;
  std::vector<std::string> ran_;
  std::string fail_id_;
};

const char* kOpen = "2026-12-05T03:00:00Z";    // Saturday, inside the window
const char* kClosed = "2026-12-05T07:00:00Z";  // Saturday, after it

TEST_F(ApplyRunTest, ProposalRecordsEveryStepAndRunsNone) {
  ApplyReport r = Run(policy::Mode::kProposal, kOpen);
  EXPECT_TRUE(ran_.empty());
  ASSERT_EQ(r.steps.size(), 3u);
  for (const auto& s : r.steps) EXPECT_EQ(s.outcome, "proposed");
  for (const auto& s : plan_.schedule.steps) EXPECT_EQ(State(s.id), ChangeState::kProposed);
  EXPECT_EQ(ApplyExitCode({r}), 0);
  auto log = store_->Log("");
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->size(), 3u);  // one "propose" entry per step
}

TEST_F(ApplyRunTest, AutoRunsInOrderInsideTheWindowAndIsIdempotent) {
  ApplyReport closed = Run(policy::Mode::kAuto, kClosed);
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(closed.steps[0].outcome, "waiting-window");
  EXPECT_EQ(closed.steps[1].outcome, "not-started");
  EXPECT_EQ(ApplyExitCode({closed}), 3);

  ApplyReport open = Run(policy::Mode::kAuto, kOpen);
  EXPECT_EQ(ran_, (std::vector<std::string>{"bbbbbbbb", "cccccccc", "dddddddd"}));
  for (const auto& s : plan_.schedule.steps) EXPECT_EQ(State(s.id), ChangeState::kDone);
  EXPECT_EQ(ApplyExitCode({open}), 0);

  ran_.clear();
  ApplyReport again = Run(policy::Mode::kAuto, kOpen);
  EXPECT_TRUE(ran_.empty());
  for (const auto& s : again.steps) EXPECT_EQ(s.outcome, "already-done");
  EXPECT_EQ(ApplyExitCode({again}), 0);
}

TEST_F(ApplyRunTest, ApproveRunsOnlyApprovedStepsAndStopsAtTheFirstWaitingOne) {
  Run(policy::Mode::kProposal, kOpen);
  Approve("bbbbbbbb");
  Approve("dddddddd");  // step 3 approved, but step 2 is not: step 3 waits for it
  ApplyReport r = Run(policy::Mode::kApprove, kOpen);
  EXPECT_EQ(ran_, std::vector<std::string>{"bbbbbbbb"});
  EXPECT_EQ(r.steps[1].outcome, "waiting-approval");
  EXPECT_NE(r.steps[1].why.find("kubeon-gpu approve cccccccc"), std::string::npos);
  EXPECT_EQ(r.steps[2].outcome, "not-started");
  EXPECT_EQ(State("dddddddd"), ChangeState::kApproved);
  EXPECT_EQ(ApplyExitCode({r}), 3);
}

TEST_F(ApplyRunTest, AWaitingStepHoldsBackOnlyItsOwnPool) {
  plan_.schedule.steps[0].gpu_model = "A100-40GB";
  plan_.schedule.steps[1].gpu_model = "A100-40GB";
  plan_.schedule.steps[2].gpu_model = "H100-80GB";
  plan_.schedule.steps[0].flags.push_back("1 pod(s) without a PodDisruptionBudget wait Pending");
  ApplyReport r = Run(policy::Mode::kAuto, kOpen);
  EXPECT_EQ(r.steps[0].outcome, "waiting-approval");
  EXPECT_EQ(r.steps[1].outcome, "not-started");
  EXPECT_EQ(r.steps[2].outcome, "done");
  EXPECT_EQ(ran_, std::vector<std::string>{"dddddddd"});
}

TEST_F(ApplyRunTest, ExpiredApprovalsAndStepsThatLeftThePlan) {
  Run(policy::Mode::kProposal, kOpen);
  Approve("bbbbbbbb", "2026-12-05T02:30:00Z");  // TTL over by 03:00
  Approve("cccccccc");
  plan_.schedule.steps.erase(plan_.schedule.steps.begin() + 1);  // step cccccccc left the plan
  ApplyReport r = Run(policy::Mode::kApprove, kOpen);
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(r.expired, std::vector<std::string>{"cccccccc"});
  EXPECT_EQ(State("cccccccc"), ChangeState::kExpired);
  EXPECT_EQ(r.steps[0].outcome, "expired");
  EXPECT_EQ(State("bbbbbbbb"), ChangeState::kExpired);
  // The next run proposes it again; a new approval lets it run.
  ApplyReport again = Run(policy::Mode::kApprove, kOpen);
  EXPECT_EQ(again.steps[0].outcome, "waiting-approval");
  EXPECT_EQ(State("bbbbbbbb"), ChangeState::kProposed);
  Approve("bbbbbbbb");
  Run(policy::Mode::kApprove, kOpen);
  EXPECT_EQ(ran_, std::vector<std::string>{"bbbbbbbb"});
}

TEST_F(ApplyRunTest, ARolledBackStepStopsTheRun) {
  fail_id_ = "cccccccc";
  ApplyReport r = Run(policy::Mode::kAuto, kOpen);
  EXPECT_EQ(ran_, (std::vector<std::string>{"bbbbbbbb", "cccccccc"}));
  EXPECT_EQ(State("cccccccc"), ChangeState::kRolledBack);
  auto rec = store_->GetChange("cccccccc");
  ASSERT_TRUE(rec.ok() && rec->has_value());
  EXPECT_NE((*rec)->reason.find("PodDisruptionBudget"), std::string::npos);
  EXPECT_EQ(r.steps[2].outcome, "not-started");
  EXPECT_EQ(ApplyExitCode({r}), 4);
}

// A rolled-back step is proposed again after the backoff (15m, then 30m),
// runs again, and stays rolled back once the budget (3 attempts) is spent.
TEST_F(ApplyRunTest, ARolledBackStepIsTriedAgainWithinItsBudget) {
  fail_id_ = "cccccccc";
  Run(policy::Mode::kAuto, "2026-12-05T03:00:00Z");
  ran_.clear();
  ApplyReport soon = Run(policy::Mode::kAuto, "2026-12-05T03:10:00Z");
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(soon.steps[1].outcome, "waiting-retry");
  EXPECT_NE(soon.steps[1].why.find("attempt 1 of 3 was rolled back (eviction of ml/a-0"), std::string::npos)
      << soon.steps[1].why;
  EXPECT_NE(soon.steps[1].why.find("from 2026-12-05T03:15:00Z (spec.disruption.retryBackoff: 15m"),
            std::string::npos)
      << soon.steps[1].why;
  EXPECT_EQ(soon.steps[2].outcome, "not-started");
  EXPECT_EQ(ApplyExitCode({soon}), 3);

  ApplyReport second = Run(policy::Mode::kAuto, "2026-12-05T03:15:00Z");
  EXPECT_EQ(ran_, std::vector<std::string>{"cccccccc"});
  EXPECT_EQ(second.steps[1].outcome, "rolled-back");
  ran_.clear();
  EXPECT_EQ(Run(policy::Mode::kAuto, "2026-12-05T03:44:00Z").steps[1].outcome, "waiting-retry");  // 30m now
  Run(policy::Mode::kAuto, "2026-12-05T03:45:00Z");
  EXPECT_EQ(ran_, std::vector<std::string>{"cccccccc"});
  ran_.clear();
  ApplyReport spent = Run(policy::Mode::kAuto, "2026-12-05T05:00:00Z");
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(spent.steps[1].outcome, "attempts-spent");
  EXPECT_NE(spent.steps[1].why.find("rolled back in all 3 attempt(s) (spec.disruption.maxAttempts: 3)"),
            std::string::npos)
      << spent.steps[1].why;
  EXPECT_EQ(ApplyExitCode({spent}), 4);
  EXPECT_EQ(State("cccccccc"), ChangeState::kRolledBack);
  // The record keeps the attempts; the log says when each was proposed again.
  auto rec = store_->GetChange("cccccccc");
  ASSERT_TRUE(rec.ok() && rec->has_value());
  EXPECT_NE((*rec)->undo_json.find(R"("attempts":[{"cause":"eviction of ml/a-0)"), std::string::npos)
      << (*rec)->undo_json;
  EXPECT_NE((*rec)->undo_json.find(R"("ended_at":"2026-12-05T03:15:00Z","number":2})"), std::string::npos)
      << (*rec)->undo_json;
  auto log = store_->Log("cccccccc");
  ASSERT_TRUE(log.ok());
  int retries = 0;
  for (const auto& e : *log) retries += e.action == "propose" && e.detail.rfind("retry: ", 0) == 0;
  EXPECT_EQ(retries, 2);
}

TEST_F(ApplyRunTest, ARetryWaitsForANewApprovalAndItsBudgetComesFromThePolicy) {
  policy_.max_attempts = 2;
  policy_.retry_backoff_hours = 0;
  policy_.retry_backoff_text = "0s";
  Run(policy::Mode::kProposal, kOpen);
  Approve("bbbbbbbb");
  fail_id_ = "bbbbbbbb";
  Run(policy::Mode::kApprove, kOpen);
  EXPECT_EQ(State("bbbbbbbb"), ChangeState::kRolledBack);
  ran_.clear();
  ApplyReport again = Run(policy::Mode::kApprove, kOpen);
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(again.steps[0].outcome, "waiting-approval");
  EXPECT_EQ(State("bbbbbbbb"), ChangeState::kProposed);
  Approve("bbbbbbbb");
  fail_id_.clear();
  ApplyReport ok = Run(policy::Mode::kApprove, kOpen);
  EXPECT_EQ(ran_, std::vector<std::string>{"bbbbbbbb"});
  EXPECT_EQ(State("bbbbbbbb"), ChangeState::kDone);
  EXPECT_EQ(ok.steps[0].outcome, "done");
}

TEST_F(ApplyRunTest, FlaggedStepsWaitUnderAutoAndBlockedPoolsStartNothing) {
  plan_.schedule.steps[0].flags.push_back("Argo CD manages Deployment ml/a: patch its repository");
  ApplyReport r = Run(policy::Mode::kAuto, kOpen);
  EXPECT_TRUE(ran_.empty());
  EXPECT_EQ(r.steps[0].outcome, "waiting-approval");

  plan_.schedule.steps.clear();  // every pool blocked
  plan_.schedule.feasible = false;
  plan_.schedule.blocked_pools = {{"A100-SXM4-40GB", "its evicted pods need 2 spare whole GPUs"}};
  plan_.schedule.spare_gpus_needed = {{"A100-SXM4-40GB", 2}};
  ApplyReport none = Run(policy::Mode::kAuto, kOpen);
  EXPECT_TRUE(ran_.empty());
  EXPECT_TRUE(none.steps.empty());
  EXPECT_EQ(none.blocked_pools, plan_.schedule.blocked_pools);
  EXPECT_EQ(ApplyExitCode({none}), 6);
}

// A blocked pool holds back no other: the steps the schedule holds (the
// other pools') run, and the exit code still says a pool did not fit.
TEST_F(ApplyRunTest, TheOtherPoolsStepsRunBesideABlockedPool) {
  plan_.schedule.feasible = false;
  plan_.schedule.blocked_pools = {{"H100-80GB", "its evicted pods need 4 spare whole H100-80GB GPU(s)"}};
  plan_.schedule.spare_gpus_needed = {{"H100-80GB", 4}};
  std::vector<std::string> said;
  ApplyOptions o;
  o.mode = policy::Mode::kAuto;
  const auto t = ParseTime(kOpen).value();
  o.now = [t] { return t; };
  o.progress = [&](const std::string& line) { said.push_back(line); };
  ApplyReport r = ApplyPlan(plan_, policy_, store_.get(), o, [this](const plan::ScheduleStep& s) {
    ran_.push_back(s.id);
    return StepResult{};
  });
  EXPECT_EQ(ran_, (std::vector<std::string>{"bbbbbbbb", "cccccccc", "dddddddd"}));
  for (const auto& s : r.steps) EXPECT_EQ(s.outcome, "done");
  EXPECT_EQ(ApplyExitCode({r}), 6);
  ASSERT_FALSE(said.empty());
  EXPECT_EQ(said[0], "policy gpu-sharing: GPU pool H100-80GB stays as it is: no order of its changes fits (its "
                     "evicted pods need 4 spare whole H100-80GB GPU(s))");
}

TEST_F(ApplyRunTest, DryRunWritesNothing) {
  ApplyReport r = Run(policy::Mode::kAuto, kOpen, /*dry_run=*/true);
  EXPECT_TRUE(ran_.empty());
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].outcome, "would-run");
  auto all = store_->ListChanges();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

}  // namespace
}  // namespace kubeon::apply
