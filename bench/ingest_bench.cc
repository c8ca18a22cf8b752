// DCGM history ingest throughput.
//
//   KUBEON_INGEST_FILE=/path/h.om ingest_bench      # a real or generated file
//   ingest_bench                                    # generates a small one in /tmp
//   KUBEON_INGEST_THREADS=1 ingest_bench            # IngestOptions::threads (default 0: all cores)
//   KUBEON_INGEST_KEEP=1 ingest_bench               # Histories left to the exit, as `plan` does
//   KUBEON_INGEST_FIRST_PASS=always|never ingest_bench  # IngestOptions::first_pass (default: when the
//                                                   # parser is busy; `never` gives stable instruction counts)
//
// BM_ReadHistoryFile reads the file through ReadHistoryFile (1 MiB buffer,
// format by content), reporting samples/s (accepted + unattributed +
// ignored, i.e. sample lines) and bytes/s.  BM_OpenMetricsFeed and
// BM_CsvFeed parse in-memory synthetic text (no I/O) in series and in time
// order; BM_HistogramAdd is the per-sample histogram cost.  bench/ingest_vs_wc.sh
// compares BM_ReadHistoryFile with `wc -l` on a 20 M-sample file.
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "cli/exit_memory.h"
#include "metrics/csv_reader.h"
#include "metrics/history.h"
#include "metrics/openmetrics_reader.h"
#include "metrics/synthetic_history.h"

namespace {

using kubeon::metrics::CsvReader;
using kubeon::metrics::History;
using kubeon::metrics::IngestOptions;
using kubeon::metrics::OpenMetricsReader;
using kubeon::metrics::SyntheticOptions;

uint64_t SampleLines(const History& h) {
  return h.stats.samples + h.stats.unattributed_lines + h.stats.ignored_metric_lines;
}

// The file to read: $KUBEON_INGEST_FILE, else a 1 M-sample file generated
// once into /tmp.
std::string IngestFile() {
  if (const char* env = std::getenv("KUBEON_INGEST_FILE"); env != nullptr && *env != '\0') {
    return env;
  }
  static std::string path = [] {
    std::string p = "/tmp/kubeon-ingest-bench-1m.om";
    SyntheticOptions o;
    o.series = 1000;
    o.samples_per_series = 1000;
    std::FILE* f = std::fopen(p.c_str(), "wb");
    if (f == nullptr) return std::string();
    kubeon::Status s = kubeon::metrics::WriteSyntheticHistory(o, [f](std::string_view piece) {
      return std::fwrite(piece.data(), 1, piece.size(), f) == piece.size();
    });
    bool closed = std::fclose(f) == 0;
    return s.ok() && closed ? p : std::string();
  }();
  return path;
}

void BM_ReadHistoryFile(benchmark::State& state) {
  std::string path = IngestFile();
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) {
    state.SkipWithError("no input file (KUBEON_INGEST_FILE, or /tmp not writable)");
    return;
  }
  IngestOptions options;
  if (const char* env = std::getenv("KUBEON_INGEST_THREADS"); env != nullptr && *env != '\0') {
    options.threads = static_cast<unsigned>(std::atoi(env));
  }
  if (const char* env = std::getenv("KUBEON_INGEST_FIRST_PASS"); env != nullptr && *env != '\0') {
    const std::string_view v = env;
    if (v != "always" && v != "never" && v != "busy") {
      state.SkipWithError("KUBEON_INGEST_FIRST_PASS must be always, never or busy");
      return;
    }
    options.first_pass = v == "always"  ? IngestOptions::FirstPass::kAlways
                         : v == "never" ? IngestOptions::FirstPass::kNever
                                        : IngestOptions::FirstPass::kWhenParserBusy;
  }
  // KUBEON_INGEST_KEEP=1: each History is left to the exit of the process,
  // never freed, as `plan` leaves it (cli/exit_memory.h); bench/ingest_vs_wc.sh
  // sets it, so that the process does what the command does.  Otherwise each
  // is freed in the timed loop.
  const char* keep_env = std::getenv("KUBEON_INGEST_KEEP");
  const bool keep = keep_env != nullptr && std::string_view(keep_env) == "1";
  if (keep) kubeon::cli::EnableLeaveForExit();
  uint64_t samples = 0;
  for (auto _ : state) {
    auto h = kubeon::metrics::ReadHistoryFile(path, options);
    if (!h.ok()) {
      state.SkipWithError(h.status().message().c_str());
      return;
    }
    samples = SampleLines(*h);
    benchmark::DoNotOptimize(h->pods.size());
    kubeon::cli::LeaveForExit(std::move(*h));
  }
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(static_cast<double>(st.st_size),
                                                 benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1024);
  state.counters["samples"] = static_cast<double>(samples);
}
BENCHMARK(BM_ReadHistoryFile)->Unit(benchmark::kMillisecond)->UseRealTime();

template <typename Reader>
void FeedText(benchmark::State& state, SyntheticOptions o) {
  o.series = 400;
  o.samples_per_series = 500;
  auto text = kubeon::metrics::SyntheticHistoryText(o);
  if (!text.ok()) {
    state.SkipWithError(text.status().message().c_str());
    return;
  }
  uint64_t samples = 0;
  for (auto _ : state) {
    Reader reader(IngestOptions(), "bench");
    // 1 MiB pieces, as ReadHistoryFile feeds them.
    for (size_t i = 0; i < text->size(); i += 1 << 20) {
      reader.Feed(std::string_view(*text).substr(i, 1 << 20));
    }
    auto h = reader.Finish();
    if (!h.ok()) {
      state.SkipWithError(h.status().message().c_str());
      return;
    }
    samples = SampleLines(*h);
  }
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(samples), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(static_cast<double>(text->size()),
                                                 benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::kIs1024);
}

void BM_OpenMetricsFeed(benchmark::State& state) {
  SyntheticOptions o;
  o.order = state.range(0) == 0 ? SyntheticOptions::Order::kSeries : SyntheticOptions::Order::kTime;
  state.SetLabel(state.range(0) == 0 ? "series order" : "time order");
  FeedText<OpenMetricsReader>(state, o);
}
BENCHMARK(BM_OpenMetricsFeed)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_CsvFeed(benchmark::State& state) {
  SyntheticOptions o;
  o.format = SyntheticOptions::Format::kCsv;
  o.order = state.range(0) == 0 ? SyntheticOptions::Order::kSeries : SyntheticOptions::Order::kTime;
  state.SetLabel(state.range(0) == 0 ? "series order" : "time order");
  FeedText<CsvReader>(state, o);
}
BENCHMARK(BM_CsvFeed)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_HistogramAdd(benchmark::State& state) {
  kubeon::metrics::ComputeHistogram h;
  double x = 0;
  for (auto _ : state) {
    h.Add(x);
    x += 0.000731;
    if (x > 1) x -= 1;
  }
  benchmark::DoNotOptimize(h.count());
}
BENCHMARK(BM_HistogramAdd);

}  // namespace

BENCHMARK_MAIN();
