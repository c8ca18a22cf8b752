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
#include "model/durations.h"
#include "inputs/plan_each.h"
#include "inputs/plan_inputs.h"
#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace kubeon::cli {

// The inputs and planning the commands share with the controller (inputs/),
// under the names the commands use.
using inputs::BadLinesSummary;
using inputs::CheckPlanArgs;
using model::kMaxDurationHours;
using model::kMaxDurationText;
using inputs::LoadCatalog;
using model::ParseDurationFlag;
using model::ParseDurationHours;
using inputs::PlanArgs;
using inputs::PlanEach;
using inputs::PlanInputs;
using inputs::PolicyPlan;
using inputs::ProgressFn;
using inputs::ReadPlanInputs;

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

// Reads every input `plan` reads (policy, catalog, prices, cluster, history)
// and plans each selected policy: LoadCatalog, the policy file, ReadPlanInputs,
// PlanEach.  On error *exit_code is 2 for a usage error (bad flag values), 1
// otherwise.  Shared by `plan` and `apply`.  Two policies of the file that
// select a common GPU node (policy_overlap.h) are an error when both are
// planned, and a warning in the plan of the one planned (--policy-name).
Result<PlannedCluster> BuildPlans(const PlanArgs& args, const ProgressFn& progress, int* exit_code);

// Runs it.  Returns the process exit code.
int RunPlan(const PlanArgs& args, std::ostream& out, std::ostream& err);

// A CLI11 check for floating-point flags: the value is a finite number
// (not nan, inf or out of double's range) in [lo, hi].
CLI::Validator FiniteRange(double lo, double hi);

// A CLI11 check for namespace flags (--operator-namespace, --lease-namespace,
// --namespace): a Kubernetes namespace name (an RFC 1123 label: 1-63 of
// a-z 0-9 -, starting and ending with a letter or digit), so that the value
// is one segment of the API paths built from it (never "a/b", "a?x" or "..").
CLI::Validator NamespaceName();

}  // namespace kubeon::cli
