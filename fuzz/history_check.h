// Shared by the history-file harnesses (openmetrics_fuzz.cc, csv_fuzz.cc):
// the invariants of a metrics::History (metrics/history.h) and of a
// streaming reader (the same input fed whole or in pieces gives the same
// History), so both readers are held to one contract.
//
// FeedAndCheck<Reader>(bytes, source):
//  - reads `bytes` three ways: in one Feed(), in three pieces split at
//    positions derived from the input, and one byte at a time when the input
//    is small (the contract of both readers: chunking does not change the result);
//    a reader with a first pass done elsewhere (OpenMetricsReader::FirstPass)
//    also reads the three pieces with their runs, found with the right and
//    with the wrong at_line_start, for the same result;
//  - no exception escapes (checked by the caller);
//  - an error is one line that names the source; the three ways agree on
//    the error text or on the History (Describe() below);
//  - a History has consistent counts (bad_lines <= data_lines <= lines,
//    at most kMaxBadExamples examples, their line numbers within the input,
//    per-pod samples summing to at most stats.samples, first <= last
//    timestamp, non-empty namespace for every pod, histogram counts no
//    larger than the pod's samples, peak memory -1 or >= 0).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz/fuzz_check.h"
#include "metrics/history.h"
#include "metrics/repeat_runs.h"

