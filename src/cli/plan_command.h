// `kubeon-gpu plan`: reads a cluster snapshot, DCGM history (files, or the
// peaks computed by a Prometheus-compatible server) and a GpuPolicy file,
// runs the planner for each policy and prints the proposal.
//
// Contract: all inputs are read and validated before anything is printed;
// any bad input gives one error block on stderr naming file/line/field and
// exit code 1 (usage errors: 2).  It never changes the cluster: `plan` only
// reads.  Progress (what was read, how long it took) goes to stderr unless
// --quiet; stdout carries only the report, so `-o json | jq` works.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli11_fwd.h"
#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace kubeon::cli {

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

// Registers the subcommand and its flags on `app`; returns it.
CLI::App* AddPlanCommand(CLI::App& app, PlanArgs& args);

// The flags `apply` and `controller` share to read the live cluster and the
// history: --kubeconfig, --context, `history_flag` (e.g. "--metrics" or
// "--history,--metrics") excluding --prometheus, --prometheus-token-file,
// --prometheus-ca-file, --prometheus-header, --prometheus-selector,
// --lookback, --prices, --catalog, --percentile, --min-history,
// --operator-namespace.
void AddLivePlanFlags(CLI::App* cmd, PlanArgs& args, const std::string& history_flag);

// What BuildPlans read and planned.
struct PlannedCluster {
  model::Cluster cluster;
  std::vector<policy::GpuPolicy> policies;  // the selected ones
  std::vector<plan::Plan> plans;            // one per policy, in order
  // Policies whose planning failed (the planner found its own invariant
  // broken, or threw), with the message naming the policy.  They are in
  // neither `policies` nor `plans`; the other policies are planned.
  struct Failed {
    std::string policy;
    std::string message;
  };
  std::vector<Failed> failed;
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

// One policy's planning: its plan, or why it has none, and how long it took.
struct PolicyPlan {
  Result<plan::Plan> plan;
  double seconds = 0;
};

// Plans each policy on inputs (in order); `excluded(policy)` when set names
// the workloads that policy's plan must leave alone (PlannerOptions::
// excluded_workloads).  Warns in each plan (and through `progress`) about
// skipped history lines and when the policy selects no GPU node.  A policy
// whose planning fails (a broken invariant, an exception, bad_alloc included)
// gets a failed Result naming it; the next policies are still planned.
std::vector<PolicyPlan> PlanEach(
    const PlanInputs& inputs, const std::vector<policy::GpuPolicy>& policies, const ProgressFn& progress,
    const std::function<std::map<model::WorkloadRef, std::string>(const policy::GpuPolicy&)>& excluded = {});

// Reads every input `plan` reads (policy, catalog, prices, cluster, history)
// and plans each selected policy: LoadCatalog, the policy file, ReadPlanInputs,
// PlanEach.  On error *exit_code is 2 for a usage error (bad flag values), 1
// otherwise.  Shared by `plan` and `apply`.  Two policies of the file that
// select a common GPU node (policy_overlap.h) are an error when both are
// planned, and a warning in the plan of the one planned (--policy-name).
Result<PlannedCluster> BuildPlans(const PlanArgs& args, const ProgressFn& progress, int* exit_code);

// Runs it.  Returns the process exit code.
int RunPlan(const PlanArgs& args, std::ostream& out, std::ostream& err);

// The longest duration a flag takes (--min-history, --lookback, --ttl,
// --resync): 10 years.  Longer values are typos, and would overflow the
// millisecond and second counts they are converted to.
inline constexpr double kMaxDurationHours = 3650 * 24;
inline constexpr const char* kMaxDurationText = "3650d";

// "24h", "90m", "3d", "1w", "3600s" -> hours (a finite number >= 0 and at most
// kMaxDurationHours).  False on anything else: other units, signs, nan, inf,
// and durations over the maximum.
bool ParseDurationHours(const std::string& text, double* hours);

// ParseDurationHours for flag `flag`, with the error naming the flag:
//   --lookback: "99999999999d" is too large (max 3650d)
//   --lookback: "a fortnight" is not a duration like 14d, 36h or 2w
//   --lookback: "0s" must be positive            (when positive is set)
// `examples` completes "is not a duration like ...".
Status ParseDurationFlag(const std::string& flag, const std::string& text, const std::string& examples,
                         bool positive, double* hours);

// A CLI11 check for floating-point flags: the value is a finite number
// (not nan, inf or out of double's range) in [lo, hi].
CLI::Validator FiniteRange(double lo, double hi);

}  // namespace kubeon::cli
