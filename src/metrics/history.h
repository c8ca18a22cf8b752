// DCGM history reduced to per-pod usage summaries.
//
// A History is what the readers (openmetrics_reader.h, csv_reader.h) make of
// one or more dcgm-exporter history files.  Its size depends on the number of
// distinct pods (and, in the readers, series), never on the number of
// samples: each pod keeps a peak, two fixed-size histograms, a time span and
// a few "last seen" labels.
//
// Metrics used (everything else is counted in IngestStats::ignored_metric_lines):
//   DCGM_FI_DEV_FB_USED            MiB          -> PodUsage::peak_memory_mib (max, rounded up)
//   DCGM_FI_PROF_GR_ENGINE_ACTIVE  ratio 0..1   -> PodUsage::compute
//                                  (some exporters write percent 0..100: a
//                                  pod with a sample above
//                                  kRatioPercentThreshold is read as percent,
//                                  all its samples / 100, and said so in
//                                  HistoryWarnings)
//   DCGM_FI_DEV_GPU_UTIL           percent      -> PodUsage::gpu_util (value / 100);
//                                                  used only when no GR_ENGINE_ACTIVE
//                                                  samples exist (see Aggregate)
//
// Pod identity (labels, or CSV columns of the same names):
//   * `exported_namespace`/`exported_pod`/`exported_container` when
//     `exported_pod` is present and non-empty.  Prometheus renames a scraped
//     series' labels to exported_* when the scrape target already carries
//     labels of the same name: with a ServiceMonitor the target labels
//     `namespace`/`pod`/`container` are those of the dcgm-exporter pod itself,
//     and the workload's pod mapping written by dcgm-exporter ends up in
//     exported_*.  So when both are present, exported_* name the workload.
//   * otherwise `namespace`/`pod`/`container`.
//   * a series without a (non-empty) pod label is an idle GPU: counted in
//     IngestStats::unattributed_lines, not an error.  A pod label without its
//     namespace is a bad line.
//   Caveat, documented rather than guessed around: with a ServiceMonitor an
//   idle GPU's series carry only the target's namespace/pod (the exporter's),
//   and are therefore attributed to the dcgm-exporter pod, which holds no GPU
//   and is never a candidate.
// Other labels kept per pod ("last seen", in file order): `hostname` (or the
// older `Hostname`), `UUID`, `modelName`, `GPU_I_PROFILE` (MIG profile: the
// pod's usage is usage of that slice), container.  PodUsage::gpus holds one
// entry per distinct device: "UUID", or "hostname/gpu" when UUID is absent,
// with "/GI<GPU_I_ID>" appended on a MIG slice.
//
// Nothing is guessed: a sample whose value or timestamp does not parse, is
// NaN or infinite, or is negative, or whose time lies more than
// kMaxClockSkewMs after the time of reading (IngestOptions::now_ms) is not
// used; it counts as a bad line (and as a bad sample of the pod its labels
// name, so that the planner does not size that pod).  The Prometheus reader
// applies the same rule (prometheus_history.h).
//
// History length is COVERAGE (sample_coverage.h): the gaps between a pod's
// samples that are at most 4x its median gap (its own interval); a
// workload's is the union over its pods.  One stray sample (timestamp 1, a
// leftover from last year) therefore adds nothing, where "last minus first"
// made it stand for years.
#pragma once

#include <cstddef>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "metrics/compute_histogram.h"
#include "metrics/sample_coverage.h"
#include "model/status.h"

