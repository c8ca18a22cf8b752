// See plan_inputs.h.
#include "inputs/plan_inputs.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <thread>

#include "model/durations.h"
#include "kube/snapshot.h"
#include "metrics/history.h"
#include "metrics/prometheus_history.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "net/redact.h"

namespace kubeon::inputs {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Lists the cluster through the API and parses it like a snapshot file.
Result<model::Cluster> ReadLiveCluster(const PlanArgs& a, const std::function<void(const std::string&)>& progress) {
  kube::SnapshotOptions o;
  o.kubeconfig = a.kubeconfig;
  o.context = a.context;
  Result<std::unique_ptr<kube::KubeClient>> client = kube::ConnectWithOptions(o);
  if (!client.ok()) return client.status();
  progress("listing the cluster through the Kubernetes API ...");
  // The items' text as served, compact: no tree and no re-serialisation on
  // the way to the parser.
  Result<std::string> text = kube::FetchSnapshotText(**client, nullptr, 500, a.operator_namespace);
  if (!text.ok()) return text.status();
  return model::ParseClusterJson(*text, "the cluster");
}

}  // namespace

std::string BadLinesSummary(const metrics::IngestStats& s) {
  std::string out = std::to_string(s.bad_lines) + " bad lines skipped (";
  for (size_t i = 0; i < s.first_bad_line_numbers.size() && i < 3; ++i) {
    out += (i ? "; " : "") + std::string("line ") + std::to_string(s.first_bad_line_numbers[i]) + ": " +
           s.first_bad_reasons[i];
  }
  return out + ")";
}

Result<mig::MigCatalog> LoadCatalog(const std::string& path) {
  if (path.empty()) return mig::MigCatalog::Builtin();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open MIG catalog: " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  return mig::MigCatalog::Parse(buf.str(), path);
}

Status CheckPlanArgs(const PlanArgs& a, double* min_history_hours, double* lookback_hours) {
  if (Status s = model::ParseDurationFlag("--min-history", a.min_history, "24h, 90m or 3d", false, min_history_hours);
      !s.ok()) {
    return s;
  }
  if (a.metrics_files.empty() == a.prometheus_url.empty()) {
    return Status::Error("give DCGM history as --metrics FILE... or --prometheus URL (exactly one)");
  }
  if (!a.prometheus_url.empty()) {
    if (Status s = model::ParseDurationFlag("--lookback", a.lookback, "14d, 36h or 2w", true, lookback_hours); !s.ok()) {
      return s;
    }
  }
  if (a.cluster_file.empty() && !a.from_cluster) return Status::Error("give --cluster FILE or --from-cluster");
  return Status::Ok();
}

