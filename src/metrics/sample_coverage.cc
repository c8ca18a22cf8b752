// See sample_coverage.h for the contract.
#include "metrics/sample_coverage.h"

#include <algorithm>
#include <bit>

namespace kubeon::metrics {

namespace {

// REQUIRES: gap_ms > 0 (bucket 0 otherwise).
int GapBucket(int64_t gap_ms) {
  return std::clamp(static_cast<int>(std::bit_width(static_cast<uint64_t>(gap_ms))) - 1, 0, kGapBuckets - 1);
}

// Counts one gap into bucket counters.  REQUIRES: gap_ms > 0.
void CountGap(uint64_t* counts, int64_t* sums, int64_t gap_ms) {
  const int b = GapBucket(gap_ms);
  ++counts[b];
  sums[b] += gap_ms;
}

// The rule of the file comment over bucket counters.
int64_t CoveredByBuckets(const uint64_t* counts, const int64_t* sums, uint64_t count, int64_t known_ms) {
  // The bucket of the (lower) median gap.
  const uint64_t rank = (count + 1) / 2;
  uint64_t seen = 0;
  int median = 0;
  while (median < kGapBuckets && (seen += counts[median]) < rank) ++median;
  static_assert(kGapFactor == 4, "two buckets above the median");
  int64_t covered = known_ms;
  for (int b = 0; b <= median + 2 && b < kGapBuckets; ++b) covered += sums[b];
  return covered;
}

}  // namespace

void SampleGaps::AddToBuckets(int64_t gap_ms) { CountGap(counts_.data(), sums_.data(), gap_ms); }

void SampleGaps::UseBuckets() {
  if (!counts_.empty()) return;
  counts_.assign(kGapBuckets, 0);
  sums_.assign(kGapBuckets, 0);
  for (int64_t gap : small_) AddToBuckets(gap);
  std::vector<int64_t>().swap(small_);
}

void SampleGaps::Add(int64_t gap_ms) {
  if (gap_ms <= 0) return;
  ++count_;
  if (counts_.empty() && small_.size() < kSmallGaps) {
    if (small_.empty()) small_.reserve(kSmallGaps);
    small_.push_back(gap_ms);
    return;
  }
  UseBuckets();
  AddToBuckets(gap_ms);
}

void SampleGaps::Merge(const SampleGaps& other) {
  known_ms_ += other.known_ms_;
  if (other.count_ == 0) return;
  count_ += other.count_;
  if (counts_.empty() && other.counts_.empty() && small_.size() + other.small_.size() <= kSmallGaps) {
    small_.insert(small_.end(), other.small_.begin(), other.small_.end());
    return;
  }
  UseBuckets();
  if (other.counts_.empty()) {
    for (int64_t gap : other.small_) AddToBuckets(gap);
    return;
  }
  for (int b = 0; b < kGapBuckets; ++b) {
    counts_[b] += other.counts_[b];
    sums_[b] += other.sums_[b];
  }
}

int64_t SampleGaps::CoveredMs() const {
  if (count_ < 2) return known_ms_;
  if (!counts_.empty()) return CoveredByBuckets(counts_.data(), sums_.data(), count_, known_ms_);
  uint64_t counts[kGapBuckets] = {};
  int64_t sums[kGapBuckets] = {};
  for (int64_t gap : small_) CountGap(counts, sums, gap);
  return CoveredByBuckets(counts, sums, count_, known_ms_);
}

void SampleCoverage::Add(int64_t t_ms) {
  if (hint_ < runs_.size()) {
    Run& r = runs_[hint_];
    if (t_ms >= r.first_ms && t_ms <= r.last_ms) return;
    // Time-ordered input: the next sample extends the latest run.
    if (t_ms > r.last_ms && t_ms - r.last_ms <= kMaxSampleGapMs &&
        (hint_ + 1 == runs_.size() || runs_[hint_ + 1].first_ms - t_ms > kMaxSampleGapMs)) {
      r.last_ms = t_ms;
      return;
    }
  }
  AddRun(t_ms, t_ms);
}

void SampleCoverage::AddRun(int64_t first_ms, int64_t last_ms) {
  // The first run starting after first_ms; the new run goes before it.
  auto it = std::upper_bound(runs_.begin(), runs_.end(), first_ms,
                             [](int64_t t, const Run& r) { return t < r.first_ms; });
  size_t i = static_cast<size_t>(it - runs_.begin());
  runs_.insert(it, Run{first_ms, last_ms});
  Coalesce(i);
  DropShortestIfFull();
}

void SampleCoverage::Coalesce(size_t i) {
  // Join with the runs before while they reach within the gap.
  while (i > 0 && runs_[i].first_ms - runs_[i - 1].last_ms <= kMaxSampleGapMs) {
    runs_[i - 1].last_ms = std::max(runs_[i - 1].last_ms, runs_[i].last_ms);
    runs_[i - 1].first_ms = std::min(runs_[i - 1].first_ms, runs_[i].first_ms);
    runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
  }
  // And with the runs after.
  while (i + 1 < runs_.size() && runs_[i + 1].first_ms - runs_[i].last_ms <= kMaxSampleGapMs) {
    runs_[i].last_ms = std::max(runs_[i].last_ms, runs_[i + 1].last_ms);
    runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i + 1));
  }
  hint_ = i;
}

void SampleCoverage::DropShortestIfFull() {
  if (runs_.size() <= kMaxCoverageRuns) return;
  auto shortest = std::min_element(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) {
    return a.last_ms - a.first_ms < b.last_ms - b.first_ms;
  });
  runs_.erase(shortest);
  hint_ = runs_.size() - 1;
}

void SampleCoverage::Merge(const SampleCoverage& other) {
  for (const Run& r : other.runs_) AddRun(r.first_ms, r.last_ms);
}

int64_t SampleCoverage::CoveredMs() const {
  int64_t total = 0;
  for (const Run& r : runs_) total += r.last_ms - r.first_ms;
  return total;
}

}  // namespace kubeon::metrics
