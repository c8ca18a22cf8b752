// Tests for mig_packer.h: valid layouts, and packing compared with the exact
// optimum (exhaustive search) on small random instances.
#include "plan/mig_packer.h"

#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "mig/layout.h"

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

// Minimum number of GPUs by exhaustive search (items <= ~10).
int ExactOptimum(const mig::GpuModel& m, const std::vector<int>& items) {
  int best = static_cast<int>(items.size());
  std::vector<std::vector<std::string>> bins;
  std::function<void(size_t)> go = [&](size_t i) {
    if (static_cast<int>(bins.size()) >= best) return;
    if (i == items.size()) {
      best = static_cast<int>(bins.size());
      return;
    }
    const std::string& name = m.profiles[items[i]].name;
    for (size_t b = 0; b < bins.size(); ++b) {  // index: go() may grow bins
      bins[b].push_back(name);
      if (mig::LayoutFits(m, bins[b])) go(i + 1);
      bins[b].pop_back();
    }
    bins.push_back({name});
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

TEST(MigPacker, ComparedWithExactOptimumOnRandomInstances) {
  std::mt19937_64 rng(42);
  const auto& catalog = mig::MigCatalog::Builtin();
  int optimal = 0, total = 0, worst_gap = 0;
  for (const char* model_id : {"A100-40GB", "A30", "H100-80GB"}) {
    const mig::GpuModel* m = catalog.FindModel(model_id);
    ASSERT_NE(m, nullptr) << model_id;
    std::vector<int> usable;
    for (size_t i = 0; i < m->profiles.size(); ++i) {
      const auto& p = m->profiles[i];
      if (!p.media_extensions && p.compute_slices < m->compute_slices) usable.push_back(static_cast<int>(i));
    }
    for (int round = 0; round < 150; ++round) {
      std::vector<int> items;
      const int n = 1 + static_cast<int>(rng() % 9);
      for (int i = 0; i < n; ++i) items.push_back(usable[rng() % usable.size()]);
      MigPacker packer(*m);
      const int got = static_cast<int>(packer.Pack(items).size());
      const int best = ExactOptimum(*m, items);
      ASSERT_GE(got, best);
      ASSERT_GE(best, MigLowerBound(*m, items)) << model_id << " " << ::testing::PrintToString(packer.Names([&] { std::vector<int> c(m->profiles.size()); for (int i : items) ++c[i]; return c; }()));
      optimal += got == best;
      worst_gap = std::max(worst_gap, got - best);
      ++total;
    }
  }
  // Best-fit decreasing is not exact in general; it must be within one GPU
  // of the optimum on these sizes and optimal in the vast majority of cases.
  EXPECT_LE(worst_gap, 1);
  EXPECT_GE(optimal * 100, total * 95) << optimal << " of " << total << " optimal";
  std::printf("packing: optimal on %d of %d random instances, worst gap %d GPU\n", optimal, total, worst_gap);
}

}  // namespace
}  // namespace kubeon::plan