namespace kubeon::fuzz {

// Everything a History holds that a reader decides, as text for comparison.
inline std::string Describe(const metrics::History& h) {
  std::ostringstream o;
  const auto& s = h.stats;
  o << "lines=" << s.lines << " data=" << s.data_lines << " samples=" << s.samples << " bad=" << s.bad_lines
    << " ignored=" << s.ignored_metric_lines << " unattributed=" << s.unattributed_lines << "\n";
  for (size_t i = 0; i < s.first_bad_line_numbers.size(); ++i) {
    o << "bad " << s.first_bad_line_numbers[i] << ": "
      << (i < s.first_bad_reasons.size() ? s.first_bad_reasons[i] : "?") << "\n";
  }
  for (const auto& m : s.metrics_seen) o << "metric " << m << "\n";
  for (const auto& [key, u] : h.pods) {
    o << "pod " << key.namespace_ << "/" << key.pod << " peak=" << u.peak_memory_mib << " ts=" << u.first_ts_ms
      << ".." << u.last_ts_ms << " n=" << u.samples << " bad=" << u.bad_samples << " c=" << u.compute.count() << "/"
      << u.compute.Quantile(1) << " u=" << u.gpu_util.count() << "/" << u.gpu_util.Quantile(1) << " host="
      << u.hostname << " uuid=" << u.gpu_uuid << " model=" << u.model_name << " mig=" << u.mig_profile
      << " ctr=" << u.container << " gpus=" << u.gpus.size() << "\n";
  }
  return o.str();
}

inline void CheckHistory(const metrics::History& h) {
  const auto& s = h.stats;
  const std::string d = Describe(h).substr(0, 2000);
  FUZZ_CHECK(s.bad_lines <= s.data_lines && s.data_lines <= s.lines, d);
  FUZZ_CHECK(s.first_bad_line_numbers.size() == s.first_bad_reasons.size(), d);
  FUZZ_CHECK(s.first_bad_line_numbers.size() <= metrics::kMaxBadExamples, d);
  FUZZ_CHECK(s.first_bad_line_numbers.size() <= s.bad_lines, d);
  for (uint64_t line : s.first_bad_line_numbers) FUZZ_CHECK(line >= 1 && line <= s.lines, d);
  for (const auto& r : s.first_bad_reasons) FUZZ_CHECK(IsOneLine(r), "bad-line reason not one line: " + r.substr(0, 200));
  uint64_t pod_samples = 0;
  for (const auto& [key, u] : h.pods) {
    FUZZ_CHECK(!key.pod.empty() && !key.namespace_.empty(), d);
    FUZZ_CHECK(u.samples > 0 || u.bad_samples > 0, d);
    if (u.samples > 0) FUZZ_CHECK(u.first_ts_ms <= u.last_ts_ms, d);
    FUZZ_CHECK(u.peak_memory_mib >= -1, d);
    FUZZ_CHECK(u.compute.count() <= u.samples && u.gpu_util.count() <= u.samples, d);
    pod_samples += u.samples;
  }
  FUZZ_CHECK(pod_samples <= s.samples, d);
}

template <typename Reader>
concept FindsRuns = requires(std::string_view chunk, metrics::internal::RepeatRuns* runs) {
  typename Reader::FirstPass;
  std::declval<typename Reader::FirstPass&>().Run(chunk, true, runs);
};

// How a way of reading feeds the three pieces.
enum class Runs { kNone, kRightLineStarts, kWrongLineStarts };

// The outcome of one way of reading, for comparison: the error or the History.
template <typename Reader>
std::string ReadAll(std::string_view bytes, const std::string& source, size_t cut1, size_t cut2, bool byte_by_byte,
                    Runs runs = Runs::kNone) {
  metrics::IngestOptions options;
  options.threads = 1;
  Reader reader(options, source);
  [[maybe_unused]] auto first_pass = [] {
    if constexpr (FindsRuns<Reader>) {
      return typename Reader::FirstPass();
    } else {
      return 0;
    }
  }();
  auto feed = [&](size_t from, size_t to) {
    const std::string_view piece = bytes.substr(from, to - from);
    if constexpr (FindsRuns<Reader>) {
      if (runs != Runs::kNone) {
        metrics::internal::RepeatRuns found;
        const bool at_line_start = from == 0 || bytes[from - 1] == '\n';
        first_pass.Run(piece, at_line_start != (runs == Runs::kWrongLineStarts), &found);
        reader.Feed(piece, found);
        return;
      }
    }
    reader.Feed(piece);
  };
  if (byte_by_byte) {
    for (size_t i = 0; i < bytes.size(); ++i) reader.Feed(bytes.substr(i, 1));
  } else {
    feed(0, cut1);
    feed(cut1, cut2);
    feed(cut2, bytes.size());
  }
  auto result = reader.Finish();
  if (!result.ok()) {
    const std::string& m = result.status().message();
    FUZZ_CHECK(IsOneLine(m), "error is not one line: " + m.substr(0, 300));
    FUZZ_CHECK(m.find(source) != std::string::npos, "error does not name the source: " + m.substr(0, 300));
    return "error: " + m;
  }
  CheckHistory(*result);
  return Describe(*result);
}

// Inputs up to this size are also fed one byte at a time.
inline constexpr size_t kByteByByteMax = 4096;

template <typename Reader>
void FeedAndCheck(std::string_view bytes, const std::string& source) {
  const size_t n = bytes.size();
  const std::string whole = ReadAll<Reader>(bytes, source, n, n, false);
  // Cut points that depend on the input, so the fuzzer explores them too.
  const size_t seed = n == 0 ? 0 : static_cast<unsigned char>(bytes[0]) * 31u + static_cast<unsigned char>(bytes[n - 1]);
  const size_t cut1 = n == 0 ? 0 : seed % (n + 1);
  const size_t cut2 = cut1 + (n - cut1) / 2;
  const std::string pieces = ReadAll<Reader>(bytes, source, cut1, cut2, false);
  FUZZ_CHECK(pieces == whole, "feeding in pieces (" + std::to_string(cut1) + ", " + std::to_string(cut2) +
                                  ") changed the result:\n--- whole\n" + whole.substr(0, 1500) + "\n--- pieces\n" +
                                  pieces.substr(0, 1500));
  if constexpr (FindsRuns<Reader>) {
    // Whole, so that most lines are in a piece's runs; and in the pieces.
    for (Runs runs : {Runs::kRightLineStarts, Runs::kWrongLineStarts}) {
      for (auto [c1, c2] : {std::pair{n, n}, std::pair{cut1, cut2}}) {
        const std::string with_runs = ReadAll<Reader>(bytes, source, c1, c2, false, runs);
        FUZZ_CHECK(with_runs == whole, std::string("feeding with runs (") +
                                           (runs == Runs::kWrongLineStarts ? "wrong" : "right") + " line starts, " +
                                           std::to_string(c1) + ", " + std::to_string(c2) +
                                           ") changed the result:\n--- whole\n" + whole.substr(0, 1500) +
                                           "\n--- with runs\n" + with_runs.substr(0, 1500));
      }
    }
  }
  if (n <= kByteByByteMax) {
    const std::string bytewise = ReadAll<Reader>(bytes, source, 0, 0, true);
    FUZZ_CHECK(bytewise == whole, "feeding byte by byte changed the result:\n--- whole\n" + whole.substr(0, 1500) +
                                      "\n--- bytewise\n" + bytewise.substr(0, 1500));
  }
}

}  // namespace kubeon::fuzz
