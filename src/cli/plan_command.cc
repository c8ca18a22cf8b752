// See plan_command.h.
#include "cli/plan_command.h"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <future>
#include <new>
#include <optional>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>

#include "cli/exit_memory.h"
#include "cli/output_file.h"
#include "cli/report.h"
#include "kube/snapshot.h"
#include "metrics/history.h"
#include "metrics/prometheus_history.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "net/redact.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"
#include "policy/policy_overlap.h"

namespace kubeon::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

std::string BadLinesSummary(const metrics::IngestStats& s) {
  std::string out = std::to_string(s.bad_lines) + " bad lines skipped (";
  for (size_t i = 0; i < s.first_bad_line_numbers.size() && i < 3; ++i) {
    out += (i ? "; " : "") + std::string("line ") + std::to_string(s.first_bad_line_numbers[i]) + ": " +
           s.first_bad_reasons[i];
  }
  return out + ")";
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

namespace {

// "24h" -> 24 (any size, but finite and >= 0); nullopt when not a duration.
std::optional<double> DurationHours(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  double n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, n);
  if (ec != std::errc() || ptr != text.data() + text.size() - 1 || !std::isfinite(n) || n < 0) return std::nullopt;
  switch (text.back()) {
    case 's': return n / 3600;
    case 'm': return n / 60;
    case 'h': return n;
    case 'd': return n * 24;
    case 'w': return n * 24 * 7;
    default: return std::nullopt;
  }
}

}  // namespace

bool ParseDurationHours(const std::string& text, double* hours) {
  std::optional<double> h = DurationHours(text);
  if (!h || *h > kMaxDurationHours) return false;
  *hours = *h;
  return true;
}

Status ParseDurationFlag(const std::string& flag, const std::string& text, const std::string& examples,
                         bool positive, double* hours) {
  const std::string quoted = "\"" + text + "\"";
  std::optional<double> h = DurationHours(text);
  // "1e400d" overflows from_chars: too large, not malformed ("1e-400d" underflows: malformed).
  double n = 0;
  const char* end = text.data() + text.size() - (text.empty() ? 0 : 1);
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  const bool overflow = !text.empty() && ec == std::errc::result_out_of_range && ptr == end &&
                        text.find_first_of("-") == std::string::npos &&
                        std::string_view("smhdw").find(text.back()) != std::string_view::npos;
  if (overflow || (h && *h > kMaxDurationHours)) {
    return Status::Error(flag + ": " + quoted + " is too large (max " + kMaxDurationText + ")");
  }
  if (!h) return Status::Error(flag + ": " + quoted + " is not a duration like " + examples);
  if (positive && *h <= 0) return Status::Error(flag + ": " + quoted + " must be positive");
  *hours = *h;
  return Status::Ok();
}

CLI::Validator FiniteRange(double lo, double hi) {
  char desc[64];
  std::snprintf(desc, sizeof(desc), "FLOAT in [%g, %g]", lo, hi);
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v) || v < lo || v > hi) {
          char range[64];
          std::snprintf(range, sizeof(range), "%g and %g", lo, hi);
          return "\"" + text + "\" is not a number between " + range;
        }
        return "";
      },
      desc);
}

