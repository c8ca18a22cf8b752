#include "metrics/sample_coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

namespace kubeon::metrics {
namespace {

constexpr int64_t kMin = 60 * 1000;
constexpr int64_t kHour = 60 * kMin;
constexpr int64_t kDay = 24 * kHour;

// The rule, computed the obvious way: sort, sum the gaps up to the limit.
int64_t Naive(std::vector<int64_t> ts) {
  std::sort(ts.begin(), ts.end());
  int64_t total = 0;
  for (size_t i = 1; i < ts.size(); ++i) {
    if (ts[i] - ts[i - 1] <= kMaxSampleGapMs) total += ts[i] - ts[i - 1];
  }
  return total;
}

TEST(SampleCoverageTest, RegularSeriesCoversItsSpan) {
  SampleCoverage c;
  for (int i = 0; i < 24 * 120; ++i) c.Add(1790000000000 + i * 30 * 1000);  // 30 s for a day
  EXPECT_EQ(c.CoveredMs(), (24 * 120 - 1) * 30 * 1000);
  EXPECT_EQ(c.runs().size(), 1u);
  SampleCoverage hourly;
  for (int i = 0; i < 49; ++i) hourly.Add(1790000000000 + i * kHour);
  EXPECT_EQ(hourly.CoveredMs(), 48 * kHour);
}

// Issue 14: one stray sample (timestamp 1, a year-old leftover) stretched a
// pod's history to years and defeated --min-history.
TEST(SampleCoverageTest, StraySampleAddsNothing) {
  SampleCoverage c;
  c.Add(1000);  // 1970
  for (int i = 0; i < 10; ++i) c.Add(1790000000000 + i * 5 * kMin);
  c.Add(1790000000000 - 30 * kDay);  // a month before
  EXPECT_EQ(c.CoveredMs(), 45 * kMin);
  EXPECT_EQ(c.runs().size(), 3u);
  // A lone sample covers nothing; a sample within the gap limit of the data
  // adds at most that gap.
  SampleCoverage one;
  one.Add(1790000000000);
  EXPECT_EQ(one.CoveredMs(), 0);
  one.Add(1790000000000 + kMaxSampleGapMs);
  EXPECT_EQ(one.CoveredMs(), kMaxSampleGapMs);
  one.Add(1790000000000 + 2 * kMaxSampleGapMs + 1);
  EXPECT_EQ(one.CoveredMs(), kMaxSampleGapMs);
}

TEST(SampleCoverageTest, DuplicatesAndOrderDoNotMatter) {
  std::mt19937_64 rng(14);
  for (int round = 0; round < 200; ++round) {
    std::vector<int64_t> ts;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) ts.push_back(static_cast<int64_t>(rng() % (3 * kDay)) / 7);
    for (int i = 0; i < n / 3; ++i) ts.push_back(ts[rng() % ts.size()]);  // duplicates
    SampleCoverage in_order, shuffled, a, b;
    std::vector<int64_t> sorted = ts;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t t : sorted) in_order.Add(t);
    std::shuffle(ts.begin(), ts.end(), rng);
    for (int64_t t : ts) shuffled.Add(t);
    // Split in two halves merged afterwards (file pieces, several files).
    for (size_t i = 0; i < ts.size(); ++i) (i % 2 ? a : b).Add(ts[i]);
    a.Merge(b);
    EXPECT_EQ(in_order.CoveredMs(), Naive(ts)) << round;
    EXPECT_EQ(shuffled.runs(), in_order.runs()) << round;
    EXPECT_EQ(a.runs(), in_order.runs()) << round;
  }
}

TEST(SampleCoverageTest, RunsAreBoundedAndOnlyUnderCount) {
  SampleCoverage c;
  // 1,000 short stretches separated by holes: memory stays at the cap.
  for (int i = 0; i < 1000; ++i) {
    const int64_t start = i * 10 * kHour;
    c.Add(start);
    c.Add(start + (i % 7 + 1) * kMin);
  }
  EXPECT_EQ(c.runs().size(), kMaxCoverageRuns);
  EXPECT_GT(c.CoveredMs(), 0);
  EXPECT_LE(c.CoveredMs(), 1000 * 7 * kMin);
}

TEST(SampleCoverageTest, AddRunJoinsNeighbours) {
  SampleCoverage c;
  c.AddRun(0, kHour);
  c.AddRun(10 * kHour, 11 * kHour);
  EXPECT_EQ(c.runs().size(), 2u);
  c.AddRun(kHour + kMaxSampleGapMs, 10 * kHour - kMaxSampleGapMs);  // bridges both
  EXPECT_EQ(c.runs(), (std::vector<SampleCoverage::Run>{{0, 11 * kHour}}));
  EXPECT_EQ(c.CoveredMs(), 11 * kHour);
}

