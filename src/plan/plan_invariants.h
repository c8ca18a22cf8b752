// The planner's promises, written down once, each with an id.  MakePlan
// checks every one of them on the plan it built (CheckPlanInvariants) and
// fails the policy with the violations instead of handing a broken plan on;
// the property test (planner_property_test.cc) checks them by id on
// generated clusters, beside the independent schedule checker
// (schedule_checker.h), which replays evictions, meanwhile slots and PDBs.
//
//  PLAN-LAYOUT        every MIG GPU's mig_devices is a valid layout for its
//                     node's model (mig/layout.h LayoutFits), one workload per
//                     slice, and only MIG-capable models get MIG;
//  PLAN-SLICE-FITS    a workload moved to MIG has a slice of its pool's model
//                     that the policy allows, whose memory >= peak x
//                     (1 + headroom) and whose compute share >= compute peak x
//                     (1 + headroom);
//  PLAN-TIME-SLICING  a time-sliced workload's namespace is listed in
//                     spec.timeSlicing.namespaces; a time-sliced node's
//                     replicas are 1..maxReplicas (1: a pod of a workload
//                     that shares elsewhere, alone on its GPU; the device
//                     plugin accepts replicas >= 1) and it holds at most
//                     GPUs x replicas pods; a time-sliced workload shares a
//                     GPU with another pod on at least one node;
//  PLAN-PLACED        every pod of a moved workload has exactly one slot
//                     (a MIG slice or a time-sliced share) on a node of its
//                     pool, and every slot names a moved workload;
//  PLAN-TARGETS       a node that gets a new layout is in scope, schedulable,
//                     Ready and not already shared;
//  PLAN-GPUS          a node holds at most its GPU count after the plan, and
//                     the plan's GPUs after <= its GPUs before;
//  PLAN-TOTALS        summary.gpus_before / gpus_after / gpus_freed /
//                     nodes_freed / monthly_savings_usd are the nodes' sums,
//                     savings_realizable_usd the freed nodes' and
//                     capacity_freed_usd the other nodes' savings;
//  PLAN-DECISIONS     a moved workload has a slice and a patch in
//                     artifacts.workload_patches; an unchanged one has a
//                     reason and no patch;
//  PLAN-DISRUPTED     only nodes whose MIG mode changes list disrupted pods;
//                     under stayingPods None none is listed, under Restartable
//                     each one is recreated by a controller, not
//                     safe-to-evict "false" and without local storage;
//  SCHED-ONCE         every node that gets a new layout is in exactly one
//                     step, of its own pool, with at most maxNodesPerPool
//                     nodes per step, and no node is in two steps; a node of
//                     a blocked pool is in none;
//  SCHED-FEASIBLE     a schedule is infeasible exactly when it blocks some
//                     pool, says why for each, and has no step of a blocked
//                     pool;
//  SCHED-IDS          a step's id is the first 8 hex digits of its
//                     content_hash, and no two steps share a hash.
// The schedule checker adds, independently: every evicted pod has a meanwhile
// slot on a node its placement allows or is listed as disrupted, capacity is
// never negative, and an owner whose rollout exceeds its PDB is flagged.
#pragma once

#include <string>
#include <vector>

#include "mig/catalog.h"
#include "model/cluster.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan {

struct InvariantViolation {
  std::string id;       // "PLAN-LAYOUT", ...
  std::string message;  // names the node, workload or step
};

// Checks every invariant above on `plan`, built for (cluster, history peaks
// in plan.workloads, policy, catalog).  Linear in the plan's size.  Returns
// the violations found, empty when the plan keeps its promises.
std::vector<InvariantViolation> CheckPlanInvariants(const model::Cluster& cluster, const Plan& plan,
                                                    const policy::GpuPolicy& policy, const mig::MigCatalog& catalog);

}  // namespace kubeon::plan
