// ReadPrometheusHistory: the DCGM History (history.h) of a whole cluster,
// computed by a Prometheus-compatible server (Prometheus, Thanos, Mimir) with
// a handful of instant queries — never one per pod, never a sample download.
//
// Queries (promql.h), each over the lookback window (end - lookback, end]
// and grouped by the pod labels (namespace/pod and exported_*):
//   count    samples of FB_USED, GR_ENGINE_ACTIVE and GPU_UTIL together
//            (asked first: no series at all is an error naming the metrics)
//   memory   max_over_time(DCGM_FI_DEV_FB_USED)
//   compute  quantile_over_time(q, DCGM_FI_PROF_GR_ENGINE_ACTIVE), and the
//            same of DCGM_FI_DEV_GPU_UTIL (used as /100, only where a pod's
//            workload has no GR_ENGINE_ACTIVE, as Aggregate decides)
//   first    min_over_time(timestamp(count_over_time(DCGM_FI_DEV_FB_USED[step]))[..:step])
//   last     the same with max_over_time (minus a step), and
//            timestamp(DCGM_FI_DEV_FB_USED) at the window end (promql.h
//            says why not min_over_time(timestamp(FB_USED)[..:step]): 30x
//            slower in Prometheus 2.42)
//            first and last are grouped by every label the file readers keep
//            (kSeriesLabels), which also gives PodUsage::gpus and the "last
//            seen" labels (hostname, UUID, modelName, GPU_I_PROFILE = MIG
//            profile of a pod already on a slice, container) of the series
//            with the newest sample.
//   Only when a pod has samples but no FB_USED (compute only), first/last
//   are asked again of GR_ENGINE_ACTIVE and then GPU_UTIL.
//
// How the result maps onto PodUsage (the planner reads it through Aggregate
// exactly as it reads a file's):
//   peak_memory_mib  ceil(max)                          — same as the files
//   samples          count                              — same as the files
//   first/last_ts_ms span of FB_USED, never longer than the data's: the
//                    first sample up to one `step` late, the last up to one
//                    step early (exact for a series still reporting at the
//                    window end).  The file readers take the span of all
//                    three metrics, the same when dcgm-exporter exports them
//                    together.  A first sample older than the window start
//                    is reported as the window start.
//   compute          ONE sample: the server's quantile (Add(q)).  With one
//                    sample, ComputeHistogram::Quantile returns that value
//                    exactly (the bin's upper edge capped at the maximum),
//                    and Aggregate over a workload's pods returns the
//                    ceil(p*n)-th smallest pod quantile capped at the
//                    largest; for n <= 1/(1-p) pods (100 at p = 0.99) that is
//                    the largest pod quantile, which is >= the quantile of
//                    the pods' samples pooled (if no pod has more than 1% of
//                    its samples above x, neither has the pool).
//                    A quantile above kRatioPercentThreshold means the pod's
//                    series are in percent: it is divided by 100 and
//                    compute_in_percent set (the files decide on any sample
//                    above it; a percent series whose quantile stays below
//                    is read as a ratio here: busier, never idler).
//   coverage         the span last - first (SampleGaps::AddSpan): the server
//                    gives no holes, so a stray sample inside the lookback
//                    window still stretches a pod's span here (the window
//                    bounds it).
//   gpu_util         ONE sample: the GPU_UTIL quantile / 100.
//   Differences from the file path, documented rather than hidden:
//     * quantile_over_time interpolates between the two samples around rank
//       q*(n-1); the histogram returns the upper edge of the bin of the
//       sample of rank ceil(q*n).  The two differ by at most one bin (1/400)
//       plus the gap between those neighbouring samples.
//     * a pod with several series (devices, containers) gets the largest of
//       the series' quantiles, not the quantile of its pooled samples (>=,
//       as above).
//     * a NaN, infinite or negative answer is a bad sample of that pod (the
//       planner then does not guess its peak), as in the files; so is every
//       series holding such a sample (promql::BadSeriesCount: the
//       *_over_time functions skip NaN samples, so the peaks alone would
//       hide them).  bad_samples then counts series, not samples.
//
// Limits: each query is first asked for the whole lookback (or windows of
// max_window when set).  When the server refuses it for its size or time
// (QueryErrorKind::kLimit, e.g. "query processing would load too many
// samples", or the client timeout), that window is split into `chunk`
// windows, and a chunk that is still refused into halves, down to
// min_window; below that the read fails naming the server's message.
// Chunks are combined conservatively: max of maxima, sum of counts, min of
// first and max of last timestamps, and the MAX of the chunks' quantiles
// (each chunk has at most 1-q of its samples above its quantile, so the
// whole window has at most 1-q above their maximum: never below the
// quantile of the whole window, possibly above it).  Once a query needed a
// smaller window, later queries of the same kind (raw range or subquery)
// start with that window.
//
// Errors (the caller exits non-zero and writes nothing): Prometheus
// unreachable, timeouts, HTTP 4xx/5xx with the server's errorType/error, an
// answer above max_response_bytes, no DCGM series in the window (names the
// metrics tried, the selector, and any other DCGM_* metrics present), DCGM
// series none of which carries pod labels.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics/history.h"
#include "model/status.h"

