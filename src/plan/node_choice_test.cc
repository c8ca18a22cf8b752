// Tests of node_choice.h: the value of a node, each objective and tie-break,
// and the exact search against an independent exhaustive one.
#include "plan/node_choice.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace kubeon::plan {
namespace {

NodeCandidate Node(int capacity, int before, int staying, int count, double price, int disrupted = 0) {
  return NodeCandidate{capacity, before, staying, count, price, disrupted};
}

TEST(HourlyValueFreed, WholeNodeWhenFreedElseTheGpusGivenUp) {
  EXPECT_DOUBLE_EQ(HourlyValueFreed(8, 0, 8, 32.0), 32.0);
  EXPECT_DOUBLE_EQ(HourlyValueFreed(2, 0, 8, 32.0), 32.0);  // idle GPUs count once the node can go
  EXPECT_DOUBLE_EQ(HourlyValueFreed(8, 3, 8, 32.0), 20.0);
  EXPECT_DOUBLE_EQ(HourlyValueFreed(3, 5, 8, 32.0), 0.0);   // more GPUs after than before: nothing freed
  EXPECT_DOUBLE_EQ(HourlyValueFreed(0, 0, 8, 32.0), 0.0);   // idle before: nothing to free
  EXPECT_DOUBLE_EQ(HourlyValueFreed(4, 1, 0, 32.0), 0.0);
}

TEST(ChooseNodes, FreesTheExpensiveNode) {
  // Two emptied nodes; the 3 MIG GPUs fit either: the expensive one is freed.
  const std::vector<NodeCandidate> nodes = {Node(4, 4, 0, 4, 10.0), Node(4, 4, 0, 4, 40.0)};
  const NodeChoice c = ChooseNodes(nodes, 3);
  EXPECT_EQ(c.placed, 3);
  EXPECT_EQ(c.gpus, (std::vector<int>{3, 0}));
}

TEST(ChooseNodes, IdleGpusOfAKeptNodeCostNothing) {
  // Node 0 keeps 2 busy GPUs and had 6 idle: MIG GPUs there free node 1 whole.
  const std::vector<NodeCandidate> nodes = {Node(6, 2, 2, 8, 32.0, 2), Node(8, 4, 0, 8, 32.0)};
  EXPECT_EQ(ChooseNodes(nodes, 4).gpus, (std::vector<int>{4, 0}));
}

TEST(ChooseNodes, FewerDisruptedPodsBreakEqualDollars) {
  // Same price and shape; node 0 keeps 3 staying pods, node 1 keeps 1.
  const std::vector<NodeCandidate> nodes = {Node(4, 8, 4, 8, 32.0, 3), Node(4, 8, 4, 8, 32.0, 1)};
  EXPECT_EQ(ChooseNodes(nodes, 2).gpus, (std::vector<int>{0, 2}));
}

TEST(ChooseNodes, CallersOrderBreaksFullTies) {
  const std::vector<NodeCandidate> nodes = {Node(8, 8, 0, 8, 10.0), Node(8, 8, 0, 8, 10.0), Node(8, 8, 0, 8, 10.0)};
  EXPECT_EQ(ChooseNodes(nodes, 9).gpus, (std::vector<int>{8, 1, 0}));
}

TEST(ChooseNodes, WithoutPricesFillsEarlierNodes) {
  const std::vector<NodeCandidate> nodes = {Node(8, 3, 0, 8, 0), Node(8, 5, 0, 8, 0)};
  EXPECT_EQ(ChooseNodes(nodes, 5).gpus, (std::vector<int>{5, 0}));
}

TEST(ChooseNodes, ShortOfCapacityPlacesWhatFits) {
  const std::vector<NodeCandidate> nodes = {Node(2, 2, 0, 2, 1.0), Node(3, 3, 0, 4, 1.0)};
  const NodeChoice c = ChooseNodes(nodes, 9);
  EXPECT_EQ(c.placed, 5);
  EXPECT_EQ(c.gpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(ChooseNodes({}, 3).placed, 0);
  EXPECT_EQ(ChooseNodes(nodes, 0).gpus, (std::vector<int>{0, 0}));
}

// A node's value as the contract scores it: whole micro-dollars per hour.
int64_t Micro(const NodeCandidate& n, int gpus) {
  return std::llround(HourlyValueFreed(n.gpus_before, n.gpus_staying + gpus, n.gpu_count, n.hourly_price) * 1e6);
}

// Exhaustive search over every split, scored like the contract says.
struct Best {
  int64_t value = -1;
  int disrupted = 0;
};
Best BruteForce(const std::vector<NodeCandidate>& nodes, int wanted) {
  Best best;
  std::vector<int> b(nodes.size(), 0);
  std::function<void(size_t, int)> rec = [&](size_t i, int left) {
    if (i == nodes.size()) {
      if (left != 0) return;
      int64_t value = 0;
      int disrupted = 0;
      for (size_t k = 0; k < nodes.size(); ++k) {
        value += Micro(nodes[k], b[k]);
        if (b[k] > 0) disrupted += nodes[k].disrupted_pods;
      }
      if (value > best.value || (value == best.value && disrupted < best.disrupted)) {
        best = {value, disrupted};
      }
      return;
    }
    for (int x = 0; x <= std::min(left, nodes[i].capacity); ++x) {
      b[i] = x;
      rec(i + 1, left - x);
    }
    b[i] = 0;
  };
  rec(0, wanted);
  return best;
}

TEST(ChooseNodes, MatchesExhaustiveSearchOnRandomPools) {
  std::mt19937 rng(7);
  const double prices[] = {0, 4.6, 5.672, 32.7726, 43.16, 98.32};
  for (int round = 0; round < 1500; ++round) {
    const int count = 1 + static_cast<int>(rng() % 5);
    std::vector<NodeCandidate> nodes;
    int total = 0;
    for (int i = 0; i < count; ++i) {
      const int gpus = 1 + static_cast<int>(rng() % 8);
      const int staying = static_cast<int>(rng() % (gpus + 1)) / 2;
      const int before = staying + static_cast<int>(rng() % (gpus - staying + 1));
      nodes.push_back(Node(gpus - staying, before, staying, gpus, prices[rng() % 6], staying > 0 ? 1 + staying : 0));
      total += gpus - staying;
    }
    const int wanted = static_cast<int>(rng() % (total + 1));
    const NodeChoice c = ChooseNodes(nodes, wanted);
    ASSERT_EQ(c.placed, wanted);
    int64_t value = 0;
    int disrupted = 0;
    for (size_t k = 0; k < nodes.size(); ++k) {
      ASSERT_GE(c.gpus[k], 0);
      ASSERT_LE(c.gpus[k], nodes[k].capacity);
      value += Micro(nodes[k], c.gpus[k]);
      if (c.gpus[k] > 0) disrupted += nodes[k].disrupted_pods;
    }
    const Best best = BruteForce(nodes, wanted);
    ASSERT_EQ(value, best.value) << "round " << round;
    ASSERT_EQ(disrupted, best.disrupted) << "round " << round;
  }
}

TEST(ChooseNodes, LargePoolsUseTheGreedyAndStayWithinCapacity) {
  // Above kExactLimit: 3,000 nodes x 20,000 GPUs x 8.
  std::vector<NodeCandidate> nodes;
  for (int i = 0; i < 3000; ++i) nodes.push_back(Node(8, 8, 0, 8, i % 2 ? 32.0 : 16.0));
  const NodeChoice c = ChooseNodes(nodes, 20000);
  EXPECT_EQ(c.placed, 20000);
  int cheap_used = 0, dear_used = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    ASSERT_LE(c.gpus[i], 8);
    if (c.gpus[i] > 0) (i % 2 ? dear_used : cheap_used)++;
  }
  // 2,500 nodes are needed: every cheap one first, then 1,000 dear ones.
  EXPECT_EQ(cheap_used, 1500);
  EXPECT_EQ(dear_used, 1000);
}

}  // namespace
}  // namespace kubeon::plan
