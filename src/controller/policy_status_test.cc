// Tests for policy_status.h: the status of a planned policy, of one that
// failed, condition reasons and lastTransitionTime kept while a condition's
// status does not change.
#include "controller/policy_status.h"

#include <gtest/gtest.h>

namespace kubeon::controller {
namespace {

using nlohmann::json;

PolicyView Planned() {
  PolicyView v;
  v.name = "gpu-sharing";
  v.generation = 3;
  policy::GpuPolicy p;
  p.name = v.name;
  p.window = *policy::Window::Parse("Sat 02:00-06:00 UTC");
  v.policy = p;
  plan::Plan plan;
  plan.summary.gpus_before = 16;
  plan.summary.gpus_after = 9;
  plan.summary.monthly_savings_usd = 23000.4;
  plan.summary.savings_realizable_usd = 20000.4;
  plan.summary.capacity_freed_usd = 3000;
  plan::ScheduleStep step;
  step.id = "0a1b2c3d";
  step.content_hash = std::string(64, 'a');
  plan.schedule.steps.push_back(step);
  v.plan = plan;
  v.planned_at = "2026-12-03T10:00:00Z";
  return v;
}

const json& Cond(const json& status, const std::string& type) {
  for (const auto& c : status["conditions"]) {
    if (c["type"] == type) return c;
  }
  static json none;
  ADD_FAILURE() << "no condition " << type;
  return none;
}

TEST(PolicyStatus, PlannedPolicy) {
  PolicyStatusInputs in;
  in.now = "2026-12-03T10:00:05Z";
  in.pending_approvals = {"0a1b2c3d"};
  const json s = BuildPolicyStatus(json(), Planned(), in);
  EXPECT_EQ(s["observedGeneration"], 3);
  EXPECT_EQ(s["lastPlan"]["gpusBefore"], 16);
  EXPECT_EQ(s["lastPlan"]["gpusAfter"], 9);
  EXPECT_EQ(s["lastPlan"]["steps"], 1);
  EXPECT_EQ(s["lastPlan"]["feasible"], true);
  EXPECT_EQ(s["lastPlan"]["planHash"].get<std::string>().size(), 64u);
  EXPECT_EQ(s["pendingApprovals"], json::array({"0a1b2c3d"}));
  EXPECT_EQ(s["lastPlan"]["monthlySavingsUsd"], 20000.4);  // realizable only
  EXPECT_EQ(s["lastPlan"]["capacityFreedUsd"], 3000);
  EXPECT_EQ(s["message"],
            "16 GPUs -> 9, $20000/month realizable (nodes freed), $3000/month of capacity freed on nodes that stay, "
            "in 1 step(s)");
  EXPECT_EQ(Cond(s, "Ready")["status"], "True");
  EXPECT_EQ(Cond(s, "Ready")["reason"], "Planned");
  EXPECT_EQ(Cond(s, "Ready")["observedGeneration"], 3);
  EXPECT_EQ(Cond(s, "WindowOpen")["status"], "False");
  EXPECT_EQ(Cond(s, "WindowOpen")["reason"], "OutsideWindow");
  EXPECT_EQ(Cond(s, "Degraded")["status"], "False");
  EXPECT_EQ(Cond(s, "Degraded")["lastTransitionTime"], "2026-12-03T10:00:05Z");
}

TEST(PolicyStatus, TransitionTimeKeptWhileTheStatusHolds) {
  PolicyStatusInputs in;
  in.now = "2026-12-03T10:00:00Z";
  const json first = BuildPolicyStatus(json(), Planned(), in);
  in.now = "2026-12-03T10:10:00Z";
  PolicyView open = Planned();
  open.window_open = true;
  const json second = BuildPolicyStatus(first, open, in);
  EXPECT_EQ(Cond(second, "Ready")["lastTransitionTime"], "2026-12-03T10:00:00Z");
  EXPECT_EQ(Cond(second, "WindowOpen")["lastTransitionTime"], "2026-12-03T10:10:00Z");
  EXPECT_EQ(Cond(second, "WindowOpen")["reason"], "InsideWindow");
  // The plan fails: Ready flips, lastPlan and lastChange stay from before.
  PolicyView failed = Planned();
  failed.plan.reset();
  failed.error = "node selector overlaps with policy other (n1)";
  failed.error_reason = "OverlappingPolicies";
  in.now = "2026-12-03T10:20:00Z";
  json with_change = second;
  with_change["lastChange"] = {{"name", "0a1b2c3d"}, {"state", "done"}, {"time", "2026-12-03T10:05:00Z"}};
  const json third = BuildPolicyStatus(with_change, failed, in);
  EXPECT_EQ(Cond(third, "Ready")["status"], "False");
  EXPECT_EQ(Cond(third, "Ready")["reason"], "OverlappingPolicies");
  EXPECT_EQ(Cond(third, "Ready")["lastTransitionTime"], "2026-12-03T10:20:00Z");
  EXPECT_EQ(Cond(third, "Degraded")["status"], "True");
  EXPECT_EQ(Cond(third, "Degraded")["reason"], "OverlappingPolicies");
  EXPECT_EQ(third["message"], failed.error);
  EXPECT_EQ(third["lastPlan"], second["lastPlan"]);
  EXPECT_EQ(third["lastChange"]["name"], "0a1b2c3d");
}

TEST(PolicyStatus, DegradedReasons) {
  PolicyStatusInputs in;
  in.now = "2026-12-03T10:00:00Z";
  in.last_change = LastChange{"0a1b2c3d", "rolled-back", "2026-12-03T09:00:00Z"};
  EXPECT_EQ(Cond(BuildPolicyStatus(json(), Planned(), in), "Degraded")["reason"], "ChangeFailed");
  in.last_change->state = "done";
  PolicyView infeasible = Planned();
  infeasible.plan->schedule.feasible = false;
  infeasible.plan->schedule.spare_gpus_needed["H100-80GB"] = 2;
  infeasible.plan->schedule.blocked_pools["H100-80GB"] = "its evicted pods need 2 spare whole H100-80GB GPU(s)";
  const json s = BuildPolicyStatus(json(), infeasible, in);
  EXPECT_EQ(Cond(s, "Degraded")["reason"], "Infeasible");
  EXPECT_NE(Cond(s, "Degraded")["message"].get<std::string>().find("2 x H100-80GB"), std::string::npos);
  EXPECT_EQ(s["lastChange"]["state"], "done");
  PolicyView split = Planned();
  split.conflicts = {"workload ml/x (Deployment) spans policies a and b"};
  const json t = BuildPolicyStatus(json(), split, in);
  EXPECT_EQ(Cond(t, "Degraded")["reason"], "SplitWorkload");
  EXPECT_EQ(t["conflicts"], json::array({"workload ml/x (Deployment) spans policies a and b"}));
  in.approvals_guarded = false;
  EXPECT_EQ(Cond(BuildPolicyStatus(json(), Planned(), in), "Degraded")["reason"], "ApprovalsNotGuarded");
  PolicyView invalid;
  invalid.name = "bad";
  invalid.error = "GpuPolicy bad: spec.mode: bad";
  invalid.error_reason = "InvalidPolicy";
  const json u = BuildPolicyStatus(json(), invalid, in);
  EXPECT_EQ(Cond(u, "Ready")["reason"], "InvalidPolicy");
  EXPECT_EQ(Cond(u, "WindowOpen")["reason"], "NoWindow");
}

TEST(PolicyStatus, PlanHashFollowsTheSteps) {
  PolicyView a = Planned(), b = Planned();
  EXPECT_EQ(PlanHash(*a.plan), PlanHash(*b.plan));
  b.plan->schedule.steps[0].content_hash = std::string(64, 'b');
  EXPECT_NE(PlanHash(*a.plan), PlanHash(*b.plan));
}

}  // namespace
}  // namespace kubeon::controller
