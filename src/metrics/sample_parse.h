// The pieces of one DCGM sample as text: metric name, value, timestamp.
//
// Contract (shared by the OpenMetrics and CSV readers, so both accept the
// same spellings):
//   * ClassifyMetric maps the three used metric names to a Metric, anything
//     else to Metric::kOther.
//   * ParseSampleValue accepts what Prometheus' text formats write: decimal
//     and scientific notation, an optional leading '+' or '-', NaN, Inf,
//     +Inf, -Inf.  It returns false for anything else (including trailing
//     characters); it does not judge the value (see CheckSampleValue).
//   * CheckSampleValue returns nullptr when the value can be used for the
//     metric, else the reason it cannot: NaN, infinite, negative, or (memory)
//     beyond 1e12 MiB.  Ratios above 1 are usable (the histogram clamps them).
//   * Timestamps become Unix milliseconds.  Unix seconds may be integer or
//     fractional ("1793527200", "1793527200.25", "1.7935272e9"); fractions
//     finer than a millisecond are rounded to the nearest millisecond.
//     RFC 3339 ("2026-11-01T10:00:00Z", "2026-11-01T12:00:00.5+02:00") is
//     accepted where the format allows it (CSV).  Times must lie in
//     [1970-01-01, 3000-01-01): a millisecond timestamp given where seconds
//     are required is out of range and reported as such, never rescaled.
//   * Parse* functions return nullptr on success, else a static reason string.
#pragma once

#include <cstdint>
#include <string_view>

namespace kubeon::metrics::internal {

enum class Metric : uint8_t { kOther, kFbUsed, kGrEngineActive, kGpuUtil };

Metric ClassifyMetric(std::string_view name);

bool ParseSampleValue(std::string_view text, double* value);

const char* CheckSampleValue(Metric metric, double value);

// Unix seconds (integer, fraction or scientific notation) -> ms.
const char* ParseUnixSeconds(std::string_view text, int64_t* ms);

// The common spelling of the end of an OpenMetrics sample line, read in
// one pass: [p, end) starts with " <value> <seconds>" and '\n' or "\r\n",
// where <value> is digits with an optional '.' and at least one fraction
// digit, at most 15 digits in all, and <seconds> is 1 to 11 digits below
// the year 3000 (32503680000).  Returns the position of that '\n', with
// *value and *ts_ms exactly what ParseSampleValue and ParseUnixSeconds give
// for those two texts; nullptr for any other bytes, *value and *ts_ms then
// unspecified (the caller reads the line the general way, which reports
// what is wrong).  Reads only [p, end).
const char* ReadSimpleSampleEnd(const char* p, const char* end, double* value, int64_t* ts_ms);

// RFC 3339 date-time with 'T', 't' or ' ' between date and time, and 'Z',
// 'z' or a numeric offset -> Unix ms.
const char* ParseRfc3339(std::string_view text, int64_t* ms);

// RFC 3339 when the text looks like a date ("dddd-"), else Unix seconds.
const char* ParseCsvTimestamp(std::string_view text, int64_t* ms);

// Removes leading and trailing blanks (spaces and tabs).
inline std::string_view TrimBlanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace kubeon::metrics::internal
