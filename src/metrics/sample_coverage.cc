// See sample_coverage.h for the contract.
#include "metrics/sample_coverage.h"

#include <algorithm>

namespace kubeon::metrics {

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
