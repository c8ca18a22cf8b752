#include "metrics/compute_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <random>
#include <vector>

namespace kubeon::metrics {
namespace {

constexpr double kW = ComputeHistogram::kBinWidth;

// Exact q-quantile: the sample of rank ceil(q * n), computed in integers
// for q given as a fraction num/den.
double ExactQuantile(std::vector<double> v, uint64_t num, uint64_t den) {
  std::sort(v.begin(), v.end());
  uint64_t rank = (num * v.size() + den - 1) / den;
  rank = std::max<uint64_t>(rank, 1);
  return v[rank - 1];
}

TEST(ComputeHistogramTest, EmptyHistogramHasNoBinsAndZeroQuantiles) {
  ComputeHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Quantile(0.99), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.MemoryBytes(), sizeof(ComputeHistogram));
}

TEST(ComputeHistogramTest, QuantileIsUpperBinEdgeCappedAtMax) {
  ComputeHistogram h;
  h.Add(0.1001);
  h.Add(0.5001);
  h.Add(0.9);
  EXPECT_EQ(h.count(), 3u);
  EXPECT_DOUBLE_EQ(h.max(), 0.9);
  // 0.1001 lies in bin 40 = [0.1, 0.1025).
  EXPECT_DOUBLE_EQ(h.Quantile(0.0), 41.0 / 400);
  EXPECT_DOUBLE_EQ(h.Quantile(1.0 / 3), 41.0 / 400);
  EXPECT_DOUBLE_EQ(h.Quantile(0.5), 201.0 / 400);
  // The top bin's upper edge 0.9025 exceeds the exact max: capped.
  EXPECT_DOUBLE_EQ(h.Quantile(1.0), 0.9);
}

TEST(ComputeHistogramTest, IdleSamplesGiveZero) {
  ComputeHistogram h;
  for (int i = 0; i < 100; ++i) h.Add(0.0);
  EXPECT_EQ(h.Quantile(0.99), 0.0);
}

TEST(ComputeHistogramTest, ValuesAboveOneClampToOne) {
  ComputeHistogram h;
  h.Add(1.0000001);
  h.Add(7);
  EXPECT_DOUBLE_EQ(h.max(), 1.0);
  EXPECT_DOUBLE_EQ(h.Quantile(0.5), 1.0);
  EXPECT_EQ(ComputeHistogram::BinOf(1.0), ComputeHistogram::kBins - 1);
}

TEST(ComputeHistogramTest, QuantileWithinOneBinOfExactOnRandomData) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uni(0, 1);
  std::gamma_distribution<double> skew(2.0, 0.1);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> v;
    ComputeHistogram h;
    int n = 1 + static_cast<int>(rng() % 5000);
    for (int i = 0; i < n; ++i) {
      double x = trial % 2 ? uni(rng) : std::min(1.0, skew(rng));
      v.push_back(x);
      h.Add(x);
    }
    for (auto [num, den] : {std::pair<uint64_t, uint64_t>{1, 2}, {9, 10}, {99, 100}, {999, 1000},
                            {1, 1}}) {
      double exact = ExactQuantile(v, num, den);
      double got = h.Quantile(static_cast<double>(num) / den);
      EXPECT_GE(got, exact) << "n=" << n << " q=" << num << "/" << den;
      EXPECT_LE(got, exact + kW + 1e-12) << "n=" << n << " q=" << num << "/" << den;
    }
  }
}

TEST(ComputeHistogramTest, RankUsesCeilingWithoutFloatingDrift) {
  // 100 samples: 99 at 0.1, one at 0.9.  The 0.99-quantile is rank 99 (0.1),
  // even though 0.99 * 100 may round above 99.
  ComputeHistogram h;
  for (int i = 0; i < 99; ++i) h.Add(0.1);
  h.Add(0.9);
  EXPECT_LT(h.Quantile(0.99), 0.2);
  EXPECT_DOUBLE_EQ(h.Quantile(1.0), 0.9);
}

TEST(ComputeHistogramTest, MergeEqualsAddingBothSets) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uni(0, 1);
  ComputeHistogram a, b, all;
  for (int i = 0; i < 1000; ++i) {
    double x = uni(rng);
    (i % 3 ? a : b).Add(x);
    all.Add(x);
  }
  ComputeHistogram empty;
  a.Merge(empty);
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.max(), all.max());
  for (double q : {0.0, 0.25, 0.5, 0.75, 0.99, 1.0}) EXPECT_EQ(a.Quantile(q), all.Quantile(q));
  empty.Merge(all);
  EXPECT_EQ(empty.Quantile(0.5), all.Quantile(0.5));
}

