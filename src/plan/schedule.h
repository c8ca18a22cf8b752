// The migration schedule: the order in which the executor carries a plan out
// (plan.h `Schedule`).  Pure: a function of the cluster, the plan and the
// policy, called at the end of MakePlan.  Its promises (SCHED-ONCE,
// SCHED-FEASIBLE, SCHED-IDS) are in plan_invariants.h; schedule_checker.h
// replays the evictions, meanwhile slots and PDBs independently.
//
// What the executor does with a step, which the schedule models:
//  for each node of the step it cordons it, taints it gpu.kubeon.io/step=<id>:
//  NoSchedule, evicts every GPU pod on it (their owners recreate them with the
//  OLD template, on whole GPUs, wherever they may run: runs_meanwhile), writes
//  the MIG / device-plugin config, relabels, waits for the operator and
//  uncordons; then it patches the step's owners (new resource, toleration of
//  the taint, node affinity on the GPU product): their rollouts create pods on
//  the new slices and the old pods die, freeing whole GPUs wherever they ran
//  (later steps count on those); then it removes the taint.  An owner whose
//  pods land on several target nodes moves in the step of the last of them.
//
// Pinned workloads (WhyPinned) are not moved: the planner keeps them
// unchanged, and Schedule::left_out lists each one with the reason.
//
// Capacity model (Schedule::capacity, written before step 1):
//  free allocatable per node and GPU resource = allocatable - requests of the
//  active pods bound there, less what unbound Pending GPU pods will take
//  (each is counted on the first node, by name, it may use that has room).
//  A recreated pod may only count on a node its placement allows
//  (model::Placement: nodeSelector, required node affinity, NoSchedule /
//  NoExecute taints it does not tolerate, cordoned nodes), never on a node of
//  the step that evicts it.  Meanwhile slots are taken from nodes no step
//  reconfigures first, then from reconfigured nodes' whole GPUs, then from
//  nodes a later step reconfigures (those pods are evicted again there).
//  A DaemonSet pod, or a pod whose placement allows only its own node, waits
//  Pending until the taint is removed (runs_meanwhile ""; it is disrupted);
//  a bare pod is not recreated (comes_back false).
//
// Order: steps are built greedily, pool after pool (a pool takes steps while
// one fits, then the next; passes repeat while any pool progresses), one GPU
// model pool per step and at most
// policy.max_nodes_per_pool nodes per step: the pool's remaining target
// nodes are tried by fewest GPUs to evict at the start (then name), the first
// 16 of them per step (planning time stays linear in the cluster's size), and
// a node joins the step when every recreated pod of the step's nodes finds a
// meanwhile slot.
// When no node of any pool fits, whole spare GPUs of the pools' models are
// added (a virtual spare node per model, matching the pool's labels, without
// taints): as many as the candidate needing the fewest of them needs (among
// the first 4 of each pool), and the order goes on, trying only the first 4
// candidates per step from then on, to count spare_gpus_needed (the greedy
// order's need: an upper bound on the fewest spare GPUs any order needs).
// Pools are independent: the pools with targets left when the order first got
// stuck are blocked (Schedule::blocked_pools, with why), and the order is
// built again without them, their nodes left as they are (their pods stay,
// their free GPUs serve as meanwhile slots), until the pools left fit.  The
// schedule is then infeasible (feasible false) but holds those pools' steps;
// the plan carries a warning naming the blocked pools.
//
// Per owner move: strategy and rollout parameters as read (Deployment:
// maxSurge rounds up, maxUnavailable down, defaults 25%; Recreate takes all
// replicas down at once; StatefulSet RollingUpdate one pod at a time;
// StatefulSet OnDelete: the executor evicts pod by pod through the Eviction
// API, so the PDB is respected).  pdb_ok is false when the rollout may take
// more pods down at once than the PDB's status.disruptionsAllowed; the step is
// then flagged.  An owner managed by Argo CD, Flux or Helm is flagged unless
// the policy's patchGitOpsOwners.  An owner with fewer slots on the targets
// than replicas is flagged.
//
// estimated_seconds, the documented inputs (kSeconds* below):
//  max grace period of the evicted pods (they are evicted together)
//  + ConfigMap sync (kConfigMapSyncSeconds) + mig-manager / device-plugin
//    restart (kOperatorRestartSeconds)
//  + MIG apply: kMigApplySecondsPerGpu per GPU whose MIG mode changes, on the
//    step node with the most such GPUs (nodes are reconfigured in parallel)
//  + rollout: kRolloutSecondsPerBatch per replica batch of the slowest owner
//    (batches = ceil(replicas / max(1, maxSurge + maxUnavailable)); one pod
//    per batch for StatefulSets).
//
// Per step results: needs groups the meanwhile slots by where their GPUs came
// from ("free before the migration", "freed by step k"); gpus_freed is the
// change in GPUs held (whole GPUs of running pods plus GPUs used by slices)
// over the step, negative when it configures slices for owners that move in
// a later step; nodes_freed are nodes left without GPU pods; each node's
// monthly saving (NodePlan) goes to the last step that lowered its GPUs.
//
// content_hash: SHA-256 of a canonical text of the step's pool, method,
// nodes, their labels and layouts after, and its owners with replicas and
// resources (no pod names), so the same cluster gives the same id every run.
#pragma once

#include <cstdint>

#include "model/cluster.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan {

inline constexpr int64_t kConfigMapSyncSeconds = 60;
inline constexpr int64_t kOperatorRestartSeconds = 30;
inline constexpr int64_t kMigApplySecondsPerGpu = 30;
inline constexpr int64_t kRolloutSecondsPerBatch = 60;

// Builds the schedule of `plan` (its nodes, workloads and artifacts must be
// filled).  Appends nothing to the plan; the caller adds a warning when the
// schedule is infeasible (ScheduleWarning).
Schedule BuildSchedule(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy);

// The warning a plan carries for an infeasible schedule, "" when feasible.
std::string ScheduleWarning(const Schedule& schedule);

// Why the pod is tied to its node ("" when it is not): required node affinity
// naming one node, or local storage (model::Pod::local_volumes).  The planner
// leaves such workloads unchanged and the schedule lists them in left_out.
std::string WhyPinned(const model::Pod& pod);
// The end of the reason the planner gives a pinned workload.
inline constexpr const char* kLeftOutReason = "left out of the migration";

// "Argo CD", "Flux", "Helm" when a GitOps tool manages the controller (its
// labels, annotations and managedFields managers), else "".
std::string GitOpsManager(const model::Controller& controller);

}  // namespace kubeon::plan
