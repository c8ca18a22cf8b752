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
//  4. placement on nodes: MIG GPUs first fill nodes that keep whole-GPU pods,
//     then the largest free nodes; time-sliced GPUs take whole nodes (the
//     device plugin's sharing applies to every GPU of a node); so whole nodes
//     are emptied rather than scattered GPUs;
//  5. per-node result, prices, isolation statements and the artifacts NVIDIA's
//     components read (artifacts.h).
#pragma once

#include <map>
#include <string>

#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/cluster.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan {

struct PlannerOptions {
  double compute_percentile = 0.99;   // quantile of compute samples that counts as the peak
  double min_history_hours = 24.0;    // less history than this: not a candidate
  std::map<std::string, double> instance_prices_usd;  // instance type -> USD per hour
  // Namespace of the GPU Operator's ConfigMaps named in the artifacts.
  std::string operator_namespace = "gpu-operator";
  std::string mig_configmap_name = "kubeon-mig-parted-config";
  std::string device_plugin_configmap_name = "kubeon-device-plugin-config";
};

Plan MakePlan(const model::Cluster& cluster, const metrics::History& history, const policy::GpuPolicy& policy,
              const mig::MigCatalog& catalog, const PlannerOptions& options);

}  // namespace kubeon::plan
