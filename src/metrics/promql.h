// PromQL text for the DCGM peaks the Prometheus reader asks the server for.
//
// Contract (pure functions, no I/O):
//   * Every query is an instant query evaluated at a window's end time; its
//     range covers (end - range, end] when called with range = window - 1ms:
//     Prometheus 2.x range selectors include both ends, so a window of
//     length W is written as [W-1ms] and consecutive windows never share a
//     sample.
//   * Aggregations keep only the labels that name the pod (kPodLabels), or,
//     for the history-span queries that also tell devices and "last seen"
//     labels, every label the file readers use (kSeriesLabels).  A label a
//     series does not have is simply absent from the result, so one query
//     covers plain `namespace`/`pod` series, `exported_*` series and series
//     without a pod (idle GPUs), and the caller resolves the pod exactly as
//     the file readers do (history.h).
//   * `matchers` (may be empty) are extra label matchers written inside the
//     braces of every selector, e.g. `cluster="prod"`; they are inserted as
//     given (REQUIRES: valid PromQL matchers without braces; the server
//     rejects anything else with a message naming the position).
//   * Durations use the shortest exact spelling ("1d", "90m", "86399999ms");
//     numbers the shortest text that reads back as the same double.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kubeon::metrics::promql {

inline constexpr const char* kPodLabels = "namespace, pod, exported_namespace, exported_pod";
inline constexpr const char* kSeriesLabels =
    "namespace, pod, container, exported_namespace, exported_pod, exported_container, "
    "Hostname, hostname, gpu, UUID, modelName, GPU_I_PROFILE, GPU_I_ID";

// REQUIRES: ms > 0.
std::string Duration(int64_t ms);

// Per pod, how many DCGM series (of FB_USED, GR_ENGINE_ACTIVE, GPU_UTIL) hold
// a sample the file readers refuse: NaN (a NaN makes sum_over_time NaN, and
// NaN != NaN keeps it), +-Inf, or a negative value.  Pods without such a
// series are absent from the result.
std::string BadSeriesCount(std::string_view matchers, int64_t range_ms);
// Shortest round-trip text of a double ("0.99", "1e-05").
std::string Number(double value);
// Unix milliseconds as the seconds Prometheus' `time` parameter takes
// ("1790000000", "1790000000.123").
std::string UnixSeconds(int64_t ms);

// metric or metric{matchers}.
std::string Selector(std::string_view metric, std::string_view matchers);

// max by (pods) (max_over_time(FB_USED[range]))
std::string MaxOverTime(std::string_view metric, std::string_view matchers, int64_t range_ms);
// max by (pods) (quantile_over_time(q, metric[range])): the largest of the
// per-series quantiles of a pod (see prometheus_history.h for why).
std::string QuantileOverTime(std::string_view metric, double q, std::string_view matchers,
                             int64_t range_ms);
// Samples per pod of the three used metrics together:
//   sum by (pods) (count_over_time(A[r])
//                  or label_replace(count_over_time(B[r]), "kubeon_metric", "b", "", "")
//                  or ...)
// (each term gets its own label so that series differing only in their
// metric name stay apart until the sum).
std::string SampleCount(std::string_view matchers, int64_t range_ms);
// First and last sample of each series, in Unix seconds, from the aligned
// subquery steps t (multiples of step, as Prometheus aligns them) at which
// a sample lies in [t - step, t]:
//   first: min by (series labels) (min_over_time(
//            timestamp(count_over_time(metric[step]))[range:step]))
//          = the first such t: at most one step after the first sample.
//   last:  max by (series labels) (
//            (max_over_time(timestamp(count_over_time(metric[step]))[range:step]) - step)
//            or label_replace(timestamp(metric), "kubeon_instant", "1", "", ""))
//          = the last such t minus a step (at most one step before the last
//          sample, never after it), or the exact time of the newest sample
//          when the series still has one at the window end.
// So the span is never longer than the data's, and at most one step
// shorter at each end.  The first sample is the same however the lookback
// is split into windows (every aligned step falls in exactly one window);
// the last can only get closer to the data's with more windows (more
// window ends for the instant timestamp()).
// REQUIRES: step_ms > 0, a whole number of milliseconds <= range_ms.
std::string FirstTimestamp(std::string_view metric, std::string_view matchers, int64_t range_ms,
                           int64_t step_ms);
std::string LastTimestamp(std::string_view metric, std::string_view matchers, int64_t range_ms,
                          int64_t step_ms);

}  // namespace kubeon::metrics::promql
