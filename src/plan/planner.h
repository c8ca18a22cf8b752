// The planner: a pure function of (cluster snapshot, DCGM history, GpuPolicy,
// MIG catalog) -> Plan.  No I/O, no clock, no globals.
//
// Steps, each documented where it is implemented:
//  1. scope: nodes the policy selects that carry GPUs; a node is a target for
//     new layouts only when it is schedulable, Ready, of a catalogued model and
//     not already partitioned or time-sliced (a second run never undoes the first);
//  2. workloads: GPU pods grouped by controlling owner; each gets a decision
//     with a reason (sizing.h for the arithmetic);
//  3. packing per GPU model pool: MIG slices (mig_packer.h) and time-sliced
//     pods (ts_packer.h) onto as few GPUs as possible;
//  4. placement on nodes (node_choice.h): the objectives, in order,
//       a. safe: a node whose MIG mode changes has every GPU of it reset, so
//          every GPU pod staying there is disrupted and listed
//          (NodePlan::disrupted_pods); a node is a MIG target only when the
//          policy's spec.disruption.stayingPods lets all its staying pods be
//          disrupted (Restartable, the default: each is recreated by its
//          owner, not safe-to-evict "false", has no local storage, and is not
//          busy: it has compute history and its compute peak is below
//          kBusyCompute);
//       b. schedulable (the executor's migration order);
//       c. the most dollars freed (a node left without GPU pods is worth its
//          whole price, others the price share of the GPUs they give up);
//       d. the fewest GPUs (the packing, step 3), then the fewest disrupted
//          pods, nodes whose GPU pods all move first;
//     time-sliced GPUs take whole nodes with no staying GPU pod (the device
//     plugin's sharing applies to every GPU of a node).  When safety costs
//     savings, summary.safety_cost_* says how much;
//  5. per-node result, prices, isolation statements and the artifacts NVIDIA's
//     components read (artifacts.h).
#pragma once

#include <map>
#include <string>

#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan {

// A staying pod whose compute peak (at the policy percentile) reaches this
// share of its GPUs is busy: disrupting it interrupts real work.
inline constexpr double kBusyCompute = 0.5;

struct PlannerOptions {
  double compute_percentile = 0.99;   // quantile of compute samples that counts as the peak
  double min_history_hours = 24.0;    // less history than this: not a candidate
  std::map<std::string, double> instance_prices_usd;  // instance type -> USD per hour
  // Namespace of the GPU Operator's ConfigMaps named in the artifacts; ""
  // takes the ClusterPolicy's status.namespace, else "gpu-operator"
  // (operator_fit.h).
  std::string operator_namespace;
  std::string mig_configmap_name = "kubeon-mig-parted-config";
  std::string device_plugin_configmap_name = "kubeon-device-plugin-config";
  // Workloads this plan must leave as they are, with the reason shown as their
  // decision's reason (the controller: a workload whose pods span the nodes of
  // two policies belongs to neither and is moved by neither).
  std::map<model::WorkloadRef, std::string> excluded_workloads;
};

// Never aborts on any input that reaches it: a plan that breaks one of its own
// promises (plan_invariants.h) is not returned; the policy fails instead,
// with the invariant's id and the node or workload it names.
Result<Plan> MakePlan(const model::Cluster& cluster, const metrics::History& history, const policy::GpuPolicy& policy,
                      const mig::MigCatalog& catalog, const PlannerOptions& options);

}  // namespace kubeon::plan
