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
// PrometheusHistorySource: the Prometheus-compatible server the planner read
// (query_range over the planner's lookback ending now, the same label
// mapping and extra selector; metrics/memory_series.h QueryMemorySeries).
//
// Thread-safe: FileHistorySource holds no mutable state besides what
// PolicyViews guards; PrometheusHistorySource serializes its requests (one
// PrometheusHttp connection).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "controller/policy_view.h"
#include "metrics/prometheus_http.h"

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

class PrometheusHistorySource : public HistorySource {
 public:
  PrometheusHistorySource(const PolicyViews& views, std::unique_ptr<metrics::PrometheusHttp> http,
                          std::string selector, std::chrono::milliseconds lookback,
                          std::function<std::chrono::system_clock::time_point()> now = {});
  Result<std::vector<SeriesPoint>> MemoryMiB(const model::WorkloadRef& workload, int max_points) override;

 private:
  const PolicyViews& views_;
  std::mutex mu_;  // guards http_
  std::unique_ptr<metrics::PrometheusHttp> http_;
  std::string selector_;
  std::chrono::milliseconds lookback_;
  std::function<std::chrono::system_clock::time_point()> now_;
};

}  // namespace kubeon::controller
