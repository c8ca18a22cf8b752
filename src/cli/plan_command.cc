// See plan_command.h.
#include "cli/plan_command.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cli/exit_memory.h"
#include "cli/output_file.h"
#include "cli/report.h"
#include "metrics/history.h"
#include "mig/catalog.h"
#include "net/printable.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"
#include "policy/policy_overlap.h"

namespace kubeon::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

}  // namespace

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

CLI::Validator NamespaceName() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
        bool ok = !text.empty() && text.size() <= 63 && alnum(text.front()) && alnum(text.back());
        for (char c : text) ok = ok && (alnum(c) || c == '-');
        if (ok) return "";
        return "\"" + net::EscapeControl(text.substr(0, 80)) +
               "\" is not a namespace name (1-63 of a-z, 0-9 and -, starting and ending with a letter or digit)";
      },
      "NAMESPACE");
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
                  "nvidia-gpu-operator)")
      ->check(NamespaceName());
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
                  "Namespace of the GPU Operator (default: the ClusterPolicy's status.namespace, else gpu-operator)")
      ->check(NamespaceName());
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
