// OpenMetricsReader: streams OpenMetrics / Prometheus text with timestamps
// (the input of `promtool tsdb create-blocks-from openmetrics`) into a History.
//
// Accepted input, one sample per line:
//   metric{l1="v1",l2="v2"} value timestamp_seconds [# exemplar]
//   metric value timestamp_seconds
// * `# TYPE`, `# HELP`, `# UNIT` and other '#' comments and blank lines are
//   skipped; `# EOF` ends the data (lines after it are bad).  A missing
//   `# EOF` is accepted (Prometheus text format).
// * Label values may contain \" \\ \n escapes, commas, spaces, '}' and UTF-8;
//   a trailing comma in the label set and blanks around tokens are accepted.
// * value: decimal or scientific notation, NaN, +Inf, -Inf (see
//   sample_parse.h); NaN, infinite and negative values are bad samples.
// * timestamp: Unix SECONDS, integer or fractional, required (a sample
//   without a time cannot be placed in the history window, so it is bad).
//   A millisecond timestamp is out of range and reported, never rescaled.
//   A time more than kMaxClockSkewMs after the time of reading
//   (IngestOptions::now_ms) is bad too (history.h).
// * Lines of metrics other than the three used (history.h) are counted as
//   ignored after checking only their metric name, so a malformed line of an
//   unused metric is not an error.
// * Lines longer than 1 MiB are bad (and bound the reader's memory).
//
// Feed() takes chunks of any size; a line may span chunks, and feeding byte
// by byte gives the same History as feeding everything at once.  Line
// numbers are 1-based physical lines.  The reader does not allocate per
// line once a series has been seen.  A line inside one chunk whose metric
// name and label set are those predicted from the line before (history_builder.h)
// is read without searching its bytes for the line's end: the label set is
// compared, and the value and time in their common spelling read to the
// '\n' at once (ReadSimpleSampleEnd); any other line, or other ending, is
// read the general way, with the same result.
//
// Feed(chunk, runs) is Feed(chunk) with a first pass done elsewhere:
// FirstPass::Run(chunk, ...) (repeat_runs.h), run by the thread that read the
// chunk, finds the lines that repeat the line before them up to a value and
// a time in the common spelling, and reads those, and reads the label sets
// met for the first time; Feed then takes the runs from `runs` (when the
// reader read the line before a run with that very head), never touching
// their bytes, and a new series' labels from there.  Same History as
// Feed(chunk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/history.h"
#include "metrics/repeat_runs.h"
#include "model/status.h"

namespace kubeon::metrics {

class OpenMetricsReader {
 public:
  // starts_file: the input begins at the start of the file (a UTF-8 byte
  // order mark on line 1 is skipped).  False for a later piece of a file
  // split at line boundaries (see FinishPiece).
  OpenMetricsReader(IngestOptions options, std::string source_name, bool starts_file = true);
  ~OpenMetricsReader();
  OpenMetricsReader(OpenMetricsReader&&) noexcept;
  OpenMetricsReader& operator=(OpenMetricsReader&&) noexcept;

  void Feed(std::string_view chunk);
  // The first pass of Feed(chunk, runs), for one input's chunks in order:
  // Run(chunk, ...) reads only `chunk` and the pass's own state (the label
  // sets met so far), never a reader, so it may run on another thread.
  // It finds the chunk's runs (repeat_runs.h) and reads the label sets it
  // meets for the first time (their end, labels and UTF-8 check: most of
  // the work of a new series) into runs->new_series.  at_line_start: the
  // chunk starts a line (the input's first chunk, or the one before ended
  // with '\n'); a wrong value costs speed, never correctness.  A chunk of
  // which it reads less than a quarter of the lines (a file written time by
  // time) makes it leave the next kSkip chunks to the parser; a chunk with
  // no new label set, the next kSkip chunks' label sets.  Memory: 8
  // bytes a label set met, at most kMaxMet of them (then it reads none).
  class FirstPass {
   public:
    static constexpr size_t kMaxMet = size_t{1} << 21;
    FirstPass();
    ~FirstPass();
    void Run(std::string_view chunk, bool at_line_start, internal::RepeatRuns* runs);

   private:
    static constexpr int kSkip = 15;
    void Read(std::string_view chunk, bool at_line_start, internal::RepeatRuns* runs);
    // Whether a label set of this hash was met before; records it if not.
    bool Met(uint64_t hash);
    std::vector<uint64_t> met_;  // open-addressed hashes, 0 = empty
    size_t met_count_ = 0;
    int skip_ = 0;      // chunks left without a first pass
    int skip_new_ = 0;  // chunks left without looking for new label sets
  };
  // Same as Feed(chunk).  REQUIRES: a FirstPass's Run(chunk, ...) filled
  // `runs` (any FirstPass: its state only decides what it reads ahead).
  void Feed(std::string_view chunk, const internal::RepeatRuns& runs);
  // The History, or an error naming the source when the input holds no
  // data lines or more than options.max_bad_fraction of them are bad.
  // REQUIRES: called once; no Feed() afterwards.
  Result<History> Finish();

  // For one piece of a file split at line boundaries and read in parallel:
  // the History read so far without Finish()'s verdict (line numbers in its
  // bad-line examples count from the piece's first line), and whether the
  // piece held `# EOF` (then later pieces are all "data after # EOF": the
  // caller must read those serially).  REQUIRES: called once, instead of Finish().
  struct Piece {
    History history;
    bool saw_eof = false;
  };
  Piece FinishPiece();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubeon::metrics
