// What a plan is made from, read once for every policy: the MIG catalog, the
// cluster (a snapshot file, or the Kubernetes API), the DCGM history (files,
// or the peaks a Prometheus-compatible server computes) and the prices.
// Shared by the commands (cli/plan_command.h: plan, apply) and the
// controller, which read the same inputs the same way.
//
// Contract: ReadPlanInputs checks the settings first (CheckPlanArgs: exit
// code 2, nothing read), then reads everything or fails with one error that
// names the file, line or server; it only reads.  Progress lines (what was
// read, how long it took) go to `progress`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace kubeon::inputs {

// Where the inputs come from and how they are read (the commands' flags and
// the controller's settings fill it).
struct PlanArgs {
  std::string cluster_file;  // "" with from_cluster: read the cluster through the API
  bool from_cluster = false;
  std::string kubeconfig;    // with from_cluster; "" = KUBECONFIG / ~/.kube/config / in-cluster
  std::string context;
  std::vector<std::string> metrics_files;  // exactly one of metrics_files and prometheus_url
  std::string prometheus_url;              // "" = history from metrics_files
  std::string prometheus_token_file;
  std::string prometheus_ca_file;
  std::vector<std::string> prometheus_headers;  // "Name: value"
  std::string prometheus_selector;              // extra label matchers, e.g. cluster="prod"
  std::string lookback = "14d";                 // with prometheus_url
  std::string policy_file;
  std::string policy_name;  // "" = every policy in the file
  std::string prices_file;
  std::string catalog_file;  // "" = built-in catalog
  std::string output = "table";
  std::string output_file;   // "" = stdout
  double percentile = 0.99;
  std::string min_history = "24h";
  std::string operator_namespace;  // "" = the ClusterPolicy's, else gpu-operator
  bool quiet = false;
};

using ProgressFn = std::function<void(const std::string&)>;

// Everything a plan is made from except the policies.
struct PlanInputs {
  mig::MigCatalog catalog;
  model::Cluster cluster;
  metrics::History history;
  plan::PlannerOptions options;  // percentile, min history, prices, operator namespace
  // The planner PlanEach runs: plan::MakePlan (tests put in one that fails).
  std::function<Result<plan::Plan>(const model::Cluster&, const metrics::History&, const policy::GpuPolicy&,
                                   const mig::MigCatalog&, const plan::PlannerOptions&)>
      planner = plan::MakePlan;
};

// The MIG catalog at `path`, or the built-in one when path is empty.
Result<mig::MigCatalog> LoadCatalog(const std::string& path);

// Checks the flag values and reads prices, the cluster (file or API) and the
// history into a PlanInputs around `catalog`; args.policy_file is not read.
// On error *exit_code is 2 for a usage error (bad flag values), 1 otherwise.
Result<PlanInputs> ReadPlanInputs(const PlanArgs& args, mig::MigCatalog catalog, const ProgressFn& progress,
                                  int* exit_code);

// The settings checks every planning command makes before reading anything:
// --min-history and --lookback as durations, exactly one history source, a
// cluster source.  Fills the two durations in hours.
Status CheckPlanArgs(const PlanArgs& args, double* min_history_hours, double* lookback_hours);

// "N bad lines skipped (line 3: ...; line 9: ...)": the first three bad lines
// of a history read.
std::string BadLinesSummary(const metrics::IngestStats& stats);

}  // namespace kubeon::inputs
