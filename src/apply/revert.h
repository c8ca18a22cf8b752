// What a revert of a done change sets, and whether it may run: the goal that
// puts back exactly the fields the step set (config labels to PriorTarget,
// owners to their templates from before; the nodes cordoned, then the owners
// moved, no reservation taint: see Goal::owners_first), refused with nothing
// changed when
//  - a field the step set no longer holds the value it set: the error names
//    the field, the object, the value expected and the value found
//    (kConflict); or
//  - the cluster lacks the whole GPUs the workloads need once back
//    (gpu_capacity.h; kUnavailable, with how many are missing), once the
//    pods already terminating are gone (terminations.h).
// Reads only; the state machine (step_machine.h) runs the goal.
#pragma once

#include "apply/step_goal.h"
#include "apply/step_journal.h"

namespace kubeon::apply {

// REQUIRES: j loaded for the revert run of a done change.
Result<Goal> RevertGoal(StepJournal& j);

}  // namespace kubeon::apply