namespace kubeon::metrics {

inline constexpr const char* kFbUsedMetric = "DCGM_FI_DEV_FB_USED";
inline constexpr const char* kFbFreeMetric = "DCGM_FI_DEV_FB_FREE";
inline constexpr const char* kGrEngineActiveMetric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
inline constexpr const char* kGpuUtilMetric = "DCGM_FI_DEV_GPU_UTIL";

struct PodKey {
  std::string namespace_;
  std::string pod;
  auto operator<=>(const PodKey&) const = default;
};

struct PodUsage {
  int64_t peak_memory_mib = -1;  // max FB_USED (rounded up to whole MiB), -1 = none seen
  ComputeHistogram compute;      // GR_ENGINE_ACTIVE samples
  ComputeHistogram gpu_util;     // GPU_UTIL/100 samples (fallback)
  // Min and max timestamp (Unix ms) over all accepted samples of the pod;
  // meaningful only when samples > 0.  Not the history length (coverage is).
  int64_t first_ts_ms = 0;
  int64_t last_ts_ms = 0;
  SampleGaps gaps;  // gaps between the pod's samples (sample_coverage.h)
  // Covered time (sample_coverage.h): the covered gaps, at most last - first.
  int64_t covered_ms() const {
    return samples == 0 ? 0 : std::min(gaps.CoveredMs(), last_ts_ms - first_ts_ms);
  }
  // GR_ENGINE_ACTIVE came in percent (a sample above kRatioPercentThreshold):
  // `compute` holds value / 100.
  bool compute_in_percent = false;
  uint64_t samples = 0;      // accepted samples
  uint64_t bad_samples = 0;  // samples whose labels named this pod but whose
                             // value/timestamp did not parse (NaN counts as bad)
  // Last seen (in file order) over the pod's accepted samples.
  std::string hostname, gpu_uuid, model_name, mig_profile, container;
  std::set<std::string> gpus;  // distinct devices, see the file comment
};

struct IngestStats {
  uint64_t lines = 0;       // physical lines read (comments, blanks, CSV header included)
  uint64_t data_lines = 0;  // lines that are not comments, blank or the CSV header
  uint64_t samples = 0;     // accepted samples
  uint64_t bad_lines = 0;
  uint64_t ignored_metric_lines = 0;  // metrics other than the three used
  uint64_t unattributed_lines = 0;    // used metrics on series without a pod (idle GPUs)
  std::vector<uint64_t> first_bad_line_numbers;  // up to kMaxBadExamples, 1-based
  std::vector<std::string> first_bad_reasons;    // parallel to first_bad_line_numbers
  // Every metric name met, used or not (as MessageText, for messages), up to
  // kMaxMetricsSeen names.
  std::set<std::string> metrics_seen;
};

inline constexpr size_t kMaxBadExamples = 10;
inline constexpr size_t kMaxMetricsSeen = 64;

// DCGM_FI_PROF_GR_ENGINE_ACTIVE is a ratio 0..1 (DCGM writes 1.0000001 now
// and then); some exporters write it in percent 0..100.  A pod with a sample
// above this is read as percent (0..1 vs 0..100 rule): no ratio comes near
// it, and a percent series below it is idle (conservatively read as ratio).
inline constexpr double kRatioPercentThreshold = 1.5;

// Samples timed more than this after the time of reading are refused (bad
// lines and bad samples): clocks disagree a little, never by more.
inline constexpr int64_t kMaxClockSkewMs = int64_t{5} * 60 * 1000;

struct History {
  std::map<PodKey, PodUsage> pods;
  IngestStats stats;
  std::string source;  // file name(s), joined by ", " after MergeInto
};

// The error message of a read stopped by IngestOptions::stop.
inline constexpr const char* kStoppedMessage = "reading stopped";

struct IngestOptions {
  // More than this fraction of the data lines bad -> the whole input is an error.
  double max_bad_fraction = 0.5;
  // The readers cache up to this many distinct label sets (about 1 KiB
  // each); past it, series are parsed again on every line: same result,
  // slower, memory still bounded.
  size_t max_cached_series = 1 << 18;
  // OpenMetrics files of at least parallel_min_bytes are split at line
  // boundaries into `threads` pieces read at once, and the pieces' results
  // merged: the same History and the same bad-line reports (line numbers
  // included) as one thread, with the memory of `threads` readers (bounded by
  // series and pods, not samples).  threads 0 = the hardware threads, at
  // most 8; 1 = never split.  CSV is always read by one thread.
  unsigned threads = 0;
  uint64_t parallel_min_bytes = uint64_t{32} << 20;
  // A regular file read as one piece (one thread, a small file, CSV) is
  // read up to eight 1 MiB chunks ahead on a second thread, so that the copy
  // from the page cache overlaps the parsing (read_ahead.h; 8 MiB more
  // memory, and for OpenMetrics each chunk's RepeatRuns: at most 26 bytes a
  // line, 8 bytes a distinct label set and ~250 bytes a new one): for
  // OpenMetrics that thread also finds the lines repeating the line before
  // up to a value and reads those, and reads the label sets it meets for
  // the first time (OpenMetricsReader::FirstPass), while the parsing thread
  // is busy; false = the parsing thread reads too.  The result is the same.
  bool read_ahead = true;
  // When the read-ahead thread makes its first pass over an OpenMetrics
  // chunk (its repeated lines and new label sets): only while the parsing
  // thread is busy (it then shares the work as the two threads' speeds
  // allow), for every chunk, or never.  Same result.
  enum class FirstPass { kWhenParserBusy, kAlways, kNever };
  FirstPass first_pass = FirstPass::kWhenParserBusy;
  // Called with every accepted DCGM_FI_DEV_FB_USED sample (the pod it is
  // attributed to, Unix ms, MiB as read); empty = never.  It does not change
  // the History.  The reviewer page reads one workload's memory series back
  // with it (memory_series.h).  REQUIRES: threads == 1 when set (it is
  // called, without a lock, from the thread that calls ReadHistoryFile,
  // which accepts every sample; a read-ahead thread never does).
  std::function<void(const PodKey& pod, int64_t ts_ms, double mib)> on_memory_sample;
  // The time of reading (Unix ms): samples after now_ms + kMaxClockSkewMs
  // are refused.  0 = the wall clock when the reader starts.
  int64_t now_ms = 0;
  // When set, ReadHistoryFile looks at it before every 1 MiB read and, once
  // it is true, stops and returns the error kStoppedMessage (a caller that
  // already knows the result is useless, e.g. the snapshot read beside it
  // failed).  Nothing else reads or writes it.
  const std::atomic<bool>* stop = nullptr;
};

// Reads a history file with a fixed 1 MiB buffer per thread, eight when read
// ahead (never the whole file; see IngestOptions::threads and read_ahead) and
// picks the format from the content: the first non-empty line starting with
// '#' or with a metric name followed by '{' or a blank is OpenMetrics; a CSV
// header with a `timestamp` column is CSV.  When the content does not tell
// (e.g. empty file), the extension does: .csv is CSV; .om, .txt, .prom,
// .openmetrics are OpenMetrics.  Errors name the file (and the line).
Result<History> ReadHistoryFile(const std::string& path, const IngestOptions& options);

// Merges src (e.g. the next file) into dst.  Pods present in both are
// combined (max peak, merged histograms, union of time spans and devices,
// summed counts; "last seen" labels taken from src when src has samples).
// Stats are summed; bad-line examples are kept up to kMaxBadExamples, those
// of src prefixed with "<src.source>: " so that the line numbers stay
// meaningful.  dst.source becomes "<dst.source>, <src.source>".
void MergeInto(History& dst, History&& src);

// Warnings about a history that was read but not taken at face value, one
// line each (e.g. "3 pods export DCGM_FI_PROF_GR_ENGINE_ACTIVE in percent
// ...: read as percent / 100 (ml/a, ml/b, ml/c)"); empty when none.
std::vector<std::string> HistoryWarnings(const History& history);

// One workload's usage, from the pods that belong to it.
struct WorkloadUsage {
  int64_t peak_memory_mib = -1;  // max over pods; -1 when !has_memory
  double peak_compute = 0;       // `percentile` of the merged histogram (0 when !has_compute)
  std::string compute_metric;    // kGrEngineActiveMetric, kGpuUtilMetric or ""
  double history_hours = 0;      // coverage: union of the pods' SampleCoverage, in hours
  uint64_t samples = 0;
  uint64_t bad_samples = 0;
  // The pods' MIG profile: "" when none, "1g.5gb" when all agree, the sorted
  // distinct profiles joined by "," when they differ (nothing is picked).
  std::string mig_profile;
  bool has_memory = false;
  bool has_compute = false;
};

// Aggregates the pods of one workload.  The compute peak is the `percentile`
// (e.g. 0.99) of the merged GR_ENGINE_ACTIVE histograms if any pod has such
// samples, else of the merged GPU_UTIL histograms; it is the conservative
// upper bin edge (ComputeHistogram::Quantile), at most one bin width
// (1/400) above the exact percentile.
// REQUIRES: 0 <= percentile <= 1; no null pointers in pods.
WorkloadUsage Aggregate(const std::vector<const PodUsage*>& pods, double percentile);
// The same over `count` pods at `pods` (a caller's slice of a longer array).
WorkloadUsage Aggregate(const PodUsage* const* pods, size_t count, double percentile);

}  // namespace kubeon::metrics
