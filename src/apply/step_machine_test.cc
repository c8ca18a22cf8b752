// The state machine's transitions on the fake cluster: which phase every
// cluster write happens in, what a failure rolls back, what a crash leaves
// and how Resume finishes or undoes it.
#include "apply/step_machine.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"
#include "apply/object_fields.h"
#include "plan/schedule_json.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeDeployment;
using testing::FakeNode;
using testing::FakePod;
using testing::StepFixture;

const char* kNode = "/api/v1/nodes/a";
const char* kDep = "/apis/apps/v1/namespaces/ml/deployments/infer";

class StepMachineTest : public StepFixture {
 protected:
  void SetUp() override {
    artifacts_.mig_parted_config = testing::TestMigConfig("kubeon-1");
    cluster().Put(kNode, FakeNode("a", 4, {{kMigConfigLabel, "all-disabled"}, {kMigConfigStateLabel, "success"}}));
    cluster().Put("/api/v1/nodes/spare", FakeNode("spare", 4));
    cluster().Put(kDep, FakeDeployment("ml", "infer", 2));
    for (const char* p : {"infer-1", "infer-2"}) cluster().Put(std::string("/api/v1/namespaces/ml/pods/") + p, FakePod("ml", p, "a"));
    testing::PlayGpuOperator(cluster());
    auto op = cluster().on_write;
    cluster().on_write = [op](const std::string& path, json& obj) {
      op(path, obj);
      if (path.rfind("/apis/apps/v1/", 0) == 0) testing::CompleteRollout(obj);  // a rollout that just works
    };
    // The phase of the run at every cluster write.
    options_.write_observer = [this](int) {
      if (journal_ != nullptr) phases_.push_back(PhaseName(journal_->run().phase));
      return stop_at_ && stop_at_(journal_->run().phase);
    };
  }

  Goal MigGoal() {
    plan::ScheduleStep step;
    step.id = "5e1c0a77";
    step.nodes = {"a"};
    step.labels_after["a"] = {{kMigConfigLabel, "kubeon-1"}};
    plan::StepOwnerMove o;
    o.owner.kind = "Deployment";
    o.owner.namespace_ = "ml";
    o.owner.name = "infer";
    o.patch_json = R"({"spec":{"template":{"spec":{"containers":[{"name":"main","resources":{"limits":)"
                   R"({"nvidia.com/gpu":null,"nvidia.com/mig-1g.5gb":"1"}}}]}}}})";
    step.owners.push_back(o);
    step_ = step;
    return StepGoal(step);
  }
  // The phases writes happened in, each once, in order.
  std::vector<std::string> PhaseRuns() const {
    std::vector<std::string> out;
    for (const auto& p : phases_) {
      if (out.empty() || out.back() != p) out.push_back(p);
    }
    return out;
  }
  json& Node() { return cluster().At(kNode); }
  audit::ChangeRecord Change() { return **store_.GetChange("5e1c0a77"); }

  void RevertInOrder(bool owners_fit_elsewhere) {
    StepJournal& j = Journal("5e1c0a77", RunKind::kRevert);
    BeginRevert(j);
    Goal g = MigGoal();
    g.owners_first = true;
    g.owners_fit_elsewhere = owners_fit_elsewhere;
    g.reserve = false;
    const StepOutcome o = RunGoal(j, g, audit::ChangeState::kReverted);
    ASSERT_EQ(o.kind, OutcomeKind::kDone) << o.cause;
    EXPECT_EQ(PhaseRuns(), (std::vector<std::string>{"prepare", "owners", "configure", "uncordon", "cleanup"}));
    EXPECT_EQ(Change().state, audit::ChangeState::kReverted);
    const auto& w = cluster().writes;
    auto first = [&](const std::string& what) {
      return std::find_if(w.begin(), w.end(), [&](const std::string& s) { return s.find(what) != std::string::npos; });
    };
    ASSERT_NE(first(kDep), w.end());
    EXPECT_LT(first(kNode), first(kDep)) << "the node is cordoned before the owner moves";
    EXPECT_FALSE(Node()["spec"].contains("taints"));
  }

  std::vector<std::string> phases_;
  std::function<bool(Phase)> stop_at_;
  plan::ScheduleStep step_;
};