namespace {

// Reads the DCGM history (from Prometheus, or every --metrics file merged)
// into *out.  `stop` stops a file read early (IngestOptions::stop).
Status ReadHistoryInputs(const PlanArgs& a, double lookback_hours, const std::atomic<bool>& stop,
                         const ProgressFn& progress, metrics::History* out) {
  metrics::History& history = *out;
  if (!a.prometheus_url.empty()) {
    metrics::PrometheusOptions o;
    o.url = a.prometheus_url;
    o.bearer_token_file = a.prometheus_token_file;
    o.ca_file = a.prometheus_ca_file;
    o.headers = a.prometheus_headers;
    o.selector = a.prometheus_selector;
    o.lookback = std::chrono::milliseconds(static_cast<int64_t>(lookback_hours * 3.6e6));
    o.compute_percentile = a.percentile;
    progress("reading DCGM history of the last " + a.lookback + " from " + net::RedactUrl(a.prometheus_url) + " ...");
    Result<metrics::History> h = metrics::ReadPrometheusHistory(o, progress);
    if (!h.ok()) return h.status();
    history = std::move(h.value());
  }
  metrics::IngestOptions ingest;
  ingest.stop = &stop;
  // While a snapshot file is parsed on the other core, one reading thread
  // that reads too: a second piece would meet every pod again (per-pod state
  // twice, then a merge), and a thread reading ahead would compete with the
  // parse for the cores (BENCHMARKS.md (g)).  Alone, all cores.
  ingest.threads = a.from_cluster ? 0 : 1;
  ingest.read_ahead = a.from_cluster;
  bool first = true;
  for (const auto& f : a.metrics_files) {
    auto t = Clock::now();
    progress("reading " + f + " ...");
    Result<metrics::History> h = metrics::ReadHistoryFile(f, ingest);
    if (!h.ok()) return h.status();
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.1fs", Seconds(t));
    progress("read " + f + ": " + std::to_string(h->stats.samples) + " samples, " + std::to_string(h->pods.size()) +
             " pods in " + secs + (h->stats.bad_lines ? "; " + BadLinesSummary(h->stats) : ""));
    if (first) {
      history = std::move(h.value());
      first = false;
    } else {
      metrics::MergeInto(history, std::move(h.value()));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<PlanInputs> ReadPlanInputs(const PlanArgs& a, mig::MigCatalog catalog, const ProgressFn& progress,
                                  int* exit_code) {
  *exit_code = 2;
  double min_history_hours = 0, lookback_hours = 0;
  if (Status s = CheckPlanArgs(a, &min_history_hours, &lookback_hours); !s.ok()) return s;
  *exit_code = 1;
  PlanInputs in{std::move(catalog), {}, {}, {}};
  if (!a.prices_file.empty()) {
    Result<model::PriceTable> p = model::LoadPricesFile(a.prices_file);
    if (!p.ok()) return p.status();
    in.options.instance_prices_usd = std::move(p.value());
  }
  // A snapshot FILE is read on a second thread while this one reads the
  // history (independent inputs; both cores busy).  Its errors still come
  // first, and a failed snapshot stops the history read at its next 1 MiB.
  // The live cluster is read first, alone (it reports progress itself).
  std::atomic<bool> stop_history{false};
  std::future<Result<model::Cluster>> cluster_job;
  std::optional<Result<model::Cluster>> cluster;
  auto cluster_read = [&]() -> Status {
    if (!cluster) cluster.emplace(cluster_job.get());
    if (!cluster->ok()) return cluster->status();
    const model::Cluster& c = cluster->value();
    progress("read " + (a.from_cluster ? std::string("the cluster") : a.cluster_file) + ": " +
             std::to_string(c.nodes.size()) + " nodes, " + std::to_string(c.pods.size()) + " pods, " +
             std::to_string(c.pdbs.size()) + " PodDisruptionBudgets");
    for (const auto& w : c.warnings) progress("warning: " + w);  // also in every plan's warnings
    return Status::Ok();
  };
  if (a.from_cluster) {
    cluster.emplace(ReadLiveCluster(a, progress));
    if (Status s = cluster_read(); !s.ok()) return s;
  } else {
    // The snapshot's items are read on every core (at most
    // kMaxSnapshotParts parts, model/snapshot_stream.h) while the history
    // comes from Prometheus (the wait is the network's); beside a history file's
    // reader, on one (three threads on two cores slowed the history, the
    // longer of the two on a 1.7 GB file: BENCHMARKS.md (g)).
    const int parse_threads = a.metrics_files.empty() ? static_cast<int>(std::thread::hardware_concurrency()) : 1;
    cluster_job = std::async(std::launch::async, [&a, &stop_history, parse_threads] {
      Result<model::Cluster> c = model::LoadClusterFile(a.cluster_file, parse_threads);
      if (!c.ok()) stop_history = true;
      return c;
    });
  }
  Status history_read = ReadHistoryInputs(a, lookback_hours, stop_history, progress, &in.history);
  if (!a.from_cluster) {
    if (Status s = cluster_read(); !s.ok()) return s;
  }
  if (!history_read.ok()) return history_read;
  metrics::History& history = in.history;
  if (history.stats.samples == 0) {
    std::string seen;
    for (const auto& m : history.stats.metrics_seen) seen += (seen.empty() ? "" : ", ") + m;
    return Status::Error("no DCGM samples in " + history.source + ": looked for " + metrics::kFbUsedMetric + ", " +
                         metrics::kGrEngineActiveMetric + " and " + metrics::kGpuUtilMetric +
                         " with namespace/pod labels" + (seen.empty() ? "" : "; found only " + seen));
  }
  in.options.compute_percentile = a.percentile;
  in.options.min_history_hours = min_history_hours;
  in.options.operator_namespace = a.operator_namespace;
  in.cluster = std::move(cluster->value());
  *exit_code = 0;
  return in;
}


}  // namespace kubeon::inputs
