// Coverage: the time a pod's (or workload's) samples actually cover.
//
// History length is coverage, not "last sample minus first": one stray
// sample (timestamp 1, a year-old leftover) must not stand for the weeks
// between it and the real data, nor defeat --min-history.
//
// Per pod (SampleGaps), at the pod's own sampling interval:
//   * Whenever a sample is newer than every sample of the pod before it, the
//     gap to the previous newest one is recorded (series written one after
//     the other, or several metrics at the same instants, add no gaps twice).
//   * The pod's interval is the median gap; a gap counts as covered when it
//     is at most kGapFactor times that median (measured in powers of two: a
//     gap counts when its power-of-two bucket is at most two above the
//     median's, so every gap up to 4x the median counts and none from 8x).
//     Longer gaps are holes.  Fewer than two gaps (three samples) cover
//     nothing: two samples cannot tell an interval from a stray.
//   * Covered time is at most last - first.
//   * Memory is fixed: the rule needs only each power-of-two bucket's count
//     and sum of gaps.  Up to kFewGapBuckets buckets are kept in the object
//     itself (a pod sampled at one interval meets one or two buckets, a few
//     more with holes: no allocation, the common case at cluster scale),
//     then all kGapBuckets counters (768 bytes on the heap).  Merge() adds
//     the counters (several files, pieces of a file read in parallel).  Both
//     forms hold the same counts, so they give the same CoveredMs.
// Per workload (SampleCoverage): the union of its pods' coverage, each pod
// taken as the stretch [last - covered, last]: replicas running at the same
// time count once, pods that replaced each other add up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kubeon::metrics {

// Gaps up to kGapFactor x the median gap are covered (see above).
inline constexpr int kGapFactor = 4;
// Power-of-two gap buckets: bucket b holds gaps in [2^b, 2^(b+1)) ms.
inline constexpr int kGapBuckets = 48;
// SampleGaps keeps up to this many buckets in the object before holding all.
inline constexpr size_t kFewGapBuckets = 4;
// SampleCoverage: stretches closer than this are joined.
inline constexpr int64_t kMaxSampleGapMs = int64_t{2} * 3600 * 1000;
// Most runs (stretches without a hole) kept per workload.
inline constexpr size_t kMaxCoverageRuns = 64;

class SampleGaps {
 public:
  // REQUIRES: gap_ms > 0.
  void Add(int64_t gap_ms);
  // A stretch known to be covered as a whole (a server's first..last).
  void AddSpan(int64_t ms) { known_ms_ += ms; }
  // REQUIRES: &other != this.
  void Merge(const SampleGaps& other);
  // Covered milliseconds by the rule above (before the last - first cap).
  int64_t CoveredMs() const;
  uint64_t count() const { return count_; }

 private:
  struct Bucket {
    uint64_t count = 0;
    int64_t sum = 0;  // of the gaps counted
  };
  // One of the few buckets kept in the object: its index, count and sum.
  struct FewBucket {
    int64_t sum = 0;
    uint32_t count = 0;
    uint8_t index = 0;
  };
  // Adds `count` gaps summing `sum` to bucket `index`.
  void AddToBucket(int index, uint64_t count, int64_t sum);
  // Moves the few buckets into all_ (kGapBuckets of them).
  void UseAllBuckets();

  FewBucket few_[kFewGapBuckets] = {};  // while all_ is empty: few_[0, few_size_)
  uint8_t few_size_ = 0;
  std::vector<Bucket> all_;  // empty, or kGapBuckets entries
  uint64_t count_ = 0;
  int64_t known_ms_ = 0;
};

// A union of covered stretches [first, last], e.g. a workload's pods'.
// Stretches (or points) closer than kMaxSampleGapMs are joined into one run.
// The result depends only on the set of stretches added: not on their order,
// duplicates or how they are split (Merge() equals adding both sets to one),
// as long as there are at most kMaxCoverageRuns runs; beyond that the
// shortest run is dropped (under-counts, never over-counts).
class SampleCoverage {
 public:
  struct Run {
    int64_t first_ms;
    int64_t last_ms;
    bool operator==(const Run&) const = default;
  };

  // Adds one sample timestamp (Unix ms).  O(1) when t falls in or just after
  // the run touched last (time-ordered input), else O(log runs + runs).
  void Add(int64_t t_ms);
  // Adds every run of other: the same as adding all of other's samples.
  void Merge(const SampleCoverage& other);
  // Adds a whole stretch [first, last] known to be covered (e.g. a span
  // reported by a server).  REQUIRES: first_ms <= last_ms.
  void AddRun(int64_t first_ms, int64_t last_ms);

  // Covered milliseconds: the sum of the runs' lengths.
  int64_t CoveredMs() const;
  const std::vector<Run>& runs() const { return runs_; }
  bool empty() const { return runs_.empty(); }

 private:
  // Joins run i with its neighbours while they are within kMaxSampleGapMs.
  void Coalesce(size_t i);
  void DropShortestIfFull();

  std::vector<Run> runs_;
  size_t hint_ = 0;  // the run touched last
};

}  // namespace kubeon::metrics
