// The plan: what the planner proposes for one GpuPolicy.  Plain data, built
// by planner.h and rendered by cli/report.h; the executor consumes it.
//
// Invariants (checked by planner_test):
//  - every GpuAfter::mig_devices list is a valid layout for its node's model;
//  - a node with method "mig" lists every GPU pod that stays on it in
//    disrupted_pods (its MIG mode changes); no other node lists any;
//  - summary.gpus_after == sum of NodePlan::gpus_after, and likewise for
//    gpus_before, nodes_freed and monthly_savings_usd;
//  - a workload with decision kMig has a non-empty slice and a patch in
//    artifacts.workload_patches; kUnchanged has a reason and no patch.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster.h"

namespace kubeon::plan {

enum class Decision { kMig, kTimeSlicing, kUnchanged };
const char* DecisionName(Decision d);  // "mig" | "time-slicing" | "unchanged"

struct WorkloadDecision {
  model::WorkloadRef ref;
  std::vector<std::string> pods;  // pod names in scope
  int64_t gpus_per_pod = 0;
  std::string gpu_model;  // catalog model id, "" when unknown
  // Measured usage (absent without history).
  std::optional<int64_t> peak_memory_mib;
  std::optional<double> peak_compute;  // ratio 0..1 at the chosen percentile
  std::string compute_metric;
  double history_hours = 0;
  uint64_t samples = 0;
  Decision decision = Decision::kUnchanged;
  std::string slice;   // MIG profile, or "1/N" (time-slicing replicas) ; "" when unchanged
  std::string reason;  // why: the sizing arithmetic, or why it is not a candidate
  std::string isolation;  // what the new placement does and does not isolate
};

struct GpuAfter {
  int index = 0;
  bool mig_enabled = false;
  std::vector<std::string> mig_devices;  // profiles, largest first
  std::vector<std::string> workloads;    // "ns/name" per slice or sharer (one per pod)
  bool whole = false;                    // held whole by an unchanged pod
};

// A GPU pod that stays on a node whose change disrupts it.
struct DisruptedPod {
  std::string pod;    // "namespace/name"
  std::string owner;  // "Deployment/name", "Job/name", "Pod/name" for a bare pod
  std::string why;    // what the change does to it and whether it comes back
};

struct NodePlan {
  std::string name;
  std::string gpu_model;
  std::string instance_type;
  std::string method;  // "mig" | "time-slicing" | "none"
  int gpu_count = 0;
  int gpus_before = 0;  // GPUs held by pods before
  int gpus_after = 0;   // GPUs held after the plan
  bool freed = false;   // held GPUs before, none after
  std::vector<GpuAfter> gpus;  // the GPUs in use after, in index order
  std::optional<int> time_slicing_replicas;
  model::Labels labels;  // labels the executor sets (mig.config / device-plugin.config)
  std::string isolation;
  std::optional<double> hourly_price_usd;
  std::string price_source;  // "annotation" | "prices file" | "" (unknown)
  double monthly_savings_usd = 0;   // HourlyValueFreed x 730: the whole price when freed
  std::vector<DisruptedPod> disrupted_pods;  // staying GPU pods a MIG mode change disrupts
  std::vector<std::string> notes;
};

struct WorkloadPatch {
  std::string namespace_;
  std::string kind;
  std::string name;
  std::string patch_type;  // "strategic" (application/strategic-merge-patch+json)
  std::string patch_json;  // the patch body
};

struct Artifacts {
  std::string mig_parted_config;                         // mig-parted config.yaml
  std::map<std::string, std::string> device_plugin_configs;  // key -> device-plugin config file
  std::string device_plugin_configmap;                   // ConfigMap holding the keys above
  std::string mig_parted_configmap;                      // ConfigMap holding config.yaml
  std::vector<WorkloadPatch> workload_patches;
};

struct Summary {
  int gpus_before = 0;
  int gpus_after = 0;
  int gpus_freed = 0;
  int nodes_freed = 0;
  double monthly_savings_usd = 0;
  int workloads = 0;
  int workloads_to_mig = 0;
  int workloads_to_time_slicing = 0;
  // GPUs the moved workloads hold after the plan, and a lower bound on them:
  // per model, the LP relaxation of the fewest-GPU packing rounded up
  // (mig_packer.h MigLpBound) for MIG, plus the time-sliced GPUs' bound
  // (memory, compute and maxReplicas).  The gap is after - bound (0: optimal).
  int moved_gpus_after = 0;
  int gpus_lower_bound = 0;
  int pods_disrupted = 0;  // sum of NodePlan::disrupted_pods
  // What the policy's spec.disruption.stayingPods costs: GPUs and dollars a
  // plan that could disrupt every staying pod would free on top of this one.
  int safety_cost_gpus = 0;
  double safety_cost_monthly_usd = 0;
};

struct Plan {
  std::string policy_name;
  std::string policy_mode;
  std::string window;
  Summary summary;
  std::vector<WorkloadDecision> workloads;
  std::vector<NodePlan> nodes;
  Artifacts artifacts;
  std::vector<std::string> warnings;
};

inline constexpr double kHoursPerMonth = 730.0;

}  // namespace kubeon::plan
