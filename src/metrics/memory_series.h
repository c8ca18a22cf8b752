// One workload's GPU memory over time, read back from the history the plan
// used, for the reviewer page's chart (controller/history_sources.h).
//
// ReadMemorySamples reads history files with the same readers as the planner
// (ReadHistoryFile, so the same formats, label mapping and bad-line rules:
// exported_pod/exported_namespace win over pod/namespace) and keeps the
// DCGM_FI_DEV_FB_USED samples of the given pods, merged into one series:
// at each timestamp the maximum over those pods (a workload is as large as
// its largest pod, which is what the slice must hold).
//
// DownsampleMax reduces a series to at most max_points points: the time
// span is cut into max_points equal buckets, and each non-empty bucket
// becomes its largest sample (at that sample's time), so a peak is never
// hidden by averaging.
//
// QueryMemorySeries asks a Prometheus-compatible server the same question
// (/api/v1/query_range over [start, end] with step = span / max_points, each
// point the max_over_time of its step, so peaks survive): FB_USED of the
// pods, named by `namespace`/`pod` or by `exported_namespace`/`exported_pod`
// (history.h's rule: exported_* win when exported_pod is set), max over the
// pods per timestamp, then DownsampleMax(max_points).
//
// Invariants: output sorted by time, strictly increasing; memory held is the
// selected pods' samples, not the file's.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "metrics/history.h"
#include "metrics/prometheus_http.h"
#include "model/status.h"

namespace kubeon::metrics {

struct MemoryPoint {
  int64_t unix_ms = 0;
  double mib = 0;
  bool operator==(const MemoryPoint&) const = default;
};

// The FB_USED samples of `pods` in `files`, max over pods per timestamp,
// sorted by time.  Errors name the file.  REQUIRES: files non-empty.
Result<std::vector<MemoryPoint>> ReadMemorySamples(const std::vector<std::string>& files,
                                                   const std::set<PodKey>& pods, IngestOptions options = {});

// At most max_points points (REQUIRES: max_points >= 1), each the maximum of
// its time bucket.  `series` must be sorted by time.
std::vector<MemoryPoint> DownsampleMax(const std::vector<MemoryPoint>& series, int max_points);

struct MemoryQuery {
  std::string namespace_;
  std::vector<std::string> pods;  // DNS-1123 names (anything else is refused)
  std::string selector;           // extra label matchers, e.g. `cluster="prod"` ("" = none)
  int64_t start_ms = 0;
  int64_t end_ms = 0;  // REQUIRES: > start_ms
};

// The PromQL of QueryMemorySeries for `q` and a step (exposed for tests).
std::string MemorySeriesPromql(const MemoryQuery& q, int64_t step_ms);

// Errors name the server and what failed.  REQUIRES: max_points >= 1.
Result<std::vector<MemoryPoint>> QueryMemorySeries(PrometheusHttp& http, const MemoryQuery& q, int max_points);

}  // namespace kubeon::metrics