CLI::App* AddPlanCommand(CLI::App& app, PlanArgs& a) {
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Propose which GPU workloads move onto MIG slices or time-sliced GPUs, what that frees and what it costs in "
      "isolation. Reads only; changes nothing.");
  CLI::Option* file = cmd->add_option("--cluster", a.cluster_file,
                                      "Cluster snapshot: the JSON List of `kubectl get nodes,pods,"
                                      "poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json`");
  CLI::Option* live = cmd->add_flag("--from-cluster", a.from_cluster,
                                    "Read the cluster through the Kubernetes API (kubeconfig as kubectl finds it) "
                                    "instead of --cluster");
  file->excludes(live);
  cmd->add_option("--kubeconfig", a.kubeconfig, "With --from-cluster: kubeconfig file (default: KUBECONFIG, "
                                                "~/.kube/config, or the in-cluster service account)");
  cmd->add_option("--context", a.context, "With --from-cluster: kubeconfig context");
  CLI::Option* metrics = cmd->add_option(
      "--metrics", a.metrics_files,
      "DCGM history file(s): OpenMetrics text with timestamps (the `promtool tsdb create-blocks-from "
      "openmetrics` format) or CSV; repeat for several files");
  CLI::Option* prometheus = cmd->add_option(
      "--prometheus", a.prometheus_url,
      "Read DCGM history from this Prometheus-compatible API instead of --metrics (Prometheus, Thanos or Mimir "
      "base URL serving /api/v1/query); the server computes the peaks");
  metrics->excludes(prometheus);
  cmd->add_option("--prometheus-token-file", a.prometheus_token_file,
                  "With --prometheus: file holding a bearer token (sent as Authorization: Bearer)");
  cmd->add_option("--prometheus-ca-file", a.prometheus_ca_file,
                  "With --prometheus: CA certificate file (PEM) the server certificate is verified against");
  cmd->add_option("--prometheus-header", a.prometheus_headers,
                  "With --prometheus: extra HTTP header \"Name: value\" (e.g. \"X-Scope-OrgID: team-a\"); repeatable");
  cmd->add_option("--prometheus-selector", a.prometheus_selector,
                  "With --prometheus: extra label matchers for every DCGM series, e.g. 'cluster=\"prod\"'");
  cmd->add_option("--lookback", a.lookback, "With --prometheus: history window ending now (e.g. 14d, 36h, 2w)");
  cmd->add_option("--policy", a.policy_file, "GpuPolicy YAML file (one or more documents)")->required();
  cmd->add_option("--policy-name", a.policy_name, "Plan only the policy with this metadata.name");
  cmd->add_option("--prices", a.prices_file,
                  "YAML map of instance type to USD per hour, for nodes without the kubeon.io/hourly-price-usd "
                  "annotation");
  cmd->add_option("--catalog", a.catalog_file, "MIG catalog JSON replacing the built-in one (data/mig-catalog.json)");
  cmd->add_option("-o,--output", a.output, "Output format: table, json or yaml")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
  cmd->add_option("--output-file", a.output_file, "Write the report to this file (atomically) instead of stdout");
  cmd->add_option("--percentile", a.percentile,
                  "Quantile of compute samples taken as the compute peak (memory always uses the maximum)")
      ->check(FiniteRange(0.5, 1.0));
  cmd->add_option("--min-history", a.min_history,
                  "Workloads with less history than this are not candidates (e.g. 24h, 3d)");
  cmd->add_option("--operator-namespace", a.operator_namespace,
                  "Namespace of the GPU Operator, where the generated ConfigMaps go and the current mig-parted "
                  "ConfigMap is read (default: the ClusterPolicy's status.namespace, else gpu-operator; OpenShift: "
                  "nvidia-gpu-operator)");
  cmd->add_flag("-q,--quiet", a.quiet, "No progress on stderr");
  return cmd;
}

void AddLivePlanFlags(CLI::App* cmd, PlanArgs& a, const std::string& history_flag) {
  cmd->add_option("--kubeconfig", a.kubeconfig,
                  "kubeconfig file (default: KUBECONFIG, ~/.kube/config, or the in-cluster service account)");
  cmd->add_option("--context", a.context, "kubeconfig context (default: current-context)");
  CLI::Option* metrics = cmd->add_option(history_flag, a.metrics_files,
                                         "DCGM history file(s) (OpenMetrics with timestamps, or CSV); repeatable");
  CLI::Option* prometheus =
      cmd->add_option("--prometheus", a.prometheus_url, "Read DCGM history from this Prometheus-compatible API");
  metrics->excludes(prometheus);
  cmd->add_option("--prometheus-token-file", a.prometheus_token_file, "With --prometheus: bearer token file");
  cmd->add_option("--prometheus-ca-file", a.prometheus_ca_file, "With --prometheus: CA certificate file (PEM)");
  cmd->add_option("--prometheus-header", a.prometheus_headers, "With --prometheus: extra header; repeatable");
  cmd->add_option("--prometheus-selector", a.prometheus_selector, "With --prometheus: extra label matchers");
  cmd->add_option("--lookback", a.lookback, "With --prometheus: history window ending now (e.g. 14d)");
  cmd->add_option("--prices", a.prices_file, "YAML map of instance type to USD per hour");
  cmd->add_option("--catalog", a.catalog_file, "MIG catalog JSON replacing the built-in one");
  cmd->add_option("--percentile", a.percentile, "Quantile of compute samples taken as the compute peak")
      ->check(FiniteRange(0.5, 1.0));
  cmd->add_option("--min-history", a.min_history, "Workloads with less history are not candidates");
  cmd->add_option("--operator-namespace", a.operator_namespace,
                  "Namespace of the GPU Operator (default: the ClusterPolicy's status.namespace, else gpu-operator)");
}

