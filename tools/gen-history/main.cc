// gen-history: writes a deterministic synthetic dcgm-exporter history file.
//
//   gen-history --series 2000 --samples-per-series 10000 --interval 30 --out h.om
//               [--format openmetrics|csv] [--order series|time] [--seed 1]
//               [--start 1793527200] [--exported-labels]
//
// The file holds exactly series * samples-per-series samples; what a reader
// must find in it is printed to stderr (see metrics/synthetic_history.h).
// The OpenMetrics output is accepted by
// `promtool tsdb create-blocks-from openmetrics`.  Exit status 0 on success,
// 1 on a write error, 2 on bad arguments.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "metrics/synthetic_history.h"

int main(int argc, char** argv) {
  using kubeon::metrics::SyntheticOptions;
  SyntheticOptions options;
  std::string out_path;
  const CLI::Range positive(int64_t{1}, int64_t{1} << 40);
  CLI::App app{"Writes a synthetic dcgm-exporter history (OpenMetrics or CSV)."};
  app.add_option("--series", options.series, "Prometheus series (metric + label set)")
      ->check(positive);
  app.add_option("--samples-per-series", options.samples_per_series, "samples per series")
      ->check(positive);
  app.add_option("--interval", options.interval_seconds, "seconds between samples")
      ->check(positive);
  app.add_option("--start", options.start_unix_seconds, "Unix seconds of the first sample")
      ->check(CLI::Range(int64_t{0}, int64_t{32503680000} - 1));
  app.add_option("--seed", options.seed, "random seed");
  app.add_option("--out", out_path, "output file")->required();
  std::map<std::string, SyntheticOptions::Format> formats{
      {"openmetrics", SyntheticOptions::Format::kOpenMetrics},
      {"csv", SyntheticOptions::Format::kCsv}};
  app.add_option("--format", options.format, "openmetrics (default) or csv")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case));
  std::map<std::string, SyntheticOptions::Order> orders{
      {"series", SyntheticOptions::Order::kSeries}, {"time", SyntheticOptions::Order::kTime}};
  app.add_option("--order", options.order,
                 "series: each series' samples together (default); time: per family, "
                 "all series at each time")
      ->transform(CLI::CheckedTransformer(orders, CLI::ignore_case));
  app.add_flag("--exported-labels", options.exported_labels,
               "label pods as exported_* beside the exporter's own namespace/pod");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  std::FILE* out = std::fopen(out_path.c_str(), "wb");
  if (out == nullptr) {
    std::fprintf(stderr, "gen-history: %s: %s\n", out_path.c_str(), std::strerror(errno));
    return 1;
  }
  kubeon::Status status =
      kubeon::metrics::WriteSyntheticHistory(options, [out](std::string_view piece) {
        return std::fwrite(piece.data(), 1, piece.size(), out) == piece.size();
      });
  bool closed = std::fclose(out) == 0;
  if (!status.ok() || !closed) {
    std::fprintf(stderr, "gen-history: %s: %s\n", out_path.c_str(),
                 status.ok() ? std::strerror(errno) : status.message().c_str());
    return 1;
  }
  kubeon::metrics::SyntheticCounts expected = kubeon::metrics::ExpectedCounts(options);
  std::fprintf(stderr,
               "gen-history: wrote %s: %llu samples (%llu on %llu pods, %llu unattributed, "
               "%llu ignored metrics)\n",
               out_path.c_str(),
               static_cast<unsigned long long>(options.series * options.samples_per_series),
               static_cast<unsigned long long>(expected.samples),
               static_cast<unsigned long long>(expected.pods),
               static_cast<unsigned long long>(expected.unattributed),
               static_cast<unsigned long long>(expected.ignored));
  return 0;
}