TEST_F(StepMachineTest, AStepWritesInPrepareConfigureUncordonOwnersCleanupOrder) {
  StepJournal& j = Journal();
  BeginStep(j);
  const StepOutcome o = RunGoal(j, MigGoal(), audit::ChangeState::kDone);
  ASSERT_EQ(o.kind, OutcomeKind::kDone) << o.cause;
  EXPECT_EQ(PhaseRuns(), (std::vector<std::string>{"prepare", "configure", "uncordon", "owners", "cleanup"}));
  EXPECT_EQ(j.run().phase, Phase::kDone);
  EXPECT_EQ(Change().state, audit::ChangeState::kDone);
  EXPECT_EQ(Node()["metadata"]["labels"][kMigConfigLabel], "kubeon-1");
  EXPECT_FALSE(Node()["spec"].contains("unschedulable"));
  EXPECT_FALSE(Node()["spec"].contains("taints"));
  EXPECT_EQ(cluster().At(kDep)["metadata"]["annotations"][kChangeAnnotation], "5e1c0a77");
  EXPECT_EQ(o.writes, static_cast<int>(phases_.size()));
}

// A revert cordons its nodes before it moves the owners back, so that their
// restored pods cannot land there, and reserves nothing; with whole GPUs
// free elsewhere or not (the rollouts awaited before the evictions, or after
// the node is back).
TEST_F(StepMachineTest, ARevertCordonsItsNodesThenMovesTheOwnersAndReservesNothing) {
  RevertInOrder(/*owners_fit_elsewhere=*/true);
}
TEST_F(StepMachineTest, ARevertWithoutWholeGpusElsewhereAwaitsTheRolloutsLast) {
  RevertInOrder(/*owners_fit_elsewhere=*/false);
}

TEST_F(StepMachineTest, ARefusalWritesNothing) {
  cluster().At("/api/v1/nodes/spare")["status"]["allocatable"]["nvidia.com/gpu"] = "0";
  StepJournal& j = Journal();
  BeginStep(j);
  Goal g = MigGoal();
  g.needs = {{"nvidia.com/gpu", 2, {"spare"}, "for the evicted pods"}};
  const StepOutcome o = RunGoal(j, g, audit::ChangeState::kDone);
  EXPECT_EQ(o.kind, OutcomeKind::kRolledBack);
  EXPECT_EQ(o.cause, "capacity changed since the plan: the step needs 2 free nvidia.com/gpu (for the evicted pods), "
                     "the cluster has 0");
  EXPECT_TRUE(cluster().writes.empty());
  EXPECT_EQ(j.run().phase, Phase::kRefused);
  EXPECT_EQ(Change().state, audit::ChangeState::kRolledBack);
}

TEST_F(StepMachineTest, AFailureRollsBackWhatTheRecordShows) {
  cluster().pdb_refusals["ml/infer-2"] = 1000;
  options_.eviction_deadline = std::chrono::seconds(20);
  StepJournal& j = Journal();
  BeginStep(j);
  const StepOutcome o = RunGoal(j, MigGoal(), audit::ChangeState::kDone);
  EXPECT_EQ(o.kind, OutcomeKind::kRolledBack);
  EXPECT_NE(o.cause.find("eviction of pod ml/infer-2 still refused at the deadline"), std::string::npos) << o.cause;
  EXPECT_EQ(PhaseRuns(), (std::vector<std::string>{"prepare", "configure", "rollback"}));
  EXPECT_EQ(j.run().phase, Phase::kRolledBack);
  EXPECT_EQ(*j.run().cause, o.cause);
  EXPECT_FALSE(Node()["spec"].contains("unschedulable"));
  EXPECT_FALSE(Annotations(Node()).contains(kCordonedByAnnotation));
  EXPECT_EQ(Node()["metadata"]["labels"][kMigConfigLabel], "all-disabled");
  EXPECT_EQ(Change().state, audit::ChangeState::kRolledBack);
}

TEST_F(StepMachineTest, ACrashLeavesTheRunWhereItWasAndResumeRollsItBack) {
  stop_at_ = [](Phase p) { return p == Phase::kConfigure; };
  StepJournal& j = Journal();
  BeginStep(j);
  const StepOutcome o = RunGoal(j, MigGoal(), audit::ChangeState::kDone);
  EXPECT_EQ(o.kind, OutcomeKind::kCrashed);
  audit::ChangeRecord rec = Change();
  EXPECT_EQ(rec.state, audit::ChangeState::kRunning);
  Result<StepRecord> left = ReadStepRecord(rec.undo_json, "change 5e1c0a77");
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(RunLeftHalfWay(rec, *left), RunKind::kStep);
  EXPECT_EQ(Node()["spec"]["unschedulable"], true);
  stop_at_ = nullptr;
  StepJournal& again = Journal();
  const StepOutcome r = Resume(again);
  EXPECT_EQ(r.kind, OutcomeKind::kRolledBack) << r.cause;
  EXPECT_EQ(r.cause, "interrupted at phase configure (resumed from the log)");
  EXPECT_FALSE(Node()["spec"].contains("unschedulable"));
  rec = Change();
  EXPECT_EQ(rec.state, audit::ChangeState::kRolledBack);
  EXPECT_FALSE(RunLeftHalfWay(rec, *ReadStepRecord(rec.undo_json, "x")));
}

