// See plan_command.h.
#include "cli/plan_command.h"

#include <chrono>
#include <functional>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/report.h"
#include "kube/snapshot.h"
#include "metrics/history.h"
#include "metrics/prometheus_history.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace kubeon::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Writes atomically: a temp file beside the target, renamed over it.
Status WriteFile(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Error(path + ": cannot write");
    out << content;
    out.flush();
    if (!out) return Status::Error(path + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::Error(path + ": cannot rename temporary file into place");
  }
  return Status::Ok();
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

bool ParseDurationHours(const std::string& text, double* hours) {
  if (text.size() < 2) return false;
  const char unit = text.back();
  double n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, n);
  if (ec != std::errc() || ptr != text.data() + text.size() - 1 || n < 0) return false;
  switch (unit) {
    case 's': *hours = n / 3600; return true;
    case 'm': *hours = n / 60; return true;
    case 'h': *hours = n; return true;
    case 'd': *hours = n * 24; return true;
    case 'w': *hours = n * 24 * 7; return true;
    default: return false;
  }
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
      ->check(CLI::Range(0.5, 1.0));
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
      ->check(CLI::Range(0.5, 1.0));
  cmd->add_option("--min-history", a.min_history, "Workloads with less history are not candidates");
  cmd->add_option("--operator-namespace", a.operator_namespace,
                  "Namespace of the GPU Operator (default: the ClusterPolicy's status.namespace, else gpu-operator)");
}

Result<mig::MigCatalog> LoadCatalog(const std::string& path) {
  if (path.empty()) return mig::MigCatalog::Builtin();
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(path + ": cannot open MIG catalog");
  std::ostringstream buf;
  buf << in.rdbuf();
  return mig::MigCatalog::Parse(buf.str(), path);
}

namespace {

// The flag checks every planning command makes first (exit code 2).
Status CheckPlanArgs(const PlanArgs& a, double* min_history_hours, double* lookback_hours) {
  if (!ParseDurationHours(a.min_history, min_history_hours)) {
    return Status::Error("--min-history: \"" + a.min_history + "\" is not a duration like 24h, 90m or 3d");
  }
  if (a.metrics_files.empty() == a.prometheus_url.empty()) {
    return Status::Error("give DCGM history as --metrics FILE... or --prometheus URL (exactly one)");
  }
  if (!a.prometheus_url.empty() && (!ParseDurationHours(a.lookback, lookback_hours) || *lookback_hours <= 0)) {
    return Status::Error("--lookback: \"" + a.lookback + "\" is not a duration like 14d, 36h or 2w");
  }
  if (a.cluster_file.empty() && !a.from_cluster) return Status::Error("give --cluster FILE or --from-cluster");
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
  Result<model::Cluster> cluster = a.from_cluster ? ReadLiveCluster(a, progress) : model::LoadClusterFile(a.cluster_file);
  if (!cluster.ok()) return cluster.status();
  progress("read " + (a.from_cluster ? std::string("the cluster") : a.cluster_file) + ": " + std::to_string(cluster->nodes.size()) + " nodes, " +
           std::to_string(cluster->pods.size()) + " pods, " + std::to_string(cluster->pdbs.size()) +
           " PodDisruptionBudgets");
  metrics::History& history = in.history;
  if (!a.prometheus_url.empty()) {
    metrics::PrometheusOptions o;
    o.url = a.prometheus_url;
    o.bearer_token_file = a.prometheus_token_file;
    o.ca_file = a.prometheus_ca_file;
    o.headers = a.prometheus_headers;
    o.selector = a.prometheus_selector;
    o.lookback = std::chrono::milliseconds(static_cast<int64_t>(lookback_hours * 3.6e6));
    o.compute_percentile = a.percentile;
    progress("reading DCGM history of the last " + a.lookback + " from " + a.prometheus_url + " ...");
    Result<metrics::History> h = metrics::ReadPrometheusHistory(o, progress);
    if (!h.ok()) return h.status();
    history = std::move(h.value());
  }
  bool first = true;
  for (const auto& f : a.metrics_files) {
    auto t = Clock::now();
    progress("reading " + f + " ...");
    Result<metrics::History> h = metrics::ReadHistoryFile(f, metrics::IngestOptions{});
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
  in.cluster = std::move(cluster.value());
  *exit_code = 0;
  return in;
}

std::vector<plan::Plan> PlanEach(
    const PlanInputs& in, const std::vector<policy::GpuPolicy>& policies, const ProgressFn& progress,
    const std::function<std::map<model::WorkloadRef, std::string>(const policy::GpuPolicy&)>& excluded) {
  std::vector<plan::Plan> plans;
  for (const auto& p : policies) {
    auto t = Clock::now();
    plan::PlannerOptions options = in.options;
    if (excluded) options.excluded_workloads = excluded(p);
    plans.push_back(plan::MakePlan(in.cluster, in.history, p, in.catalog, options));
    if (in.history.stats.bad_lines > 0) plans.back().warnings.push_back("history: " + BadLinesSummary(in.history.stats));
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.2fs", Seconds(t));
    progress("planned policy " + p.name + " in " + secs);
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
  result.plans = PlanEach(*in, result.policies, progress);
  result.cluster = std::move(in->cluster);
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
  const std::vector<plan::Plan>& plans = planned->plans;
  std::string report = a.output == "json" ? RenderJson(plans) : a.output == "yaml" ? RenderYaml(plans) : RenderTable(plans);
  if (!a.output_file.empty()) {
    Status s = WriteFile(a.output_file, report);
    if (!s.ok()) {
      err << "error: " << s.message() << "\n";
      return 1;
    }
    progress("wrote " + a.output_file);
  } else {
    out << report;
  }
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%.1fs", Seconds(t0));
  progress(std::string("done in ") + secs);
  return 0;
}

}  // namespace kubeon::cli