Result<mig::MigCatalog> LoadCatalog(const std::string& path) {
  if (path.empty()) return mig::MigCatalog::Builtin();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open MIG catalog: " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  return mig::MigCatalog::Parse(buf.str(), path);
}

namespace {

// The flag checks every planning command makes first (exit code 2).
Status CheckPlanArgs(const PlanArgs& a, double* min_history_hours, double* lookback_hours) {
  if (Status s = ParseDurationFlag("--min-history", a.min_history, "24h, 90m or 3d", false, min_history_hours);
      !s.ok()) {
    return s;
  }
  if (a.metrics_files.empty() == a.prometheus_url.empty()) {
    return Status::Error("give DCGM history as --metrics FILE... or --prometheus URL (exactly one)");
  }
  if (!a.prometheus_url.empty()) {
    if (Status s = ParseDurationFlag("--lookback", a.lookback, "14d, 36h or 2w", true, lookback_hours); !s.ok()) {
      return s;
    }
  }
  if (a.cluster_file.empty() && !a.from_cluster) return Status::Error("give --cluster FILE or --from-cluster");
  return Status::Ok();
}

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

std::vector<PolicyPlan> PlanEach(
    const PlanInputs& in, const std::vector<policy::GpuPolicy>& policies, const ProgressFn& progress,
    const std::function<std::map<model::WorkloadRef, std::string>(const policy::GpuPolicy&)>& excluded) {
  std::vector<PolicyPlan> plans;
  for (const auto& p : policies) {
    auto t = Clock::now();
    plan::PlannerOptions options = in.options;
    if (excluded) options.excluded_workloads = excluded(p);
    Result<plan::Plan> planned = Status::Error("policy \"" + p.name + "\": not planned");
    try {
      planned = in.planner(in.cluster, in.history, p, in.catalog, options);
    } catch (const std::bad_alloc&) {
      planned = Status::Error("policy \"" + p.name + "\": planning ran out of memory");
    } catch (const std::exception& e) {
      planned = Status::Error("policy \"" + p.name + "\": planning failed: " + e.what());
    }
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.2fs", Seconds(t));
    if (!planned.ok()) {
      progress("error: " + planned.status().message());
      plans.push_back({std::move(planned), Seconds(t)});
      continue;
    }
    plan::Plan& plan = *planned;
    if (in.history.stats.bad_lines > 0) plan.warnings.push_back("history: " + BadLinesSummary(in.history.stats));
    for (const std::string& w : metrics::HistoryWarnings(in.history)) plan.warnings.push_back("history: " + w);
    if (policy::SelectedGpuNodes(in.cluster, p) == 0) {
      std::string selector;
      for (const auto& [k, v] : p.node_selector) selector += (selector.empty() ? "" : ", ") + k + "=" + v;
      const std::string w = "policy \"" + p.name + "\" selects none of the cluster's " +
                            std::to_string(policy::GpuNodes(in.cluster)) + " GPU nodes" +
                            (selector.empty() ? "" : " (nodeSelector " + selector + ")") + ": nothing to plan";
      progress("warning: " + w);
      plan.warnings.push_back(w);
    }
    progress("planned policy " + p.name + " in " + secs);
    plans.push_back({std::move(planned), Seconds(t)});
  }
  return plans;
}

Result<PlannedCluster> BuildPlans(const PlanArgs& a, const ProgressFn& progress, int* exit_code) {
  *exit_code = 2;
  double min_history_hours = 0, lookback_hours = 0;
  if (Status s = CheckPlanArgs(a, &min_history_hours, &lookback_hours); !s.ok()) return s;
  *exit_code = 1;
  Result<mig::MigCatalog> catalog = LoadCatalog(a.catalog_file);
  if (!catalog.ok()) return catalog.status();
  auto exists = [&](std::string_view p) { return catalog->ProfileExists(p); };
  Result<std::vector<policy::GpuPolicy>> policies = policy::LoadPolicyFile(a.policy_file, exists);
  if (!policies.ok()) return policies.status();
  PlannedCluster result;
  for (const auto& p : *policies) {
    if (a.policy_name.empty() || p.name == a.policy_name) result.policies.push_back(p);
  }
  if (result.policies.empty()) {
    return Status::Error(a.policy_file + ": no GpuPolicy named \"" + a.policy_name + "\"");
  }
  Result<PlanInputs> in = ReadPlanInputs(a, std::move(catalog.value()), progress, exit_code);
  if (!in.ok()) return in.status();
  // A GPU node belongs to one policy only (policy_overlap.h): two planned
  // policies sharing nodes would give them conflicting layouts.
  std::map<std::string, std::vector<std::string>> overlap_warnings;  // planned policy -> warnings
  for (const policy::PolicyOverlap& o : policy::FindOverlaps(in->cluster, *policies)) {
    const bool first = a.policy_name.empty() || o.first->name == a.policy_name;
    const bool second = a.policy_name.empty() || o.second->name == a.policy_name;
    const std::string both = "policies \"" + o.first->name + "\" (line " + std::to_string(o.first->line) + ") and \"" +
                             o.second->name + "\" (line " + std::to_string(o.second->line) + ") both select " +
                             policy::DescribeNodes(o.nodes) + ": a GPU node belongs to one policy only";
    if (first && second) {
      *exit_code = 1;
      return Status::Error(a.policy_file + ": " + both +
                           "; make their nodeSelectors disjoint, or plan one of them with --policy-name");
    }
    if (first || second) {
      const std::string w = both + " (the controller plans neither until their nodeSelectors are disjoint)";
      progress("warning: " + w);
      overlap_warnings[first ? o.first->name : o.second->name].push_back(w);
    }
  }
  std::vector<policy::GpuPolicy> selected = std::move(result.policies);
  result.policies.clear();
  std::vector<PolicyPlan> each = PlanEach(*in, selected, progress);
  for (size_t i = 0; i < each.size(); ++i) {
    if (!each[i].plan.ok()) {
      result.failed.push_back({selected[i].name, each[i].plan.status().message()});
      continue;
    }
    plan::Plan& p = *each[i].plan;
    for (std::string& w : overlap_warnings[p.policy_name]) p.warnings.push_back(std::move(w));
    result.policies.push_back(std::move(selected[i]));
    result.plans.push_back(std::move(p));
  }
  result.cluster = std::move(in->cluster);
  LeaveForExit(std::move(in.value()));  // the history: freed by the exit of a one-shot command
  return result;
}

int RunPlan(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  auto progress = [&](const std::string& line) {
    if (!a.quiet) err << line << "\n";
  };
  auto t0 = Clock::now();
  int code = 0;
  Result<PlannedCluster> planned = BuildPlans(a, progress, &code);
  if (!planned.ok()) {
    err << "error: " << planned.status().message() << "\n";
    return code;
  }
  // A policy that could not be planned is an error; the others are reported.
  for (const auto& f : planned->failed) err << "error: " << f.message << "\n";
  const std::vector<plan::Plan>& plans = planned->plans;
  // JSON is written as it is rendered (report.h: a 60 MB plan at 80,000 GPUs
  // is never held whole); YAML and tables are small and built first.
  auto render = [&](const std::function<void(std::string_view)>& sink) {
    if (a.output == "json") {
      RenderJson(plans, sink);
    } else {
      sink(a.output == "yaml" ? RenderYaml(plans) : RenderTable(plans));
    }
  };
  Status written;
  if (a.output_file.empty()) {
    render([&](std::string_view piece) {
      if (written.ok()) written = WriteToStream(out, piece, "stdout");  // the first failure is reported
    });
  } else {
    // The report names cluster objects: the file is created 0600 (output_file.h).
    written = WriteFileAtomically(a.output_file, [&](std::ostream& os) {
      render([&os](std::string_view piece) { os.write(piece.data(), static_cast<std::streamsize>(piece.size())); });
    });
  }
  if (!written.ok()) {
    err << "error: " << written.message() << "\n";
    return 1;
  }
  if (!a.output_file.empty()) progress("wrote " + a.output_file);
  const bool any_failed = !planned->failed.empty();
  LeaveForExit(std::move(planned.value()));
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%.1fs", Seconds(t0));
  progress(std::string("done in ") + secs);
  return any_failed ? 1 : 0;
}

}  // namespace kubeon::cli