TEST_F(StepMachineTest, ResumeInTheOwnersPhaseFinishesTheMove) {
  stop_at_ = [](Phase p) { return p == Phase::kOwners; };
  StepJournal& j = Journal();
  BeginStep(j);
  Goal g = MigGoal();
  j.change().step_json = plan::StepToJson(step_).dump();
  EXPECT_EQ(RunGoal(j, g, audit::ChangeState::kDone).kind, OutcomeKind::kCrashed);
  stop_at_ = nullptr;
  phases_.clear();
  StepJournal& again = Journal();
  const StepOutcome r = Resume(again);
  EXPECT_EQ(r.kind, OutcomeKind::kDone) << r.cause;
  EXPECT_EQ(PhaseRuns(), (std::vector<std::string>{"owners", "cleanup"}));
  EXPECT_EQ(Node()["metadata"]["labels"][kMigConfigLabel], "kubeon-1");
  EXPECT_EQ(Change().state, audit::ChangeState::kDone);
}

TEST_F(StepMachineTest, ResumeInCleanupOnlyCleansUp) {
  stop_at_ = [](Phase p) { return p == Phase::kCleanup; };
  StepJournal& j = Journal();
  BeginStep(j);
  EXPECT_EQ(RunGoal(j, MigGoal(), audit::ChangeState::kDone).kind, OutcomeKind::kCrashed);
  stop_at_ = nullptr;
  phases_.clear();
  StepJournal& again = Journal();
  const StepOutcome r = Resume(again);
  EXPECT_EQ(r.kind, OutcomeKind::kDone) << r.cause;
  EXPECT_TRUE(phases_.empty() || PhaseRuns() == std::vector<std::string>{"cleanup"});
  EXPECT_FALSE(Node()["spec"].contains("taints"));
}

// Fencing: once the Lease is lost the run writes nothing more, not even a
// rollback or its outcome, and leaves the change running for the next holder.
TEST_F(StepMachineTest, ALostLeaseStopsEveryWriteAndLeavesTheChangeForTheNextHolder) {
  int fence_checks = 0;
  StepJournal& j = Journal();
  ctx_->fence = [&]() -> Status {
    if (++fence_checks <= 2) return Status::Ok();
    return Status::Error("lost the Lease kube-system/kubeon-gpu-gpu-sharing: not renewed for 41 s (renew deadline 40 s)",
                         StatusCode::kAborted);
  };
  BeginStep(j);
  const StepOutcome o = RunGoal(j, MigGoal(), audit::ChangeState::kDone);
  EXPECT_EQ(o.kind, OutcomeKind::kLeaseLost);
  EXPECT_EQ(o.cause, "lost the Lease: stopped writing; change 5e1c0a77 is left at phase configure for the Lease's "
                     "next holder to finish or roll back");
  EXPECT_EQ(o.writes, 2);  // the cordon and the ConfigMap; no eviction, no rollback
  EXPECT_EQ(cluster().writes.size(), 2u);
  const std::vector<std::string> log = LogLines();
  EXPECT_EQ(log.back(), "write-configmap/ok");
  audit::ChangeRecord rec = Change();
  EXPECT_EQ(rec.state, audit::ChangeState::kRunning);
  EXPECT_EQ(RunLeftHalfWay(rec, *ReadStepRecord(rec.undo_json, "x")), RunKind::kStep);
  EXPECT_EQ(Node()["spec"]["unschedulable"], true);  // as it was: the next holder rolls it back
}

TEST_F(StepMachineTest, ARevertWhoseRollbackFailedIsTakenAgain) {
  audit::ChangeRecord rec;
  rec.state = audit::ChangeState::kDone;
  StepRecord r;
  r.revert.emplace();
  for (Phase p : {Phase::kNotStarted, Phase::kDone, Phase::kRolledBack, Phase::kRefused}) {
    r.revert->phase = p;
    EXPECT_FALSE(RunLeftHalfWay(rec, r)) << PhaseName(p);
  }
  for (Phase p : {Phase::kStart, Phase::kOwners, Phase::kConfigure, Phase::kRollback, Phase::kRollbackFailed}) {
    r.revert->phase = p;
    EXPECT_EQ(RunLeftHalfWay(rec, r), RunKind::kRevert) << PhaseName(p);
  }
  rec.state = audit::ChangeState::kRolledBack;
  EXPECT_FALSE(RunLeftHalfWay(rec, r));
}

}  // namespace
}  // namespace kubeon::apply
