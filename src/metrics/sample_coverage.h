// SampleCoverage: the time a pod's (or workload's) samples actually cover.
//
// History length is coverage, not "last sample minus first": one stray
// sample (timestamp 1, a year-old leftover) must not stand for the weeks
// between it and the real data, nor defeat --min-history.
//
// Rule (documented in README "Limits" and history.h):
//   * Sort all sample timestamps; a gap between two neighbouring samples of
//     at most kMaxSampleGapMs is covered time, a longer gap is a hole.  So a
//     run of samples taken at any interval up to kMaxSampleGapMs covers
//     last - first of the run; a lone sample covers nothing; a stray sample
//     adds at most kMaxSampleGapMs.
//   * The covered time is a function of the SET of timestamps: independent
//     of the order samples arrive in, of duplicates (several series or
//     metrics at the same instants count once), and of how the samples are
//     split (file pieces read in parallel, several files, the pods of one
//     workload): Merge() of two coverages equals adding both sets to one.
//
// Representation: disjoint runs [first, last] sorted by time, neighbours more
// than kMaxSampleGapMs apart.  Memory is bounded: at most kMaxCoverageRuns
// runs; beyond that the shortest run is dropped, which can only under-count
// (never over-count) coverage, and only for data with more than
// kMaxCoverageRuns holes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kubeon::metrics {

// Longest gap between neighbouring samples that still counts as covered.
inline constexpr int64_t kMaxSampleGapMs = int64_t{2} * 3600 * 1000;
// Most runs (stretches without a hole) kept per pod or workload.
inline constexpr size_t kMaxCoverageRuns = 64;

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
