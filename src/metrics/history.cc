// See history.h for the contract.
#include "metrics/history.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "metrics/csv_reader.h"
#include "metrics/history_builder.h"
#include "metrics/openmetrics_reader.h"
#include "metrics/read_ahead.h"
#include "metrics/sample_parse.h"
#include "model/run_parts.h"

namespace kubeon::metrics {
namespace {

constexpr size_t kReadBuffer = 1 << 20;

enum class Format { kUnknown, kOpenMetrics, kCsv };

bool IsMetricStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool IsMetricChar(char c) { return IsMetricStart(c) || (c >= '0' && c <= '9'); }

// Decides from the first non-blank line of `head` (the start of the file).
Format FormatFromContent(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  while (!head.empty()) {
    size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = internal::TrimBlanks(line);
    if (line.empty()) continue;
    if (line[0] == '#') return Format::kOpenMetrics;
    size_t i = 0;
    if (IsMetricStart(line[0])) {
      while (i < line.size() && IsMetricChar(line[i])) ++i;
      if (i < line.size() && (line[i] == '{' || line[i] == ' ' || line[i] == '\t')) {
        return Format::kOpenMetrics;
      }
    }
    // A CSV header naming a `timestamp` column (possibly quoted).
    if (line.find(',') == std::string_view::npos) return Format::kUnknown;
    size_t start = 0;
    while (true) {
      size_t comma = line.find(',', start);
      size_t len = comma == std::string_view::npos ? std::string_view::npos : comma - start;
      std::string_view cell = internal::TrimBlanks(line.substr(start, len));
      if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') {
        cell = cell.substr(1, cell.size() - 2);
      }
      if (cell == "timestamp") return Format::kCsv;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return Format::kUnknown;
  }
  return Format::kUnknown;
}

Format FormatFromExtension(const std::string& path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return Format::kUnknown;
  }
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "csv") return Format::kCsv;
  if (ext == "om" || ext == "txt" || ext == "prom" || ext == "openmetrics") {
    return Format::kOpenMetrics;
  }
  return Format::kUnknown;
}

