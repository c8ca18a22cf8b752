// Test helper: an independent replay of a migration schedule (schedule.h) on
// the cluster it was built for.  It shares no code with the builder beyond
// the model's node filters (model::Placement) and checks, step by step:
//  - every step's nodes are targets of the plan (method mig / time-slicing),
//    of the step's pool, at most policy.max_nodes_per_pool of them, and every
//    target appears in exactly one step (those of a blocked pool in none:
//    no step is of a blocked pool);
//  - every GPU pod on a step's node at that point (including pods earlier
//    steps moved there) is evicted by the step, and nothing else is: the node
//    is empty before it is reconfigured;
//  - every evicted pod that runs meanwhile runs on a node outside the step
//    that its placement allows, with a free whole GPU there (capacity never
//    negative, counting GPUs freed by earlier steps only);
//  - every owner moved has all its target nodes reconfigured by then and
//    slots for its replicas (else the step is flagged), and every workload
//    the plan moves is moved exactly once;
//  - a step whose owner's rollout exceeds its PDB (pdb_ok false) is flagged.
// Returns the problems found, empty when the schedule is valid.
#pragma once

#include <string>
#include <vector>

#include "model/cluster.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan {

std::vector<std::string> CheckSchedule(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy);

}  // namespace kubeon::plan