// The pod rule: gaps up to 4x the median count, at the pod's own interval.
TEST(SampleGapsTest, CoversGapsAtThePodsOwnInterval) {
  for (int64_t interval : {int64_t{30} * 1000, kHour, 15 * kHour}) {  // dcgm-exporter, hourly, 24 samples in 2 weeks
    SampleGaps g;
    for (int i = 0; i < 23; ++i) g.Add(interval);
    EXPECT_EQ(g.CoveredMs(), 23 * interval) << interval;
    g.Add(3 * interval);  // a short outage still counts
    EXPECT_EQ(g.CoveredMs(), 26 * interval) << interval;
    g.Add(8 * interval);  // a hole
    EXPECT_EQ(g.CoveredMs(), 26 * interval) << interval;
  }
}

// Issue 14: one stray sample (timestamp 1, a month back) stretched a pod's
// history to years and defeated --min-history.
TEST(SampleGapsTest, StrayGapAddsNothingAndTwoSamplesCoverNothing) {
  SampleGaps g;
  g.Add(1790000000000);  // from timestamp ~0 to the real data
  for (int i = 0; i < 10; ++i) g.Add(5 * kMin);
  g.Add(30 * kDay);
  EXPECT_EQ(g.CoveredMs(), 50 * kMin);
  SampleGaps two;
  two.Add(30 * kDay);  // one real sample and one stray
  EXPECT_EQ(two.CoveredMs(), 0);
  two.AddSpan(kHour);  // a server's span counts as a whole
  EXPECT_EQ(two.CoveredMs(), kHour);
}

TEST(SampleGapsTest, MergeEqualsAddingBoth) {
  SampleGaps a, b, all;
  for (int i = 0; i < 40; ++i) {
    const int64_t gap = (i % 5 + 1) * kMin + (i == 17 ? 40 * kDay : 0);
    (i % 3 ? a : b).Add(gap);
    all.Add(gap);
  }
  a.Merge(b);
  EXPECT_EQ(a.CoveredMs(), all.CoveredMs());
  EXPECT_EQ(a.count(), 40u);
}

// A bucket kept in the object counts in 32 bits: past that the gaps move to
// all buckets, counted the same.
TEST(SampleGapsTest, CountsPastThirtyTwoBitsStayExact) {
  SampleGaps g;
  g.Add(30 * 1000);
  g.Add(30 * 1000);
  g.Add(40 * 30 * 1000);  // a hole (40 intervals): counted only if the median's bucket were lost
  for (int i = 0; i < 33; ++i) {
    const SampleGaps copy = g;
    g.Merge(copy);
  }
  EXPECT_EQ(g.count(), uint64_t{3} << 33);
  EXPECT_EQ(g.CoveredMs(), int64_t{60} * 1000 << 33);
}

// The rule of sample_coverage.h computed from the gaps themselves: the
// power-of-two bucket of the lower median gap; every gap at most two buckets
// above it counts.
int64_t CoveredByRule(std::vector<int64_t> gaps) {
  if (gaps.size() < 2) return 0;
  auto bucket = [](int64_t g) { return std::min(kGapBuckets - 1, static_cast<int>(std::bit_width(static_cast<uint64_t>(g))) - 1); };
  std::sort(gaps.begin(), gaps.end());
  const int median = bucket(gaps[(gaps.size() + 1) / 2 - 1]);
  int64_t covered = 0;
  for (int64_t g : gaps) {
    if (bucket(g) <= median + 2) covered += g;
  }
  return covered;
}

// A pod's gaps are counted in up to kFewGapBuckets buckets kept in the
// object, then in all buckets: both forms, and merges of every mix of them
// (pieces of a file read in parallel), give the rule's answer.
TEST(SampleGapsTest, SmallAndBucketFormsAgreeWithTheRule) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    const size_t n = rng() % 100;
    std::vector<int64_t> gaps;
    for (size_t i = 0; i < n; ++i) {
      const int64_t base = rng() % 4 == 0 ? kHour : 30 * 1000;
      gaps.push_back(base * static_cast<int64_t>(1 + rng() % (rng() % 8 == 0 ? 40 : 3)));
    }
    SampleGaps whole;
    for (int64_t g : gaps) whole.Add(g);
    ASSERT_EQ(whole.CoveredMs(), CoveredByRule(gaps)) << "round " << round << ", " << n << " gaps";
    const size_t cut = n == 0 ? 0 : rng() % (n + 1);
    SampleGaps first, second;
    for (size_t i = 0; i < n; ++i) (i < cut ? first : second).Add(gaps[i]);
    first.Merge(second);
    EXPECT_EQ(first.CoveredMs(), CoveredByRule(gaps)) << "round " << round << ", cut " << cut << " of " << n;
    EXPECT_EQ(first.count(), n);
    first.Merge(SampleGaps());
    EXPECT_EQ(first.CoveredMs(), CoveredByRule(gaps));
  }
}

}  // namespace
}  // namespace kubeon::metrics
