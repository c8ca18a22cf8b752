// gen-cluster: writes a synthetic GPU cluster (cluster.json), its DCGM
// history (history.om), a GpuPolicy (policy.yaml) and instance prices
// (prices.yaml) for `kubeon-gpu plan`.  See synthetic.h for the presets.
//
//   gen-cluster --preset demo --out examples/demo
//   gen-cluster --preset scale --nodes 10000 --gpus-per-node 8 --out /tmp/scale [--history-samples 24] [--compact]
//   gen-cluster --preset full --nodes 10000 --out /tmp/full   (every GPU held, one Deployment each)
//   (--compact: cluster.json with only the fields kubeon reads, one item per line)
//
// Exit codes: 0 written, 1 failure (message on stderr), 2 usage error.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "gen-cluster/synthetic.h"

namespace {

using kubeon::gencluster::Options;
using kubeon::gencluster::Preset;
using kubeon::gencluster::SyntheticCluster;

std::string FileSize(const std::filesystem::path& p) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(p, ec);
  if (ec) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

void Summary(const SyntheticCluster& c, const std::string& dir, double seconds) {
  int gpus = 0, held = 0, gpu_pods = 0, series = 0;
  for (const auto& n : c.nodes) gpus += c.InstanceOf(n).gpus;
  for (const auto& p : c.pods) {
    if (p.in_snapshot && !p.gpus.empty()) {
      ++gpu_pods;
      held += static_cast<int>(p.gpus.size());
    }
    if (p.HasHistory()) series += static_cast<int>(p.gpus.size());
  }
  const std::filesystem::path d(dir);
  const std::string history =
      c.history ? std::to_string(c.SampleCount(c.history_start, c.history_end)) + " samples " +
                      std::to_string(c.interval_seconds) + " s apart, " + std::to_string(series) +
                      " GPU series x 4 metrics"
                : "none";
  std::fprintf(stderr,
               "gen-cluster: %s preset, seed %llu: %zu nodes, %d GPUs, %d GPU pods holding %d GPUs, %zu workloads\n"
               "  history: %s\n"
               "  %s/cluster.json %s, history.om %s, policy.yaml, prices.yaml in %.1fs\n",
               c.preset.c_str(), static_cast<unsigned long long>(c.seed), c.nodes.size(), gpus, gpu_pods, held,
               c.workloads.size(), history.c_str(), dir.c_str(), FileSize(d / "cluster.json").c_str(),
               c.history ? FileSize(d / "history.om").c_str() : "(--no-history)", seconds);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gen-cluster writes a synthetic GPU cluster for kubeon-gpu: cluster.json (the JSON List of `kubectl get "
               "nodes,pods,poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json`), history.om "
               "(dcgm-exporter history as OpenMetrics with timestamps, accepted by `promtool tsdb "
               "create-blocks-from openmetrics`), policy.yaml (a GpuPolicy) and prices.yaml. The same options "
               "always give the same bytes.",
               "gen-cluster"};
  Options o;
  std::string preset = "demo";
  std::string out;
  bool no_history = false;
  app.add_option("--preset", preset,
                 "demo: 12 nodes, 48 GPU pods, every planner case; scale: a large cluster; full: every GPU of "
                 "--nodes A100-80GB nodes held by a single-replica Deployment, no PDBs")
      ->check(CLI::IsMember({"demo", "scale", "full"}));
  app.add_option("--out", out, "Directory to write the four files into (created when missing)")->required();
  app.add_option("--seed", o.seed, "Random seed (default " + std::to_string(kubeon::gencluster::kDefaultSeed) + ")");
  auto* nodes = app.add_option("--nodes", o.nodes, "scale, full: number of nodes (default 10000)");
  auto* gpn = app.add_option("--gpus-per-node", o.gpus_per_node, "scale, full: GPUs per node, 1..16 (default 8)");
  app.add_option("--history-days", o.history_days, "Length of the history window in days (default 3)");
  auto* samples = app.add_option("--history-samples", o.history_samples,
                                 "Samples per series over the window (scale default 24)");
  auto* interval = app.add_option("--interval", o.interval_seconds, "Seconds between samples (demo default 600)");
  samples->excludes(interval);
  app.add_flag("--no-history", no_history, "Write no history.om");
  app.add_flag("--compact", o.compact,
               "cluster.json without the fields kubeon does not read, one item per line (the same cluster, "
               "about a fifth of kubectl's output)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  o.preset = preset == "scale" ? Preset::kScale : preset == "full" ? Preset::kFull : Preset::kDemo;
  o.history = !no_history;
  if (o.preset == Preset::kDemo && (nodes->count() > 0 || gpn->count() > 0)) {
    std::cerr << "error: --nodes and --gpus-per-node apply only to --preset scale and full\n";
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  kubeon::Result<SyntheticCluster> c = kubeon::gencluster::Generate(o);
  if (!c.ok()) {
    std::cerr << "error: " << c.status().message() << "\n";
    return 2;
  }
  kubeon::Status s = kubeon::gencluster::WriteFiles(*c, out);
  if (!s.ok()) {
    std::cerr << "error: " << s.message() << "\n";
    return 1;
  }
  Summary(*c, out, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return 0;
}
