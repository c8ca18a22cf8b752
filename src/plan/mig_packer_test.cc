// Tests for mig_packer.h: valid layouts, the demo's H100 pool, packing equal
// to the exact optimum (exhaustive search) on random small pools of every
// catalogued MIG model, and large pools near the LP bound.
#include "plan/mig_packer.h"

#include <functional>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "mig/layout.h"
#include "plan/cutting_stock.h"

namespace kubeon::plan {
namespace {

const mig::GpuModel& A100() { return *mig::MigCatalog::Builtin().FindModel("A100-40GB"); }

int IndexOf(const mig::GpuModel& m, const std::string& name) {
  for (size_t i = 0; i < m.profiles.size(); ++i) {
    if (m.profiles[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << name;
  return 0;
}

// Minimum number of GPUs by exhaustive search (items <= ~10): every way of
// putting the items, one by one, into an open GPU or a new one, each GPU
// checked with mig::LayoutFits (memoised per multiset, which only saves time).
int ExactOptimum(const mig::GpuModel& m, const std::vector<int>& items) {
  int best = static_cast<int>(items.size());
  std::map<std::vector<int>, bool> fits;
  auto layout_fits = [&](const std::vector<int>& counts) {
    auto it = fits.find(counts);
    if (it != fits.end()) return it->second;
    std::vector<std::string> names;
    for (size_t p = 0; p < counts.size(); ++p) names.insert(names.end(), static_cast<size_t>(counts[p]), m.profiles[p].name);
    return fits[counts] = mig::LayoutFits(m, names);
  };
  std::vector<std::vector<int>> bins;
  std::function<void(size_t)> go = [&](size_t i) {
    if (static_cast<int>(bins.size()) >= best) return;
    if (i == items.size()) {
      best = static_cast<int>(bins.size());
      return;
    }
    const auto p = static_cast<size_t>(items[i]);
    for (size_t b = 0; b < bins.size(); ++b) {  // index: go() may grow bins
      ++bins[b][p];
      if (layout_fits(bins[b])) go(i + 1);
      --bins[b][p];
    }
    bins.emplace_back(m.profiles.size(), 0);
    ++bins.back()[p];
    go(i + 1);
    bins.pop_back();
  };
  go(0);
  return best;
}

TEST(MigPacker, EveryBinIsAValidLayoutAndHoldsEveryItemOnce) {
  const auto& m = A100();
  MigPacker packer(m);
  std::vector<int> items;
  for (const char* p : {"3g.20gb", "3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb", "1g.5gb", "4g.20gb", "1g.10gb", "2g.10gb"}) {
    items.push_back(IndexOf(m, p));
  }
  std::vector<MigBin> bins = packer.Pack(items);
  std::vector<int> seen(items.size(), 0);
  for (const auto& b : bins) {
    EXPECT_TRUE(mig::LayoutFits(m, packer.Names(b.counts)));
    for (int i : b.items) ++seen[i];
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_GE(static_cast<int>(bins.size()), MigLowerBound(m, items));
}

TEST(MigPacker, KnownOptimalLayouts) {
  const auto& m = A100();
  MigPacker packer(m);
  // 7 x 1g.5gb fill one GPU.
  EXPECT_EQ(packer.Pack(std::vector<int>(7, IndexOf(m, "1g.5gb"))).size(), 1u);
  // 3g + 3g fill one GPU; a third 3g needs another.
  EXPECT_EQ(packer.Pack(std::vector<int>(3, IndexOf(m, "3g.20gb"))).size(), 2u);
  // 4g + 2g + 1g is a valid single GPU.
  EXPECT_EQ(packer.Pack({IndexOf(m, "4g.20gb"), IndexOf(m, "2g.10gb"), IndexOf(m, "1g.5gb")}).size(), 1u);
  // Two 4g never share a GPU.
  EXPECT_EQ(packer.Pack({IndexOf(m, "4g.20gb"), IndexOf(m, "4g.20gb")}).size(), 2u);
  // Names are largest first.
  std::vector<int> counts(m.profiles.size(), 0);
  counts[IndexOf(m, "1g.5gb")] = 1;
  counts[IndexOf(m, "3g.20gb")] = 1;
  EXPECT_EQ(packer.Names(counts), (std::vector<std::string>{"3g.20gb", "1g.5gb"}));
}

std::vector<int> Items(const mig::GpuModel& m, std::initializer_list<std::pair<const char*, int>> spec) {
  std::vector<int> items;
  for (const auto& [name, n] : spec) items.insert(items.end(), static_cast<size_t>(n), IndexOf(m, name));
  return items;
}

// Every bin a valid layout, every item in exactly one bin, counts agree.
void ExpectValidPacking(const mig::GpuModel& m, MigPacker& packer, const std::vector<int>& items,
                        const std::vector<MigBin>& bins) {
  std::vector<int> seen(items.size(), 0);
  for (const MigBin& b : bins) {
    ASSERT_TRUE(mig::LayoutFits(m, packer.Names(b.counts))) << m.id << ": " << ::testing::PrintToString(packer.Names(b.counts));
    std::vector<int> counts(m.profiles.size(), 0);
    for (int i : b.items) {
      ++seen[static_cast<size_t>(i)];
      ++counts[static_cast<size_t>(items[static_cast<size_t>(i)])];
    }
    EXPECT_EQ(counts, b.counts);
    EXPECT_FALSE(b.items.empty());
  }
  for (int s : seen) ASSERT_EQ(s, 1);
}

// The demo's node ip-10-5-42-245: best fit needs 4 GPUs, 3 suffice.
TEST(MigPacker, DemoH100PoolNeedsThreeGpusNotFour) {
  const mig::GpuModel& m = *mig::MigCatalog::Builtin().FindModel("H100-80GB");
  const std::vector<int> items = Items(m, {{"3g.40gb", 4}, {"2g.20gb", 3}, {"1g.10gb", 2}});
  MigPacker packer(m);
  EXPECT_EQ(packer.PackBestFit(items).size(), 4u);
  const std::vector<MigBin> bins = packer.Pack(items);
  ExpectValidPacking(m, packer, items, bins);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_TRUE(packer.last_optimal());
  EXPECT_EQ(ExactOptimum(m, items), 3);
  std::vector<std::vector<std::string>> names;
  for (const MigBin& b : bins) names.push_back(packer.Names(b.counts));
  // Heaviest (memory, then compute slices) first.
  const std::vector<std::vector<std::string>> want = {{"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"},
                                                      {"3g.40gb", "2g.20gb", "2g.20gb"},
                                                      {"3g.40gb", "3g.40gb"}};
  EXPECT_EQ(names, want);
  EXPECT_EQ(MigLpLowerBound(m, items), 3);
  // Deterministic: the same answer again, from a fresh packer too.
  MigPacker again(m);
  const std::vector<MigBin> second = again.Pack(items);
  ASSERT_EQ(second.size(), bins.size());
  for (size_t i = 0; i < bins.size(); ++i) {
    EXPECT_EQ(second[i].items, bins[i].items);
    EXPECT_EQ(second[i].counts, bins[i].counts);
  }
}

TEST(MigPacker, LpBoundLiesBetweenTheSumBoundAndTheOptimum) {
  const auto& m = A100();
  // 3 x 4g.20gb: sums say 2 GPUs (12/7 compute), two 4g never share a GPU.
  const std::vector<int> fours = Items(m, {{"4g.20gb", 3}});
  EXPECT_EQ(MigLowerBound(m, fours), 2);
  EXPECT_NEAR(MigLpBound(m, fours), 3.0, 1e-9);
  EXPECT_EQ(MigLpLowerBound(m, fours), 3);
  EXPECT_EQ(MigLpBound(m, {}), 0.0);
  // 7 x 1g.5gb + 1 x 7g.40gb: exactly 2 GPUs.
  EXPECT_NEAR(MigLpBound(m, Items(m, {{"1g.5gb", 7}, {"7g.40gb", 1}})), 2.0, 1e-9);
}

// Every MIG model of the catalog, thousands of random pools, against an
// exhaustive search over set partitions (mig::LayoutFits per bin; shares
// nothing with the packer's layout enumeration, LP or search).
TEST(MigPacker, OptimalOnRandomPoolsOfEveryModel) {
  std::mt19937_64 rng(42);
  const auto& catalog = mig::MigCatalog::Builtin();
  int total = 0, models = 0, beaten = 0;
  for (const mig::GpuModel& m : catalog.models()) {
    if (!m.mig_capable) continue;
    ++models;
    // Mostly small profiles, so that pools need several mixed GPUs.
    std::vector<int> usable;
    for (size_t i = 0; i < m.profiles.size(); ++i) {
      const auto& p = m.profiles[i];
      const int copies = p.media_extensions ? 1 : (p.compute_slices == m.compute_slices ? 1 : 4);
      usable.insert(usable.end(), static_cast<size_t>(copies), static_cast<int>(i));
    }
    MigPacker packer(m);  // reused: nothing of one pool may leak into the next
    for (int round = 0; round < 250; ++round) {
      std::vector<int> items;
      const int n = 3 + static_cast<int>(rng() % 8);
      for (int i = 0; i < n; ++i) items.push_back(usable[rng() % usable.size()]);
      const std::vector<MigBin> bins = packer.Pack(items);
      ExpectValidPacking(m, packer, items, bins);
      const int best = ExactOptimum(m, items);
      ASSERT_EQ(static_cast<int>(bins.size()), best) << m.id << " " << ::testing::PrintToString(items);
      EXPECT_TRUE(packer.last_optimal());
      const int lp = CeilBound(packer.last_lp_bound());
      EXPECT_LE(lp, best);
      EXPECT_GE(lp, MigLowerBound(m, items));
      if (round < 10) {
        EXPECT_EQ(MigLpLowerBound(m, items), lp);  // a fresh packer agrees
      }
      beaten += static_cast<int>(packer.PackBestFit(items).size()) > best;
      ++total;
    }
  }
  EXPECT_GE(models, 13);
  std::printf("packing: optimal on all %d random pools of %d models; best fit used a GPU more on %d\n", total, models,
              beaten);
}

// Large pools take the LP-rounding path: valid, within a GPU of the LP bound,
// never worse than best fit.
TEST(MigPacker, LargePoolsStayWithinOneGpuOfTheLpBound) {
  std::mt19937_64 rng(5);
  const auto& catalog = mig::MigCatalog::Builtin();
  for (const char* id : {"A100-40GB", "H100-80GB", "A30"}) {
    const mig::GpuModel& m = *catalog.FindModel(id);
    for (int round = 0; round < 3; ++round) {
      std::vector<int> items;
      const int n = 1000 + static_cast<int>(rng() % 3000);
      for (int i = 0; i < n; ++i) {
        int p;
        do p = static_cast<int>(rng() % m.profiles.size());
        while (m.profiles[static_cast<size_t>(p)].media_extensions);
        items.push_back(p);
      }
      MigPacker packer(m);
      const std::vector<MigBin> bins = packer.Pack(items);
      ExpectValidPacking(m, packer, items, bins);
      EXPECT_LE(static_cast<int>(bins.size()), MigLpLowerBound(m, items) + 1) << id;
      EXPECT_LE(bins.size(), packer.PackBestFit(items).size()) << id;
      EXPECT_NEAR(packer.last_lp_bound(), MigLpBound(m, items), 1e-6);
    }
  }
}

}  // namespace
}  // namespace kubeon::plan
