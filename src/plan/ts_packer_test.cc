// Tests for ts_packer.h: the node-level safety rule (any `replicas` pods on
// the node fit one GPU), replica bounds and capacity.
#include "plan/ts_packer.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

namespace kubeon::plan {
namespace {

TEST(TsNodeFill, FillsUpToGpusTimesSafeReplicas) {
  TsNodeFill f(/*gpus=*/2, /*gpu_memory_mib=*/24000, /*max_replicas=*/4);
  for (int i = 0; i < 10; ++i) f.TryAdd(i, {6000, 0.1});
  // 4 x 6000 = 24000 fits: r = 4, capacity 8 pods.
  EXPECT_EQ(f.items().size(), 8u);
  EXPECT_EQ(f.replicas(), 4);
  EXPECT_EQ(f.gpus_used(), 2);
}

TEST(TsNodeFill, ComputeLimitsReplicas) {
  TsNodeFill f(1, 80000, 8);
  for (int i = 0; i < 5; ++i) f.TryAdd(i, {1000, 0.45});
  EXPECT_EQ(f.items().size(), 2u);  // 3 x 0.45 > 1
}

TEST(TsNodeFill, RejectsAnItemThatBreaksTheLargestReplicasRule) {
  TsNodeFill f(1, 24000, 4);
  EXPECT_TRUE(f.TryAdd(0, {5000, 0.1}));
  EXPECT_TRUE(f.TryAdd(1, {5000, 0.1}));
  EXPECT_FALSE(f.TryAdd(2, {20000, 0.1}));  // 20000 + 5000 > 24000 with r = 3 needed
  EXPECT_EQ(f.replicas(), 2);
}

TEST(TsNodeFill, SingleGpuNodeNeverExceedsMaxReplicas) {
  TsNodeFill f(1, 100000, 3);
  for (int i = 0; i < 10; ++i) f.TryAdd(i, {10, 0.01});
  EXPECT_EQ(f.items().size(), 3u);
  EXPECT_EQ(f.replicas(), 3);
}

// Property: for random inputs, every subset of `replicas` items fits one GPU
// (checked through the largest `replicas`, which dominate every subset).
TEST(TsNodeFill, PropertyAnyReplicasPodsFit) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 500; ++round) {
    const int gpus = 1 + static_cast<int>(rng() % 8);
    const int64_t mem = 16000 + static_cast<int64_t>(rng() % 64000);
    const int maxr = 1 + static_cast<int>(rng() % 8);
    TsNodeFill f(gpus, mem, maxr);
    std::vector<TsItem> items;
    for (int i = 0; i < 40; ++i) items.push_back({static_cast<int64_t>(rng() % (mem / 2)), (rng() % 60) / 100.0});
    std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.memory_mib > b.memory_mib; });
    for (int i = 0; i < 40; ++i) f.TryAdd(i, items[i]);
    if (f.items().empty()) continue;
    const int r = f.replicas();
    ASSERT_GE(r, 1);
    ASSERT_LE(r, maxr);
    ASSERT_LE(static_cast<int>(f.items().size()), gpus * r);
    std::vector<int64_t> m;
    std::vector<double> c;
    for (int i : f.items()) {
      m.push_back(items[i].memory_mib);
      c.push_back(items[i].compute);
    }
    std::sort(m.rbegin(), m.rend());
    std::sort(c.rbegin(), c.rend());
    int64_t ms = 0;
    double cs = 0;
    for (int k = 0; k < r && k < static_cast<int>(m.size()); ++k) {
      ms += m[k];
      cs += c[k];
    }
    EXPECT_LE(ms, mem);
    EXPECT_LE(cs, 1.0 + 1e-9);
  }
}

}  // namespace
}  // namespace kubeon::plan
