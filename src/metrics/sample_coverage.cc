// See sample_coverage.h for the contract.
#include "metrics/sample_coverage.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace kubeon::metrics {

namespace {

// REQUIRES: gap_ms > 0 (bucket 0 otherwise).
int GapBucket(int64_t gap_ms) {
  return std::clamp(static_cast<int>(std::bit_width(static_cast<uint64_t>(gap_ms))) - 1, 0, kGapBuckets - 1);
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

void SampleGaps::AddToBucket(int index, uint64_t count, int64_t sum) {
  if (all_.empty()) {
    FewBucket* const end = few_ + few_size_;
    FewBucket* f = std::find_if(few_, end, [&](const FewBucket& b) { return b.index == index; });
    if (f != end && count <= UINT32_MAX - f->count) {
      f->count += static_cast<uint32_t>(count);
      f->sum += sum;
      return;
    }
    if (f == end && few_size_ < kFewGapBuckets && count <= UINT32_MAX) {
      *f = FewBucket{sum, static_cast<uint32_t>(count), static_cast<uint8_t>(index)};
      ++few_size_;
      return;
    }
    UseAllBuckets();  // one bucket too many, or a count past 32 bits
  }
  all_[static_cast<size_t>(index)].count += count;
  all_[static_cast<size_t>(index)].sum += sum;
}

void SampleGaps::UseAllBuckets() {
  if (!all_.empty()) return;
  all_.assign(kGapBuckets, Bucket{});
  for (uint8_t i = 0; i < few_size_; ++i) {
    all_[few_[i].index].count += few_[i].count;
    all_[few_[i].index].sum += few_[i].sum;
  }
  few_size_ = 0;
}

void SampleGaps::Add(int64_t gap_ms) {
  if (gap_ms <= 0) return;
  ++count_;
  AddToBucket(GapBucket(gap_ms), 1, gap_ms);
}

void SampleGaps::Merge(const SampleGaps& other) {
  known_ms_ += other.known_ms_;
  if (other.count_ == 0) return;
  count_ += other.count_;
  if (!other.all_.empty()) {
    UseAllBuckets();
    for (int b = 0; b < kGapBuckets; ++b) {
      all_[static_cast<size_t>(b)].count += other.all_[static_cast<size_t>(b)].count;
      all_[static_cast<size_t>(b)].sum += other.all_[static_cast<size_t>(b)].sum;
    }
    return;
  }
  for (uint8_t i = 0; i < other.few_size_; ++i) {
    AddToBucket(other.few_[i].index, other.few_[i].count, other.few_[i].sum);
  }
}

int64_t SampleGaps::CoveredMs() const {
  if (count_ < 2) return known_ms_;
  uint64_t counts[kGapBuckets] = {};
  int64_t sums[kGapBuckets] = {};
  if (!all_.empty()) {
    for (int b = 0; b < kGapBuckets; ++b) {
      counts[b] = all_[static_cast<size_t>(b)].count;
      sums[b] = all_[static_cast<size_t>(b)].sum;
    }
  } else {
    for (uint8_t i = 0; i < few_size_; ++i) {
      counts[few_[i].index] += few_[i].count;
      sums[few_[i].index] += few_[i].sum;
    }
  }
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
