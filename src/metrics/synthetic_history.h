// Synthetic dcgm-exporter history, for the generator (tools/gen-history),
// the ingest benchmark and tests.
//
// Contract:
//   * Deterministic: the same options (seed included) give the same bytes.
//     Every value is a function of (seed, series, sample index) only, so the
//     series order and the time order hold exactly the same samples.
//   * Exactly series * samples_per_series samples are written.  Series i
//     belongs to device g = i / 4 and carries that device's metric i % 4:
//       plain GPU:  FB_USED, FB_FREE, GR_ENGINE_ACTIVE, GPU_UTIL
//       MIG slice:  FB_USED, FB_FREE, GR_ENGINE_ACTIVE, DCGM_FI_PROF_DRAM_ACTIVE
//     (dcgm-exporter has no *_UTIL metrics under MIG).  Device g is a MIG
//     1g slice when g % 5 == 1 and idle (no pod labels) when g % 10 == 9;
//     otherwise it runs pod g of workload g / 2 (two replicas per workload).
//   * OpenMetrics output is valid input of `promtool tsdb create-blocks-from
//     openmetrics`: families are contiguous with `# HELP`/`# TYPE gauge`,
//     timestamps are integer seconds increasing per series, `# EOF` ends it.
//     kSeries order writes each series' samples together; kTime order writes,
//     per family, all series at one time before the next time.
//   * CSV output is the wide form of csv_reader.h, one row per device and
//     time (empty cells for the metrics a device does not have).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "model/status.h"

namespace kubeon::metrics {

struct SyntheticOptions {
  enum class Format { kOpenMetrics, kCsv };
  enum class Order { kSeries, kTime };

  int64_t series = 1000;             // Prometheus series (metric + label set)
  int64_t samples_per_series = 100;  // samples in each series
  int64_t interval_seconds = 30;
  int64_t start_unix_seconds = 1793527200;  // 2026-11-01T10:00:00Z
  uint64_t seed = 1;
  Format format = Format::kOpenMetrics;
  Order order = Order::kSeries;
  // Label the pod as Prometheus does behind a ServiceMonitor:
  // exported_namespace/exported_pod/exported_container for the workload plus
  // namespace/pod/container of the dcgm-exporter pod.
  bool exported_labels = false;
};

// What a correct reader must find in the output.  With exported_labels the
// idle devices' series carry the dcgm-exporter pod's own labels and count
// as samples of that pod (one per node), as they would in Prometheus.
struct SyntheticCounts {
  uint64_t samples = 0;       // accepted samples (used metrics on pods)
  uint64_t unattributed = 0;  // used metrics on idle devices
  uint64_t ignored = 0;       // FB_FREE and DRAM_ACTIVE samples
  uint64_t pods = 0;
};

SyntheticCounts ExpectedCounts(const SyntheticOptions& options);

// Writes the history to `sink` in pieces of about 1 MiB.  A sink returning
// false stops the writing with an error.
// REQUIRES: series >= 1, samples_per_series >= 1, interval_seconds >= 1.
Status WriteSyntheticHistory(const SyntheticOptions& options,
                             const std::function<bool(std::string_view)>& sink);

// The whole history in memory (for benchmarks and tests of modest size).
Result<std::string> SyntheticHistoryText(const SyntheticOptions& options);

}  // namespace kubeon::metrics
