// The plan: what the planner proposes for one GpuPolicy.  Plain data, built
// by planner.h and rendered by cli/report.h; the executor consumes it.
//
// Invariants: written down once, each with an id, in plan_invariants.h
// (PLAN-LAYOUT, PLAN-SLICE-FITS, PLAN-TIME-SLICING, PLAN-PLACED,
// PLAN-TARGETS, PLAN-GPUS, PLAN-TOTALS, PLAN-DECISIONS, PLAN-DISRUPTED and,
// for the schedule below, SCHED-ONCE, SCHED-FEASIBLE, SCHED-IDS).  MakePlan
// checks them on every plan it returns; planner_property_test checks them by
// id on generated clusters.
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
  // The patch body as nlohmann::json::dump() prints it (compact, keys sorted):
  // the JSON output re-indents this text instead of parsing it
  // (model::JsonWriter::CompactValue).
  std::string patch_json;
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
  // Two kinds of money, never to be added up in a reader's head:
  //  - savings_realizable_usd: the nodes freed x their price, what leaves
  //    the bill once those nodes go (the headline, the metric, the policy's
  //    status);
  //  - capacity_freed_usd: the GPUs freed on nodes that stay, at the node's
  //    price per GPU, worth money only when new work would otherwise add a
  //    node.
  // monthly_savings_usd is their sum, as plans before the split gave it.
  double monthly_savings_usd = 0;
  double savings_realizable_usd = 0;
  double capacity_freed_usd = 0;
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

// ---------------------------------------------------------------------------
// The migration schedule: the order in which the executor carries the plan
// out (schedule.h builds it; the checker in schedule_test.cc verifies it).
//
// Capacity model (written into the plan as data so a reviewer can check it):
// free allocatable per node and resource name = allocatable - requests of the
// pods bound there (Running or Pending, not terminating), less what pods
// already Pending in the pool will take.  A pod may only count on nodes it may
// use (nodeSelector, required node affinity, taints it does not tolerate,
// cordoned nodes).  Pods pinned to a node (node affinity naming one node,
// local volumes) stay out of the plan (Schedule::left_out).

// Free allocatable of one resource on one node before step 1.
struct CapacityEntry {
  std::string node;
  std::string resource;  // "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared"
  int64_t allocatable = 0;
  int64_t requested = 0;  // by pods bound to the node
  int64_t free = 0;       // max(0, allocatable - requested)
};

// A GPU pod a step evicts to empty its nodes, and where it runs meanwhile.
struct StepEviction {
  std::string pod;       // "namespace/name"
  std::string owner;     // "Deployment/name", "StatefulSet/name", "Pod/name"
  std::string resource;  // what it requests, e.g. "nvidia.com/gpu"
  int64_t count = 0;     // how many of `resource`
  int64_t grace_period_seconds = 30;
  // The node whose free `resource` the recreated pod is counted on while the
  // step runs; "" when it waits Pending (then it is listed as disrupted).
  std::string runs_meanwhile;
  bool comes_back = true;  // its owner recreates it
};

// An owner the step patches onto slices; its own rollout carries the pods.
struct StepOwnerMove {
  model::WorkloadRef owner;  // Deployment | StatefulSet (| ReplicaSet without Deployment)
  int replicas = 0;
  std::string from_resource;  // "nvidia.com/gpu"
  int64_t from_per_pod = 0;
  std::string to_resource;  // "nvidia.com/mig-1g.10gb" | "nvidia.com/gpu.shared"
  int64_t to_per_pod = 0;
  // Rollout strategy as read: "RollingUpdate" | "Recreate" (Deployment),
  // "RollingUpdate" | "OnDelete" (StatefulSet); surge/unavailable resolved
  // against replicas with Kubernetes' rounding (surge up, unavailable down).
  std::string strategy;
  int max_surge = 0;
  int max_unavailable = 0;
  std::string pdb;                   // "namespace/name" selecting its pods, "" when none
  int pdb_disruptions_allowed = -1;  // status.disruptionsAllowed, -1 without a PDB
  bool pdb_ok = true;                // the rollout stays within the PDB's allowance
  // "Argo CD" | "Flux" | "Helm" when a GitOps tool manages the owner ("" none):
  // then the step prints patch_json for the owner's repository and does not
  // patch unless the policy allows direct patches.
  std::string gitops;
  std::string patch_json;                 // strategic merge patch (as in Artifacts::workload_patches)
  std::vector<std::string> target_nodes;  // nodes whose slices it lands on
};

// GPUs a step needs free when it starts, where they are, and why they are
// free at that point (free before the migration, or freed by an earlier step).
struct CapacityNeed {
  std::string resource;
  int64_t count = 0;
  std::vector<std::string> nodes;
  std::string why;
};

// One change a reviewer approves: empty these nodes, reconfigure them, then
// move these owners.
struct ScheduleStep {
  int index = 0;             // 1-based position in the schedule
  std::string id;            // short stable id: the first 8 hex digits of content_hash
  std::string content_hash;  // SHA-256 (hex) of what is approved: nodes, layouts, owners, replicas
  std::string gpu_model;     // the pool
  std::string method;        // "mig" | "time-slicing"
  std::vector<std::string> nodes;                     // emptied and reconfigured (<= max_nodes_per_pool)
  std::map<std::string, model::Labels> labels_after;  // node -> labels the step sets
  std::map<std::string, std::string> layout_before;   // node -> e.g. "8 whole GPUs (MIG off)"
  std::map<std::string, std::string> layout_after;    // node -> e.g. "GPU0-3: 7x1g.10gb; GPU4-7: whole"
  std::vector<StepEviction> evictions;
  std::vector<StepOwnerMove> owners;
  std::vector<DisruptedPod> disrupted;
  std::vector<CapacityNeed> needs;
  std::vector<std::string> nodes_freed;  // nodes left without GPU pods once the step ends
  int gpus_freed = 0;
  double monthly_savings_usd = 0;
  std::string isolation;
  std::vector<std::string> flags;  // why Auto must not take the step; empty = clean
  int64_t estimated_seconds = 0;   // see schedule.h for the documented inputs
};

struct Schedule {
  int max_nodes_per_pool = 1;  // policy spec.disruption.maxNodesPerPool
  std::vector<CapacityEntry> capacity;
  std::vector<ScheduleStep> steps;
  // False when the order of some GPU pool does not fit the cluster as it
  // is: blocked_pools names each such pool and why, spare_gpus_needed says
  // how many whole GPUs of which model their orders miss, and steps holds
  // the other pools' order (built as if the blocked pools' nodes stayed as
  // they are; empty when every pool is blocked).
  bool feasible = true;
  std::map<std::string, std::string> blocked_pools;  // gpu model -> why its order does not fit
  std::map<std::string, int> spare_gpus_needed;      // gpu model -> GPUs
  std::vector<std::string> left_out;              // "ns/name: why" (pinned workloads, ...)
};

struct Plan {
  std::string policy_name;
  std::string policy_mode;
  std::string window;
  Summary summary;
  std::vector<WorkloadDecision> workloads;
  std::vector<NodePlan> nodes;
  Artifacts artifacts;
  Schedule schedule;
  std::vector<std::string> warnings;
};

inline constexpr double kHoursPerMonth = 730.0;

}  // namespace kubeon::plan
