// Tests for plan_each.h: each policy is planned on the same inputs, and one
// whose planning fails fails alone.
#include "inputs/plan_each.h"

#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inputs/small_inputs_test_util.h"

namespace kubeon::inputs {
namespace {

using testing::SmallPlanArgs;

// A policy whose planning fails (a broken invariant, an exception, running
// out of memory) fails alone: it is named, and the next policies are planned.
TEST(PlanEach, AFailingPolicyFailsAloneAndTheOthersArePlanned) {
  int code = 0;
  Result<mig::MigCatalog> catalog = LoadCatalog("");
  ASSERT_TRUE(catalog.ok());
  Result<PlanInputs> in = ReadPlanInputs(SmallPlanArgs(), std::move(catalog.value()), [](const std::string&) {}, &code);
  ASSERT_TRUE(in.ok()) << in.status().message();
  in->planner = [](const model::Cluster& c, const metrics::History& h, const policy::GpuPolicy& p,
                   const mig::MigCatalog& m, const plan::PlannerOptions& o) -> Result<plan::Plan> {
    if (p.name == "oom") throw std::bad_alloc();
    if (p.name == "throws") throw std::out_of_range("vector::at");
    if (p.name == "broken") return Status::Error("policy \"broken\": [PLAN-LAYOUT] node n1 GPU 0: ...");
    return plan::MakePlan(c, h, p, m, o);
  };
  std::vector<policy::GpuPolicy> policies(4);
  policies[0].name = "oom";
  policies[1].name = "throws";
  policies[2].name = "broken";
  policies[3].name = "fine";
  std::vector<std::string> lines;
  std::vector<PolicyPlan> plans = PlanEach(*in, policies, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(plans.size(), 4u);
  ASSERT_FALSE(plans[0].plan.ok());
  EXPECT_EQ(plans[0].plan.status().message(), "policy \"oom\": planning ran out of memory");
  ASSERT_FALSE(plans[1].plan.ok());
  EXPECT_EQ(plans[1].plan.status().message(), "policy \"throws\": planning failed: vector::at");
  ASSERT_FALSE(plans[2].plan.ok());
  EXPECT_NE(plans[2].plan.status().message().find("PLAN-LAYOUT"), std::string::npos);
  ASSERT_TRUE(plans[3].plan.ok()) << plans[3].plan.status().message();
  EXPECT_EQ(plans[3].plan->policy_name, "fine");
  int errors = 0;
  for (const auto& l : lines) errors += l.rfind("error: policy", 0) == 0 ? 1 : 0;
  EXPECT_EQ(errors, 3);
}

}  // namespace
}  // namespace kubeon::inputs
