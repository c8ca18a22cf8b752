// Test helper: plans a generated cluster (generated_cluster.h) and checks
// every promise of the plan by id (plan_invariants.h), the independent
// schedule replay (schedule_checker.h) and what the test knows on its own of
// the input (GPUs after <= before, the lower bound, peaks copied from the
// history).  Shared by planner_property_test (bounded, in every build) and
// planner_sweep_test (the larger sweep, label long).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/generated_cluster.h"

namespace kubeon::plan::testing {

// The problems of planning `g`, each "ID: message"; empty when every check
// holds.  A planner failure (a Status) is a problem too ("PLANNER: ...").
std::vector<std::string> PlanProblems(const Generated& g);

// Plans Generate(shape, seed) and, when it has problems, shrinks it to the
// fewest leading nodes that still fail (halving, then one by one down to a
// bound) and returns a report naming the seed, the shape, the problems and
// the shrunk cluster; "" when every check holds.
std::string CheckShape(const Shape& shape, uint64_t seed);

}  // namespace kubeon::plan::testing
