// Tests for policy_overlap.h: shared GPU nodes between the policies of a
// file, GPU nodes only, deterministic order, and the node description.
#include "policy/policy_overlap.h"

#include <gtest/gtest.h>

namespace kubeon::policy {
namespace {

model::Node GpuNode(const std::string& name, const std::string& pool, int gpus = 8) {
  model::Node n;
  n.name = name;
  n.labels = {{"pool", pool}};
  n.gpu_count = gpus;
  return n;
}

GpuPolicy Policy(const std::string& name, std::map<std::string, std::string> selector) {
  GpuPolicy p;
  p.name = name;
  p.node_selector = std::move(selector);
  return p;
}

TEST(FindOverlaps, PairsSharingGpuNodesWithTheSharedNodesSorted) {
  model::Cluster c;
  c.nodes = {GpuNode("n3", "a"), GpuNode("n1", "a"), GpuNode("n2", "b"), GpuNode("cpu", "a", 0)};
  const std::vector<GpuPolicy> policies = {Policy("all", {}), Policy("pool-a", {{"pool", "a"}}),
                                           Policy("pool-b", {{"pool", "b"}}), Policy("none", {{"pool", "z"}})};
  const std::vector<PolicyOverlap> o = FindOverlaps(c, policies);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].first->name, "all");
  EXPECT_EQ(o[0].second->name, "pool-a");
  EXPECT_EQ(o[0].nodes, (std::vector<std::string>{"n1", "n3"}));  // not the CPU node
  EXPECT_EQ(o[1].first->name, "all");
  EXPECT_EQ(o[1].second->name, "pool-b");
  EXPECT_EQ(o[1].nodes, (std::vector<std::string>{"n2"}));
  EXPECT_TRUE(FindOverlaps(c, {policies[1], policies[2], policies[3]}).empty());
}

TEST(FindOverlaps, CountsSelectedGpuNodes) {
  model::Cluster c;
  c.nodes = {GpuNode("n1", "a"), GpuNode("n2", "b"), GpuNode("cpu", "a", 0)};
  EXPECT_EQ(GpuNodes(c), 2u);
  EXPECT_EQ(SelectedGpuNodes(c, Policy("a", {{"pool", "a"}})), 1u);
  EXPECT_EQ(SelectedGpuNodes(c, Policy("z", {{"pool", "z"}})), 0u);
  EXPECT_EQ(SelectedGpuNodes(c, Policy("all", {})), 2u);
}

TEST(DescribeNodes, NamesUpToThree) {
  EXPECT_EQ(DescribeNodes({"a"}), "1 GPU node (a)");
  EXPECT_EQ(DescribeNodes({"a", "b"}), "2 GPU nodes (a and b)");
  EXPECT_EQ(DescribeNodes({"a", "b", "c"}), "3 GPU nodes (a, b and c)");
  EXPECT_EQ(DescribeNodes({"a", "b", "c", "d", "e"}), "5 GPU nodes (a, b, c and 2 more)");
}

}  // namespace
}  // namespace kubeon::policy
