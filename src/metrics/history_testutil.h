// Test helpers for the metrics area (included by *_test.cc only).
//
// Describe() renders every field of a History (pods with peaks, histogram
// quantiles, spans, labels, devices; the stats) as text, so that two
// Histories can be compared for equality with a readable diff.
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "metrics/csv_reader.h"
#include "metrics/history.h"
#include "metrics/openmetrics_reader.h"

namespace kubeon::metrics::testing {

inline std::string DescribeHistogram(const ComputeHistogram& h) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "n=%llu max=%.6f q50=%.4f q90=%.4f q99=%.4f",
                static_cast<unsigned long long>(h.count()), h.max(), h.Quantile(0.5),
                h.Quantile(0.9), h.Quantile(0.99));
  return buf;
}

inline std::string DescribePods(const History& h) {
  std::string out;
  for (const auto& [key, u] : h.pods) {
    out += key.namespace_ + "/" + key.pod + ": peak=" + std::to_string(u.peak_memory_mib) +
           " compute[" + DescribeHistogram(u.compute) + (u.compute_in_percent ? " percent" : "") + "] util[" +
           DescribeHistogram(u.gpu_util) + "] ts=" + std::to_string(u.first_ts_ms) + ".." +
           std::to_string(u.last_ts_ms) + " covered=" + std::to_string(u.covered_ms()) + " samples=" + std::to_string(u.samples) +
           " bad=" + std::to_string(u.bad_samples) + " host=" + u.hostname +
           " uuid=" + u.gpu_uuid + " model=" + u.model_name + " mig=" + u.mig_profile +
           " container=" + u.container + " gpus=";
    for (const std::string& g : u.gpus) out += g + ";";
    out += "\n";
  }
  return out;
}

inline std::string DescribeStats(const IngestStats& s) {
  std::string out = "lines=" + std::to_string(s.lines) + " data=" + std::to_string(s.data_lines) +
                    " samples=" + std::to_string(s.samples) +
                    " bad=" + std::to_string(s.bad_lines) +
                    " ignored=" + std::to_string(s.ignored_metric_lines) +
                    " unattributed=" + std::to_string(s.unattributed_lines) + " metrics=";
  for (const std::string& m : s.metrics_seen) out += m + ";";
  for (size_t i = 0; i < s.first_bad_line_numbers.size(); ++i) {
    out += "\n  " + std::to_string(s.first_bad_line_numbers[i]) + ": " + s.first_bad_reasons[i];
  }
  return out;
}

inline std::string Describe(const History& h) {
  return DescribePods(h) + DescribeStats(h.stats) + "\n";
}

// Feeds `text` in pieces of `chunk` bytes (0 = all at once).
template <typename Reader>
Result<History> ReadText(std::string_view text, size_t chunk = 0,
                         const IngestOptions& options = IngestOptions(),
                         const std::string& source = "test.in") {
  Reader reader(options, source);
  if (chunk == 0) {
    reader.Feed(text);
  } else {
    for (size_t i = 0; i < text.size(); i += chunk) reader.Feed(text.substr(i, chunk));
  }
  return reader.Finish();
}

inline Result<History> ReadOm(std::string_view text, size_t chunk = 0,
                              const IngestOptions& options = IngestOptions()) {
  return ReadText<OpenMetricsReader>(text, chunk, options, "test.om");
}

// Feeds `text` in pieces of `chunk` bytes (0 = all at once) with the runs
// of each piece (OpenMetricsReader::FirstPass), as the read-ahead thread
// gives them; at_line_start as it should be or, when `wrong_line_starts`,
// its opposite (the reader must then read each piece as Feed(piece) does).
// *runs_found (when given) counts the lines found in runs.
inline Result<History> ReadOmWithRuns(std::string_view text, size_t chunk = 0,
                                      const IngestOptions& options = IngestOptions(),
                                      bool wrong_line_starts = false, size_t* runs_found = nullptr) {
  OpenMetricsReader reader(options, "test.om");
  internal::RepeatRuns runs;
  OpenMetricsReader::FirstPass first_pass;
  if (chunk == 0) chunk = std::max<size_t>(text.size(), 1);
  for (size_t i = 0; i < text.size(); i += chunk) {
    const std::string_view piece = text.substr(i, chunk);
    const bool at_line_start = i == 0 || text[i - 1] == '\n';
    first_pass.Run(piece, at_line_start != wrong_line_starts, &runs);
    for (const internal::RepeatRuns::Run& run : runs.runs) {
      if (runs_found != nullptr) *runs_found += run.count;
    }
    reader.Feed(piece, runs);
  }
  return reader.Finish();
}

inline Result<History> ReadCsv(std::string_view text, size_t chunk = 0,
                               const IngestOptions& options = IngestOptions()) {
  return ReadText<CsvReader>(text, chunk, options, "test.csv");
}

}  // namespace kubeon::metrics::testing