namespace kubeon::metrics {

// Longest lookback asked of a server (ten years; Prometheus keeps 15 days by
// default).  Longer is refused as "too large", before any arithmetic on it.
inline constexpr std::chrono::hours kMaxLookback{24 * 3650};
inline constexpr const char* kMaxLookbackText = "3650d";

struct PrometheusOptions {
  std::string url;                   // e.g. http://prometheus.monitoring:9090
  std::string bearer_token_file;     // "" = none
  std::string ca_file;               // "" = system trust store
  std::vector<std::string> headers;  // "Name: value", e.g. "X-Scope-OrgID: team-a"
  // Extra label matchers added to every selector, e.g. `cluster="prod"`
  // (Thanos/Mimir holding several clusters).
  std::string selector;

  std::chrono::milliseconds lookback = std::chrono::hours(24 * 14);
  std::optional<int64_t> end_unix_ms;  // window end; default: now
  // Resolution of the first/last-sample subqueries: spans are exact to
  // within one step, and their cost grows as lookback / step (on 2,000 GPUs
  // x 2 days, 1m steps cost 3x the 5m default).  5 minutes is far below
  // any useful minimum history (24h by default).  REQUIRES: 1s..1h, not
  // longer than min_window.
  std::chrono::milliseconds step = std::chrono::minutes(5);
  // Window length after a refused whole-lookback query.
  std::chrono::milliseconds chunk = std::chrono::hours(24);
  // 0 = ask for the whole lookback first; else start with windows this long.
  std::chrono::milliseconds max_window{0};
  // Smallest window a refused query is split into.
  std::chrono::milliseconds min_window = std::chrono::hours(1);
  std::chrono::milliseconds timeout = std::chrono::seconds(120);  // per request
  std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);
  size_t max_response_bytes = size_t{256} << 20;
  double compute_percentile = 0.99;  // the planner's PlannerOptions::compute_percentile
};

// What a read cost (for progress lines, tests and the benchmark).
struct PrometheusReadStats {
  uint64_t queries = 0;          // HTTP requests made, refused ones included
  uint64_t refused_queries = 0;  // refused for size/time and retried in smaller windows
  uint64_t bytes_received = 0;
  uint64_t result_rows = 0;
  double seconds = 0;
};

// Receives one line per query ("prometheus: memory peak, 1 window: 812 rows
// in 0.41 s"); may be empty.
using PrometheusProgress = std::function<void(const std::string& line)>;

// REQUIRES: 0 <= compute_percentile <= 1.
// History::source is the server URL; IngestStats counts result rows as
// lines, samples as the server counted them, series without a pod as
// unattributed.
Result<History> ReadPrometheusHistory(const PrometheusOptions& options, const PrometheusProgress& progress,
                                      PrometheusReadStats* stats = nullptr);

}  // namespace kubeon::metrics
