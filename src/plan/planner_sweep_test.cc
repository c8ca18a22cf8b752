// The larger sweep of the planner's property test (label long, optimised
// build only): the checks of plan_properties.h on generated clusters of 100
// to 10,000 nodes under every disruption rule.
//  - IssueShapeEveryRule: the issue-32 shape (one single-replica Deployment
//    per A100-80GB GPU, all GPUs held) at 200, 300, 600, 2,000 and 10,000
//    nodes, with stayingPods None, Restartable and Any;
//  - Mixed: 100, 400 and 1,000 nodes x 6 seeds, 1-3 pools of any model.
#include <gtest/gtest.h>

#include "plan/plan_properties.h"

namespace kubeon::plan::testing {
namespace {

TEST(PlannerSweep, IssueShapeEveryRule) {
  for (int nodes : {200, 300, 600, 2000, 10000}) {
    Shape s;
    s.nodes = nodes;
    s.one_deployment_per_gpu = true;
    s.fill = 1.0;
    for (policy::StayingPods rule :
         {policy::StayingPods::kNone, policy::StayingPods::kRestartable, policy::StayingPods::kAny}) {
      Generated g = Generate(s, 32, mig::MigCatalog::Builtin());
      g.policy.staying_pods = rule;
      const std::vector<std::string> problems = PlanProblems(g);
      std::string text;
      for (size_t i = 0; i < problems.size() && i < 10; ++i) text += "  " + problems[i] + "\n";
      EXPECT_TRUE(problems.empty()) << g.description << " (rule " << policy::StayingPodsName(rule) << "):\n" << text;
    }
  }
}

TEST(PlannerSweep, Mixed) {
  for (int nodes : {100, 400, 1000}) {
    Shape s;
    s.nodes = nodes;
    s.pools = 1 + nodes % 3;
    for (uint64_t seed = 0; seed < 6; ++seed) {
      const std::string report = CheckShape(s, 9000 + seed * 13 + static_cast<uint64_t>(nodes));
      EXPECT_TRUE(report.empty()) << report;
      if (!report.empty()) return;
    }
  }
}

}  // namespace
}  // namespace kubeon::plan::testing
