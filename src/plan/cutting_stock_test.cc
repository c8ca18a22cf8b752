// Tests for cutting_stock.h on abstract bin packing (kinds with sizes, one
// capacity): the LP on hand-solved cases, SolveCover against an independent
// exhaustive search, the rounding path and the budget.  The MIG families are
// tested through MigPacker (mig_packer_test.cc).
#include "plan/cutting_stock.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

namespace kubeon::plan {
namespace {

// Maximal count vectors with sum(count * size) <= capacity.
std::vector<CountVector> MaximalBinPacking(const std::vector<int>& sizes, int capacity) {
  std::vector<CountVector> all;
  CountVector c(sizes.size(), 0);
  std::function<void(size_t, int)> go = [&](size_t i, int room) {
    if (i == sizes.size()) {
      for (size_t j = 0; j < sizes.size(); ++j) {
        if (sizes[j] <= room) return;  // not maximal
      }
      all.push_back(c);
      return;
    }
    for (c[i] = 0; c[i] * sizes[i] <= room; ++c[i]) go(i + 1, room - c[i] * sizes[i]);
    c[i] = 0;
  };
  go(0, capacity);
  return all;
}

CoverOptions OptionsFor(const std::vector<int>& sizes) {
  CoverOptions o;
  o.priority.resize(sizes.size());
  std::iota(o.priority.begin(), o.priority.end(), 0);
  std::stable_sort(o.priority.begin(), o.priority.end(), [&](int a, int b) { return sizes[a] > sizes[b]; });
  o.weight.assign(sizes.begin(), sizes.end());
  return o;
}

// One bin per item: always a covering.
std::vector<CountVector> OneEach(const CountVector& demand) {
  std::vector<CountVector> bins;
  for (size_t j = 0; j < demand.size(); ++j) {
    for (int k = 0; k < demand[j]; ++k) {
      CountVector c(demand.size(), 0);
      c[j] = 1;
      bins.push_back(c);
    }
  }
  return bins;
}

// Independent exact answer: items one by one into an open bin or a new one.
int ExhaustiveMinBins(const std::vector<int>& sizes, int capacity, const CountVector& demand) {
  std::vector<int> items;
  for (size_t j = 0; j < demand.size(); ++j) items.insert(items.end(), static_cast<size_t>(demand[j]), sizes[j]);
  std::sort(items.rbegin(), items.rend());
  int best = static_cast<int>(items.size());
  std::vector<int> load;
  std::function<void(size_t)> go = [&](size_t i) {
    if (static_cast<int>(load.size()) >= best) return;
    if (i == items.size()) {
      best = static_cast<int>(load.size());
      return;
    }
    for (size_t b = 0; b < load.size(); ++b) {
      if (load[b] + items[i] > capacity) continue;
      load[b] += items[i];
      go(i + 1);
      load[b] -= items[i];
    }
    load.push_back(items[i]);
    go(i + 1);
    load.pop_back();
  };
  go(0);
  return best;
}

void ExpectValidPartition(const std::vector<CountVector>& bins, const std::vector<int>& sizes, int capacity,
                          const CountVector& demand) {
  CountVector sum(demand.size(), 0);
  for (const CountVector& b : bins) {
    int load = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      load += b[j] * sizes[j];
      sum[j] += b[j];
    }
    EXPECT_LE(load, capacity);
    EXPECT_GT(load, 0);
  }
  EXPECT_EQ(sum, demand);
}

TEST(CoverLp, HandSolvedCases) {
  // One kind, three to a bin: 7 items need 7/3 bins.
  CoverLp lp = SolveCoverLp({{3}}, {7});
  EXPECT_NEAR(lp.value, 7.0 / 3.0, 1e-9);
  EXPECT_NEAR(lp.x[0], 7.0 / 3.0, 1e-9);
  EXPECT_EQ(CeilBound(lp.value), 3);
  // Sizes 6 and 4 in bins of 10, two of each: two {6,4} bins, LP 2.
  const std::vector<CountVector> l64 = MaximalBinPacking({6, 4}, 10);
  lp = SolveCoverLp(l64, {2, 2});
  EXPECT_NEAR(lp.value, 2.0, 1e-9);
  // Three of size 6 and nothing else: 3 bins.
  EXPECT_NEAR(SolveCoverLp(l64, {3, 0}).value, 3.0, 1e-9);
  // Sizes 5 and 3 in bins of 10 ({2,0}, {1,1}, {0,3}): 3 of size 5 and 3 of
  // size 3 -> y5 = 1/2, y3 = 1/3 is dual optimal, value 3/2 + 1 = 2.5.
  lp = SolveCoverLp(MaximalBinPacking({5, 3}, 10), {3, 3});
  EXPECT_NEAR(lp.value, 2.5, 1e-9);
  // Zero demand.
  EXPECT_EQ(SolveCoverLp(l64, {0, 0}).value, 0.0);
  // The primal solution covers the demand.
  for (const CountVector& d : {CountVector{5, 1}, CountVector{1, 7}, CountVector{4, 4}}) {
    lp = SolveCoverLp(l64, d);
    double total = 0;
    for (size_t j = 0; j < d.size(); ++j) {
      double covered = 0;
      for (size_t l = 0; l < l64.size(); ++l) covered += lp.x[l] * l64[l][j];
      EXPECT_GE(covered, d[j] - 1e-7);
    }
    for (double x : lp.x) total += x;
    EXPECT_NEAR(total, lp.value, 1e-7);
  }
  EXPECT_EQ(CeilBound(2.0000000001), 2);
  EXPECT_EQ(CeilBound(2.01), 3);
}

TEST(CoverTrim, CutsToDemandAndDropsEmptyBins) {
  EXPECT_EQ(TrimToDemand({{2, 1}, {2, 0}, {0, 3}}, {3, 1}), (std::vector<CountVector>{{2, 1}, {1, 0}}));
  EXPECT_TRUE(TrimToDemand({{1, 1}}, {0, 0}).empty());
}

// Random bin-packing pools against the exhaustive search.
TEST(Cover, ExactOnRandomBinPackingPools) {
  std::mt19937_64 rng(7);
  int pools = 0;
  for (int round = 0; round < 400; ++round) {
    const int kinds = 1 + static_cast<int>(rng() % 4);
    const int capacity = 6 + static_cast<int>(rng() % 10);
    std::vector<int> sizes;
    for (int k = 0; k < kinds; ++k) sizes.push_back(1 + static_cast<int>(rng() % static_cast<uint64_t>(capacity)));
    CountVector demand(sizes.size());
    int items = 0;
    for (int& d : demand) items += d = static_cast<int>(rng() % 4);
    if (items == 0 || items > 10) continue;
    const std::vector<CountVector> layouts = MaximalBinPacking(sizes, capacity);
    const Cover cover = SolveCover(layouts, demand, OptionsFor(sizes), OneEach(demand));
    const int best = ExhaustiveMinBins(sizes, capacity, demand);
    ASSERT_EQ(static_cast<int>(cover.bins.size()), best) << ::testing::PrintToString(sizes) << " cap " << capacity
                                                          << " demand " << ::testing::PrintToString(demand);
    EXPECT_TRUE(cover.optimal);
    EXPECT_LE(CeilBound(cover.lp_bound), best);
    ExpectValidPartition(cover.bins, sizes, capacity, demand);
    ++pools;
  }
  EXPECT_GT(pools, 200);
}

TEST(Cover, LargePoolsUseRoundingAndStayNearTheLpBound) {
  const std::vector<int> sizes = {7, 5, 3, 2};
  const int capacity = 12;
  const std::vector<CountVector> layouts = MaximalBinPacking(sizes, capacity);
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    CountVector demand(sizes.size());
    for (int& d : demand) d = static_cast<int>(rng() % 2000);
    CoverOptions options = OptionsFor(sizes);
    options.exact_max_items = 50;  // force the rounding path
    const Cover cover = SolveCover(layouts, demand, options, OneEach(demand));
    ExpectValidPartition(cover.bins, sizes, capacity, demand);
    EXPECT_LE(static_cast<int>(cover.bins.size()), CeilBound(cover.lp_bound) + 1)
        << ::testing::PrintToString(demand);
    EXPECT_EQ(cover.lower_bound, CeilBound(cover.lp_bound));
  }
}

TEST(Cover, ExhaustedBudgetReturnsTheUpperBound) {
  const std::vector<int> sizes = {6, 4};
  const std::vector<CountVector> layouts = MaximalBinPacking(sizes, 10);
  CoverOptions options = OptionsFor(sizes);
  options.node_budget = 0;
  const CountVector demand = {2, 2};
  const Cover cover = SolveCover(layouts, demand, options, OneEach(demand));
  EXPECT_EQ(cover.bins.size(), 4u);
  EXPECT_FALSE(cover.optimal);
  EXPECT_EQ(cover.lower_bound, 2);
  options.node_budget = 100;
  EXPECT_EQ(SolveCover(layouts, demand, options, OneEach(demand)).bins.size(), 2u);
  // Zero demand: nothing to pack, trivially optimal.
  const Cover none = SolveCover(layouts, {0, 0}, options, {});
  EXPECT_TRUE(none.bins.empty());
  EXPECT_TRUE(none.optimal);
}

}  // namespace
}  // namespace kubeon::plan
