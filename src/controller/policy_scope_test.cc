// Tests for policy_scope.h: overlapping node selectors are an error on both
// policies; a workload spanning two policies' nodes is a conflict of both and
// excluded from both plans; disjoint policies are left alone.
#include "controller/policy_scope.h"

#include <gtest/gtest.h>

namespace kubeon::controller {
namespace {

model::Node GpuNode(const std::string& name, const std::string& pool) {
  model::Node n;
  n.name = name;
  n.gpu_count = 8;
  n.gpu_product = "NVIDIA-A100-SXM4-40GB";
  n.labels["pool"] = pool;
  return n;
}

model::Pod GpuPod(const std::string& workload, int i, const std::string& node) {
  model::Pod p;
  p.namespace_ = "ml";
  p.name = workload + "-" + std::to_string(i);
  p.node_name = node;
  p.phase = "Running";
  p.gpus = 1;
  p.workload = {"ml", "Deployment", workload};
  return p;
}

policy::GpuPolicy Policy(const std::string& name, std::map<std::string, std::string> selector) {
  policy::GpuPolicy p;
  p.name = name;
  p.node_selector = std::move(selector);
  return p;
}

TEST(PolicyScope, DisjointPoliciesHaveNoConflicts) {
  model::Cluster c;
  c.nodes = {GpuNode("a1", "a"), GpuNode("b1", "b")};
  c.pods = {GpuPod("x", 0, "a1"), GpuPod("y", 0, "b1")};
  auto s = ScopePolicies(c, {Policy("pa", {{"pool", "a"}}), Policy("pb", {{"pool", "b"}})});
  ASSERT_EQ(s.size(), 2u);
  for (const auto& [name, scope] : s) {
    EXPECT_TRUE(scope.overlaps_with.empty()) << name;
    EXPECT_TRUE(scope.excluded.empty()) << name;
    EXPECT_TRUE(scope.conflicts.empty()) << name;
  }
}

TEST(PolicyScope, OverlappingSelectorsAreAnErrorOnBoth) {
  model::Cluster c;
  c.nodes = {GpuNode("a1", "a"), GpuNode("a2", "a"), GpuNode("b1", "b")};
  model::Node cpu;
  cpu.name = "cpu-1";  // not a GPU node: selecting it too is no overlap
  cpu.labels["pool"] = "a";
  c.nodes.push_back(cpu);
  auto s = ScopePolicies(c, {Policy("everything", {}), Policy("pa", {{"pool", "a"}})});
  EXPECT_EQ(s["everything"].overlaps_with, std::vector<std::string>{"pa"});
  EXPECT_EQ(s["pa"].overlaps_with, std::vector<std::string>{"everything"});
  EXPECT_NE(s["pa"].overlap_error.find("everything (a1 and a2)"), std::string::npos) << s["pa"].overlap_error;
  EXPECT_NE(s["everything"].overlap_error.find("pa (a1 and a2)"), std::string::npos);
  EXPECT_EQ(s["pa"].conflicts, std::vector<std::string>{"policy everything selects the same nodes"});
}

TEST(PolicyScope, AWorkloadSpanningTwoPoliciesIsExcludedFromBoth) {
  model::Cluster c;
  c.nodes = {GpuNode("a1", "a"), GpuNode("b1", "b"), GpuNode("c1", "c")};
  c.pods = {GpuPod("split", 0, "a1"), GpuPod("split", 1, "b1"), GpuPod("only-a", 0, "a1"),
            GpuPod("elsewhere", 0, "a1"), GpuPod("elsewhere", 1, "c1")};  // c1 belongs to no policy
  model::Pod done = GpuPod("finished", 0, "b1");
  done.phase = "Succeeded";  // not active: does not count
  c.pods.push_back(done);
  c.pods.push_back(GpuPod("finished", 1, "a1"));
  auto s = ScopePolicies(c, {Policy("pa", {{"pool", "a"}}), Policy("pb", {{"pool", "b"}})});
  const model::WorkloadRef split{"ml", "Deployment", "split"};
  for (const char* name : {"pa", "pb"}) {
    ASSERT_EQ(s[name].excluded.size(), 1u) << name;
    EXPECT_EQ(s[name].excluded.begin()->first, split);
    EXPECT_NE(s[name].excluded.begin()->second.find("policies pa and pb"), std::string::npos);
    EXPECT_EQ(s[name].conflicts, std::vector<std::string>{"workload ml/split (Deployment) spans policies pa and pb"});
    EXPECT_TRUE(s[name].overlaps_with.empty());
  }
}

}  // namespace
}  // namespace kubeon::controller
