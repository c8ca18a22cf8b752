// Planning each policy on inputs read once (plan_inputs.h), one policy at a
// time: the commands' BuildPlans and the controller's pass both use it, so a
// policy fails alone the same way everywhere.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "inputs/plan_inputs.h"
#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::inputs {

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

}  // namespace kubeon::inputs
