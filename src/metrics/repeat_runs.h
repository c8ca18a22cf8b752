// RepeatRuns: a first pass over a chunk of OpenMetrics text that finds the
// lines a parser need not read.  dcgm-exporter histories written series by
// series are mostly lines that repeat the line before them up to the value
// (the same metric name and label set, byte for byte, ~170 bytes) followed
// by a value and a time in their common spelling.  FindRepeatRuns runs on
// the read-ahead thread, on the bytes it has just copied (history.cc); the
// parser then takes each run's values and times from here and touches none
// of its bytes (OpenMetricsReader::Feed(chunk, runs)), so the two cores
// share the work of one file.
//
// Contract of FindRepeatRuns(chunk, at_line_start, max_line_bytes, out):
//   * *out is overwritten (its vectors' storage reused); reads only chunk.
//   * Region: [region_begin, region_end) are the chunk's whole lines: from 0
//     when at_line_start (the chunk starts a line), else just after the first
//     '\n', to just after the last '\n'; empty (both 0) when the chunk holds
//     no whole line.  Lines outside it are not described.
//   * Runs: in order, disjoint, inside the region; each is `count` >= 1
//     whole lines [begin, end) (begin at a line start, end just after a
//     '\n'), preceded inside the region by at least one line that is in no
//     run.  Each line L of a run, and the line P just before it:
//       - P and L have the same first `head` bytes and L's byte at `head` is
//         ' ' (head >= 1, the same for every line of the run);
//       - ReadSimpleSampleEnd(L + head) reads L to its '\n' (sample_parse.h),
//         giving samples[first + k] for the run's k-th line;
//       - L is at most max_line_bytes long, its '\n' not counted.
//     `head` is found on the line before the run's first line: its bytes
//     before " <digits and '.'> <digits>" at its end.  Nothing here says that
//     those bytes are a well-formed metric name and label set: a parser uses
//     a run only when it read the line before it with a head of exactly
//     that length (so of those very bytes), and reads the run's lines itself
//     otherwise.
//   * Heads: every line of the region that is in no run and has a head (as
//     defined above: its bytes before " <digits and '.'> <digits>" at its
//     end), in order: its offset and its head.
//   * new_series is left empty: OpenMetricsReader's FirstPass fills it
//     after FindRepeatRuns (label sets met for the first time, read ahead).
//   * Clear() describes no line (a RepeatRuns left so is valid for any chunk).
//   * Lines that are not in a run (a series' first line, other spellings,
//     comments, CRLF endings are fine) are left to the parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "metrics/history_builder.h"

namespace kubeon::metrics::internal {

struct RepeatRuns {
  struct Run {
    uint32_t begin = 0;  // offsets in the chunk
    uint32_t end = 0;
    uint32_t head = 0;
    uint32_t first = 0;  // index of the run's first sample
    uint32_t count = 0;
  };
  struct Sample {
    double value = 0;
    int64_t ts_ms = 0;
  };
  struct Head {
    uint32_t line = 0;  // offset of the line in the chunk
    uint32_t head = 0;
  };
  // A line whose label set the first pass met for the first time, its labels
  // read (see OpenMetricsReader::FirstPass).
  struct NewSeries {
    uint32_t line = 0;    // offset of the line in the chunk
    uint32_t key_at = 0;  // the label set, between its braces: offset and size in the chunk
    uint32_t key_size = 0;
    uint64_t hash = 0;    // ViewIndex<Series>::Hash of the label set
    SeriesLabels labels;  // views into the chunk, utf8_checked
  };
  size_t region_begin = 0;
  size_t region_end = 0;
  std::vector<Run> runs;
  std::vector<Sample> samples;
  std::vector<Head> heads;
  std::vector<NewSeries> new_series;

  // No region, no runs: the parser reads the whole chunk itself.
  void Clear() {
    region_begin = region_end = 0;
    runs.clear();
    samples.clear();
    heads.clear();
    new_series.clear();
  }
};

// REQUIRES: chunk.size() < 2^32, max_line_bytes >= 1.
void FindRepeatRuns(std::string_view chunk, bool at_line_start, size_t max_line_bytes, RepeatRuns* out);

}  // namespace kubeon::metrics::internal