TEST(ComputeHistogramTest, MemoryIsBoundedInTheNumberOfSamples) {
  ComputeHistogram h;
  for (int i = 0; i < 24; ++i) h.Add(i / 24.0);
  const size_t few = h.MemoryBytes();
  EXPECT_LE(few, sizeof(ComputeHistogram) + ComputeHistogram::kSmallSamples * sizeof(uint16_t))
      << "a few samples are kept as bin numbers, not as kBins counters";
  for (int i = 0; i < 1000000; ++i) h.Add((i % 1000) / 1000.0);
  EXPECT_LE(h.MemoryBytes(), ComputeHistogram::kMaxMemoryBytes);
  const size_t many = h.MemoryBytes();
  for (int i = 0; i < 1000000; ++i) h.Add((i % 1000) / 1000.0);
  EXPECT_EQ(h.MemoryBytes(), many);
}

// The rule of the contract, computed directly from the samples.
double ExpectedQuantile(std::vector<double> samples, double q) {
  for (double& x : samples) x = std::clamp(x, 0.0, 1.0);
  std::sort(samples.begin(), samples.end());
  const double x = q * static_cast<double>(samples.size());
  const size_t rank = std::clamp<size_t>(static_cast<size_t>(std::ceil(x - x * 1e-12)), 1, samples.size());
  const double upper = static_cast<double>(ComputeHistogram::BinOf(samples[rank - 1]) + 1) / ComputeHistogram::kBins;
  return std::min(upper, samples.back());
}

// Both representations (bin numbers below kSmallSamples samples, counters
// above), and merges across them, give the contract's quantile.
TEST(ComputeHistogramTest, SmallAndFullRepresentationsAgree) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> ratio(0.0, 1.2);
  for (int n : {1, 2, 23, 63, 64, 65, 66, 200}) {
    for (int split : {0, 1, n / 2, n}) {
      std::vector<double> samples;
      ComputeHistogram a, b, whole;
      for (int i = 0; i < n; ++i) {
        const double x = ratio(rng);
        samples.push_back(x);
        (i < split ? a : b).Add(x);
        whole.Add(x);
      }
      a.Merge(b);
      for (double q : {0.0, 0.1, 0.5, 0.9, 0.95, 0.99, 1.0}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " split=" + std::to_string(split) + " q=" + std::to_string(q));
        EXPECT_EQ(whole.Quantile(q), ExpectedQuantile(samples, q));
        EXPECT_EQ(a.Quantile(q), whole.Quantile(q));
      }
      EXPECT_EQ(a.count(), static_cast<uint64_t>(n));
    }
  }
}

// ReinterpretAsPercent moves samples the same way in both representations.
TEST(ComputeHistogramTest, ReinterpretAsPercentAgreesAcrossRepresentations) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ratio(0.0, 1.0);
  std::vector<double> xs;
  for (int i = 0; i < 30; ++i) xs.push_back(ratio(rng));
  xs.push_back(1.0);  // clamped: read as `top` percent
  ComputeHistogram small, full;
  for (double x : xs) small.Add(x);
  for (int copy = 0; copy < 3; ++copy) {  // 93 samples: counters
    for (double x : xs) full.Add(x);
  }
  small.ReinterpretAsPercent(1.5);
  full.ReinterpretAsPercent(1.5);
  EXPECT_EQ(small.max(), full.max());
  for (double q : {0.0, 0.2, 0.5, 0.8, 1.0}) EXPECT_EQ(small.Quantile(q), full.Quantile(q)) << q;
}

TEST(ComputeHistogramTest, ReinterpretAsPercentIsNeverBelowTheExactValue) {
  ComputeHistogram h;
  for (double v : {0.0, 0.3, 0.99, 1.0, 1.4}) h.Add(v);  // percent values read as ratios (1.4 clamped)
  h.ReinterpretAsPercent(1.5);
  EXPECT_EQ(h.count(), 5u);
  EXPECT_DOUBLE_EQ(h.max(), 0.015);
  EXPECT_GE(h.Quantile(1.0), 0.014);
  EXPECT_LE(h.Quantile(1.0), 0.015);
  EXPECT_GE(h.Quantile(0.4), 0.003);
  EXPECT_LE(h.Quantile(0.4), 0.003 + 2 * ComputeHistogram::kBinWidth);
  // Later samples, divided by the caller, land where they belong.
  h.Add(0.85);
  EXPECT_DOUBLE_EQ(h.Quantile(1.0), 0.85);
  ComputeHistogram empty;
  empty.ReinterpretAsPercent(1.5);
  EXPECT_EQ(empty.count(), 0u);
}

}  // namespace
}  // namespace kubeon::metrics
