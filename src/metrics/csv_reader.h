// CsvReader: streams DCGM history as CSV (RFC 4180) into a History.
//
// The first non-blank record is the header; column names are matched
// exactly (surrounding blanks ignored).  Two layouts:
//
// Wide form: one row per device and time, one column per metric.
//   timestamp,namespace,pod,container,hostname,gpu,UUID,modelName,GPU_I_PROFILE,GPU_I_ID,DCGM_FI_DEV_FB_USED,DCGM_FI_DEV_FB_FREE,DCGM_FI_PROF_GR_ENGINE_ACTIVE,DCGM_FI_DEV_GPU_UTIL
//   2026-11-01T10:00:00Z,ml,trainer-0,main,node-1,0,GPU-6f2c...,"NVIDIA A100-SXM4-40GB",,,9216,31294,0.41,55
//   * every column whose name starts with "DCGM_" is a metric column, named
//     exactly like the metric; each non-empty cell is one sample, an empty
//     cell is no sample.  Metric columns other than the three used are
//     ignored (a row with only such cells counts as one ignored line).
//
// Long form: one row per sample.
//   timestamp,metric,value,namespace,pod,hostname,gpu,UUID,modelName
//   1793527200,DCGM_FI_DEV_FB_USED,9216,ml,trainer-0,node-1,0,GPU-6f2c...,NVIDIA A100-SXM4-40GB
//   * chosen when the header has both `metric` and `value` columns; it may
//     then have no DCGM_* column.
//
// Both forms:
//   * `timestamp` is required (not after the time of reading +
//     kMaxClockSkewMs, history.h): Unix seconds (integer or fractional) or
//     RFC 3339 ("2026-11-01T10:00:00Z", "...T12:00:00.250+02:00").
//   * label columns (all optional): namespace, pod, container,
//     exported_namespace, exported_pod, exported_container, hostname or
//     Hostname, gpu, UUID, modelName, GPU_I_PROFILE, GPU_I_ID, with the
//     meaning given in history.h.  An empty cell is an absent label; a row
//     without a pod is an idle GPU (unattributed).  Other columns are ignored.
//   * fields may be quoted; "" inside quotes is a quote; quoted fields may
//     hold commas but not line breaks: a record is one physical line, so an
//     unterminated quote makes its own line bad ("unterminated quoted
//     field", with its number) and the next line is read as a record again
//     (DCGM labels never hold line breaks).  Blanks around numbers and
//     timestamps are ignored; label cells are taken as written.
//   * a line longer than kMaxCsvLineBytes is bad (the header: an error); the
//     reader never holds more than one such line.
//   * a row with a different number of fields than the header is bad.  In
//     the wide form a row is one line: it is counted bad once, however many
//     of its cells are bad, while each bad cell is a bad sample of the pod.
//   * a header without `timestamp`, with duplicate columns, with only one
//     of `metric`/`value`, or with neither those nor a DCGM_* column is an
//     error.  A UTF-8 byte order mark is skipped.
//
// Feed() takes chunks of any size; feeding byte by byte gives the same
// History as feeding everything at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "metrics/history.h"
#include "model/status.h"

namespace kubeon::metrics {

// Longest CSV line (record) read; a longer one is a bad line.  A dcgm-exporter
// row is a few hundred bytes.
inline constexpr size_t kMaxCsvLineBytes = size_t{1} << 20;

class CsvReader {
 public:
  CsvReader(IngestOptions options, std::string source_name);
  ~CsvReader();
  CsvReader(CsvReader&&) noexcept;
  CsvReader& operator=(CsvReader&&) noexcept;

  void Feed(std::string_view chunk);
  // The History, or an error naming the source (and line) for a bad header,
  // no data rows, or more than options.max_bad_fraction bad rows.
  // REQUIRES: called once; no Feed() afterwards.
  Result<History> Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubeon::metrics
