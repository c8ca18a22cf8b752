// HistorySource implementations for the reviewer page's chart
// (policy_view.h): the memory history of one workload, read back from the
// history its plan used, downsampled keeping maxima (metrics/memory_series.h).
//
// FileHistorySource: the dcgm-exporter history files given to the planner
// (OpenMetrics or CSV).  The workload's pods are those its current plan
// lists (PolicyViews: WorkloadDecision::pods in the workload's namespace),
// so the chart shows exactly the samples the plan's peak came from.  Each
// call re-reads the files (no cache: the page asks for one workload at a
// time, on a click); an unknown workload is an error naming it.
//
// Thread-safe: holds no mutable state besides what PolicyViews guards.
#pragma once

#include <string>
#include <vector>

#include "controller/policy_view.h"

namespace kubeon::controller {

class FileHistorySource : public HistorySource {
 public:
  FileHistorySource(const PolicyViews& views, std::vector<std::string> files)
      : views_(views), files_(std::move(files)) {}
  Result<std::vector<SeriesPoint>> MemoryMiB(const model::WorkloadRef& workload, int max_points) override;

 private:
  const PolicyViews& views_;
  std::vector<std::string> files_;
};

}  // namespace kubeon::controller