// Reads up to buf.size() bytes (fewer only at end of file): with pread at
// `offset`, or from the file position when offset < 0.
ssize_t ReadFull(int fd, std::vector<char>& buf, int64_t offset = -1) {
  size_t got = 0;
  while (got < buf.size()) {
    ssize_t n = offset < 0 ? ::read(fd, buf.data() + got, buf.size() - got)
                           : ::pread(fd, buf.data() + got, buf.size() - got, static_cast<off_t>(offset) + static_cast<off_t>(got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool Stopped(const std::atomic<bool>* stop) { return stop != nullptr && stop->load(std::memory_order_relaxed); }

// Feeds `reader` the first `first` bytes already in buf, then the rest of
// the file from its position: a chunk ahead on a second thread when
// `read_ahead` (a regular file: its reads never block for ever), else on
// this one.
template <typename Reader>
Result<History> Stream(Reader reader, int fd, std::vector<char>& buf, size_t first, const std::string& path,
                       const IngestOptions& options, bool read_ahead) {
  const std::atomic<bool>* stop = options.stop;
  if (first > 0) reader.Feed(std::string_view(buf.data(), first));
  if (first < buf.size()) return reader.Finish();  // short read: end of file
  if (read_ahead) {
    // OpenMetrics: the reading thread also finds each chunk's repeated lines
    // in the bytes it has just copied (repeat_runs.h), a RepeatRuns per
    // buffer, unless the parser already waits for the chunk (kWhenParserBusy):
    // then the parser reads it all, and the two threads share the work as
    // their speeds allow (a file's first metric, its series new, is slow to
    // parse; the others are quick to parse once their lines are found).
    using FirstPass = IngestOptions::FirstPass;
    const bool find = std::is_same_v<Reader, OpenMetricsReader> && options.first_pass != FirstPass::kNever;
    const bool always = options.first_pass == FirstPass::kAlways;
    constexpr size_t kBuffers = 8;
    std::array<internal::RepeatRuns, kBuffers> runs;
    bool at_line_start = buf[first - 1] == '\n';  // first == buf.size() > 0 here
    OpenMetricsReader::FirstPass first_pass;  // the reading thread's
    internal::ReadAhead::Prepare find_runs;
    if (find) {
      find_runs = [&runs, &at_line_start, &first_pass, always](std::string_view chunk, size_t slot,
                                                                bool parser_waiting) {
        if (parser_waiting && !always) {
          runs[slot].Clear();
        } else {
          first_pass.Run(chunk, at_line_start, &runs[slot]);
        }
        at_line_start = chunk.back() == '\n';
      };
    }
    internal::ReadAhead ahead(
        kReadBuffer, [fd](std::vector<char>& b) { return ReadFull(fd, b); }, stop, kBuffers, std::move(find_runs));
    for (std::string_view chunk = ahead.Next(); !chunk.empty(); chunk = ahead.Next()) {
      if constexpr (std::is_same_v<Reader, OpenMetricsReader>) {
        reader.Feed(chunk, runs[ahead.slot()]);  // without a first pass: no runs, read as Feed(chunk)
      } else {
        reader.Feed(chunk);
      }
      if (Stopped(stop)) return Status::Error(path + ": " + kStoppedMessage);
    }
    if (ahead.error() == ECANCELED) return Status::Error(path + ": " + kStoppedMessage);
    if (ahead.error() != 0) return Status::Error(path + ": read error: " + std::strerror(ahead.error()));
    return reader.Finish();
  }
  while (true) {
    if (Stopped(stop)) return Status::Error(path + ": " + kStoppedMessage);
    ssize_t got = ReadFull(fd, buf);
    if (got < 0) return Status::Error(path + ": read error: " + std::strerror(errno));
    if (got > 0) reader.Feed(std::string_view(buf.data(), static_cast<size_t>(got)));
    if (static_cast<size_t>(got) < buf.size()) return reader.Finish();
  }
}

unsigned PieceCount(const IngestOptions& options, uint64_t size) {
  if (size < options.parallel_min_bytes || size == 0) return 1;
  unsigned n = options.threads;
  if (n == 0) n = std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<unsigned>(std::min<uint64_t>(n, size));
}

// Piece boundaries of a file of `size` bytes: begin offsets, each (after the
// first) just after a '\n', strictly increasing; the last piece ends at size.
Result<std::vector<uint64_t>> SplitAtLines(int fd, uint64_t size, unsigned pieces, const std::string& path) {
  std::vector<uint64_t> begins = {0};
  std::vector<char> buf(64 << 10);
  for (unsigned k = 1; k < pieces; ++k) {
    uint64_t at = std::max(size / pieces * k, begins.back());
    uint64_t boundary = size;
    while (at < size) {
      ssize_t got = ReadFull(fd, buf, static_cast<int64_t>(at));
      if (got < 0) return Status::Error(path + ": read error: " + std::strerror(errno));
      if (got == 0) break;
      const char* nl = static_cast<const char*>(std::memchr(buf.data(), '\n', static_cast<size_t>(got)));
      if (nl != nullptr) {
        boundary = at + static_cast<uint64_t>(nl - buf.data()) + 1;
        break;
      }
      at += static_cast<uint64_t>(got);
    }
    if (boundary >= size) break;
    if (boundary > begins.back()) begins.push_back(boundary);
  }
  return begins;
}

// One OpenMetrics file read as pieces split at line boundaries, one thread
// per piece, merged in file order.  Returns nullopt when a piece before the
// last held `# EOF` (the later pieces must then be read as one stream).
Result<std::optional<History>> ReadOpenMetricsInPieces(int fd, uint64_t size, unsigned pieces,
                                                       const std::string& path, const IngestOptions& options) {
  Result<std::vector<uint64_t>> begins = SplitAtLines(fd, size, pieces, path);
  if (!begins.ok()) return begins.status();
  const size_t n = begins->size();
  std::vector<std::optional<OpenMetricsReader::Piece>> results(n);
  std::vector<int> read_errors(n, 0);
  auto read_piece = [&](size_t k) {
    const uint64_t begin = (*begins)[k];
    const uint64_t end = k + 1 < n ? (*begins)[k + 1] : size;
    OpenMetricsReader reader(options, path, /*starts_file=*/k == 0);
    std::vector<char> buf(kReadBuffer);
    for (uint64_t at = begin; at < end;) {
      if (Stopped(options.stop)) {
        read_errors[k] = ECANCELED;
        return;
      }
      if (end - at < buf.size()) buf.resize(static_cast<size_t>(end - at));
      ssize_t got = ReadFull(fd, buf, static_cast<int64_t>(at));
      if (got <= 0) {
        read_errors[k] = got < 0 ? errno : EIO;  // EIO: the file shrank while read
        return;
      }
      reader.Feed(std::string_view(buf.data(), static_cast<size_t>(got)));
      at += static_cast<uint64_t>(got);
    }
    results[k] = reader.FinishPiece();
  };
  model::RunParts(n, read_piece);
  for (size_t k = 0; k < n; ++k) {
    if (read_errors[k] == ECANCELED) return Status::Error(path + ": " + kStoppedMessage);
    if (read_errors[k] != 0) return Status::Error(path + ": read error: " + std::strerror(read_errors[k]));
  }
  for (size_t k = 0; k + 1 < n; ++k) {
    if (results[k]->saw_eof) return std::optional<History>();
  }
  History total = std::move(results[0]->history);
  uint64_t lines_before = total.stats.lines;
  for (size_t k = 1; k < n; ++k) {
    History& piece = results[k]->history;
    for (uint64_t& line : piece.stats.first_bad_line_numbers) line += lines_before;
    lines_before += piece.stats.lines;
    piece.source.clear();  // same file: no prefix, no ", path"
    MergeInto(total, std::move(piece));
  }
  return std::optional<History>(std::move(total));
}

void MergePod(PodUsage& dst, PodUsage&& src) {
  dst.peak_memory_mib = std::max(dst.peak_memory_mib, src.peak_memory_mib);
  if (dst.compute_in_percent != src.compute_in_percent) {
    (dst.compute_in_percent ? src : dst).compute.ReinterpretAsPercent(kRatioPercentThreshold);
    dst.compute_in_percent = true;
  }
  dst.compute.Merge(src.compute);
  dst.gpu_util.Merge(src.gpu_util);
  if (src.samples > 0) {
    dst.gaps.Merge(src.gaps);
    // A series split between two pieces or files: the gap between them.
    if (dst.samples > 0 && src.first_ts_ms > dst.last_ts_ms) dst.gaps.Add(src.first_ts_ms - dst.last_ts_ms);
    if (dst.samples == 0) {
      dst.first_ts_ms = src.first_ts_ms;
      dst.last_ts_ms = src.last_ts_ms;
    } else {
      dst.first_ts_ms = std::min(dst.first_ts_ms, src.first_ts_ms);
      dst.last_ts_ms = std::max(dst.last_ts_ms, src.last_ts_ms);
    }
    dst.hostname = std::move(src.hostname);
    dst.gpu_uuid = std::move(src.gpu_uuid);
    dst.model_name = std::move(src.model_name);
    dst.mig_profile = std::move(src.mig_profile);
    dst.container = std::move(src.container);
  }
  dst.samples += src.samples;
  dst.bad_samples += src.bad_samples;
  dst.gpus.merge(src.gpus);
}

}  // namespace

Result<History> ReadHistoryFile(const std::string& path, const IngestOptions& given) {
  // One time of reading for every piece of the file.
  IngestOptions options = given;
  if (options.now_ms == 0) options.now_ms = internal::WallClockMs();
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return Status::Error(path + ": cannot open: " + std::strerror(errno));
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  std::vector<char> buf(kReadBuffer);
  ssize_t first = ReadFull(fd.get(), buf);
  if (first < 0) return Status::Error(path + ": read error: " + std::strerror(errno));
  Format format = FormatFromContent(std::string_view(buf.data(), static_cast<size_t>(first)));
  if (format == Format::kUnknown) format = FormatFromExtension(path);
  struct stat st {};
  const bool regular = ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode);
  const bool read_ahead = regular && options.read_ahead;
  switch (format) {
    case Format::kOpenMetrics: {
      const unsigned pieces = regular ? PieceCount(options, static_cast<uint64_t>(st.st_size)) : 1;
      if (pieces > 1) {
        Result<std::optional<History>> h =
            ReadOpenMetricsInPieces(fd.get(), static_cast<uint64_t>(st.st_size), pieces, path, options);
        if (!h.ok()) return h.status();
        if (*h) return internal::Verdict(std::move(**h), options);
        // `# EOF` before the last piece: read it all as one stream (pread
        // left the file offset just after the first buffer).
      }
      return Stream(OpenMetricsReader(options, path), fd.get(), buf, static_cast<size_t>(first), path, options,
                    read_ahead);
    }
    case Format::kCsv:
      return Stream(CsvReader(options, path), fd.get(), buf, static_cast<size_t>(first), path, options,
                    read_ahead);
    case Format::kUnknown:
      break;
  }
  return Status::Error(path + (first == 0 ? ": empty file" : ": unknown format") +
                       " (expected OpenMetrics text or CSV with a timestamp column; "
                       "name the file .om or .csv)");
}

void MergeInto(History& dst, History&& src) {
  // Both maps are sorted: one walk through dst, src's nodes moved over whole
  // (no key copied, no allocation).
  auto at = dst.pods.begin();  // the first pod of dst not before src's next
  while (!src.pods.empty()) {
    auto node = src.pods.extract(src.pods.begin());
    while (at != dst.pods.end() && at->first < node.key()) ++at;
    if (at != dst.pods.end() && at->first == node.key()) {
      MergePod(at->second, std::move(node.mapped()));
    } else {
      dst.pods.insert(at, std::move(node));  // just before `at`, which stays next
    }
  }
  IngestStats& d = dst.stats;
  IngestStats& s = src.stats;
  d.lines += s.lines;
  d.data_lines += s.data_lines;
  d.samples += s.samples;
  d.bad_lines += s.bad_lines;
  d.ignored_metric_lines += s.ignored_metric_lines;
  d.unattributed_lines += s.unattributed_lines;
  bool prefix = !src.source.empty() && src.source != dst.source;
  for (size_t i = 0; i < s.first_bad_line_numbers.size(); ++i) {
    if (d.first_bad_line_numbers.size() >= kMaxBadExamples) break;
    d.first_bad_line_numbers.push_back(s.first_bad_line_numbers[i]);
    d.first_bad_reasons.push_back(prefix ? src.source + ": " + s.first_bad_reasons[i]
                                         : std::move(s.first_bad_reasons[i]));
  }
  d.metrics_seen.merge(s.metrics_seen);
  if (dst.source.empty()) {
    dst.source = std::move(src.source);
  } else if (!src.source.empty()) {
    dst.source += ", " + src.source;
  }
}

std::vector<std::string> HistoryWarnings(const History& history) {
  std::vector<std::string> out;
  size_t n = 0;
  std::string examples;
  for (const auto& [key, usage] : history.pods) {
    if (!usage.compute_in_percent) continue;
    if (n++ < 3) examples += (examples.empty() ? "" : ", ") + key.namespace_ + "/" + key.pod;
  }
  if (n > 0) {
    char threshold[16];
    std::snprintf(threshold, sizeof(threshold), "%g", kRatioPercentThreshold);
    out.push_back(std::to_string(n) + (n == 1 ? " pod exports " : " pods export ") + kGrEngineActiveMetric +
                  " in percent (values above " + threshold + ", where a ratio 0..1 is expected): read as percent / 100 (" +
                  examples + (n > 3 ? ", ..." : "") + ")");
  }
  return out;
}

WorkloadUsage Aggregate(const std::vector<const PodUsage*>& pods, double percentile) {
  return Aggregate(pods.data(), pods.size(), percentile);
}

WorkloadUsage Aggregate(const PodUsage* const* pods, size_t count, double percentile) {
  WorkloadUsage out;
  if (count == 1) {
    // One pod (most workloads at cluster scale): its own figures, the same as
    // the merge below gives, without the merged copies.
    const PodUsage& pod = *pods[0];
    if (pod.peak_memory_mib >= 0) {
      out.has_memory = true;
      out.peak_memory_mib = pod.peak_memory_mib;
    }
    const ComputeHistogram* compute = pod.compute.count() > 0    ? &pod.compute
                                      : pod.gpu_util.count() > 0 ? &pod.gpu_util
                                                                 : nullptr;
    if (compute != nullptr) {
      out.has_compute = true;
      out.peak_compute = compute->Quantile(percentile);
      out.compute_metric = compute == &pod.compute ? kGrEngineActiveMetric : kGpuUtilMetric;
    }
    const int64_t covered = pod.covered_ms();
    out.history_hours = covered > 0 ? static_cast<double>(covered) / 3.6e6 : 0;
    out.samples = pod.samples;
    out.bad_samples = pod.bad_samples;
    out.mig_profile = pod.mig_profile;
    return out;
  }
  bool any_gr = false;
  bool any_util = false;
  SampleCoverage coverage;
  std::set<std::string> profiles;
  for (size_t i = 0; i < count; ++i) {
    const PodUsage* pod = pods[i];
    if (pod->peak_memory_mib >= 0) {
      out.has_memory = true;
      out.peak_memory_mib = std::max(out.peak_memory_mib, pod->peak_memory_mib);
    }
    any_gr |= pod->compute.count() > 0;
    any_util |= pod->gpu_util.count() > 0;
    const int64_t covered = pod->covered_ms();
    if (covered > 0) coverage.AddRun(pod->last_ts_ms - covered, pod->last_ts_ms);
    out.samples += pod->samples;
    out.bad_samples += pod->bad_samples;
    if (!pod->mig_profile.empty()) profiles.insert(pod->mig_profile);
  }
  if (any_gr || any_util) {
    ComputeHistogram merged;
    for (size_t i = 0; i < count; ++i) merged.Merge(any_gr ? pods[i]->compute : pods[i]->gpu_util);
    out.has_compute = true;
    out.peak_compute = merged.Quantile(percentile);
    out.compute_metric = any_gr ? kGrEngineActiveMetric : kGpuUtilMetric;
  }
  out.history_hours = static_cast<double>(coverage.CoveredMs()) / 3.6e6;
  for (const std::string& p : profiles) {
    if (!out.mig_profile.empty()) out.mig_profile += ",";
    out.mig_profile += p;
  }
  return out;
}

}  // namespace kubeon::metrics
