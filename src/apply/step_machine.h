// The step state machine: the only file that knows the phases' order and
// moves a run from one to the next (step_record.h names them).  Every
// phase's work is in its own file; this one sequences them.
//
//   step:    (not started) -> prepare -> configure -> uncordon -> owners -> cleanup -> done
//   revert:  start -> owners -> prepare -> configure -> uncordon -> cleanup -> done
//
//   prepare    node_ops: annotate, cordon                     (every node)
//   configure  operator_configmaps, then the kubelet's sync wait;
//              eviction (every node); label_handshake (every node)
//   uncordon   node_ops: reserve (step taint) and uncordon     (every node)
//   owners     owner_rollout: patch every owner, then wait for each rollout
//   cleanup    node_ops: taint and annotations removed          (every node)
//
//   the checks (gpu_capacity, after terminations; node_ops' CheckNodes)
//   refuse                                           -> refused (no write)
//   any phase fails                                  -> rollback -> rolled-back
//                                                                 | rollback-failed
//   the write observer stops the run                 -> (as it was: a crash)
//
// Rollback, in reverse: owners back to their templates from before, every
// configured node cordoned again with its taint removed, emptied and set
// back to its prior config (PriorTarget), operand labels restored; then
// every node's cleanup and the owners' rollouts.  A node that cannot be put
// back stays cordoned and tainted, and the outcome is kRollbackFailed.
//
// Resume of a change the log shows running (a crash): a step at cleanup or
// done only needs its cleanup; a step at owners has its nodes reconfigured
// and owners already moving, so the move is finished (re-applying a patch is
// idempotent) and rolled back only if that fails; anything else, and a
// revert left half way, is rolled back from the record.
#pragma once

#include <optional>
#include <string>

#include "apply/step_goal.h"
#include "apply/step_journal.h"

namespace kubeon::apply {

// A fresh attempt of a step: the run is emptied, not started.
void BeginStep(StepJournal& j);
// A revert that passed its checks: the run is emptied, at start.
void BeginRevert(StepJournal& j);

// Runs `goal`: the checks, the phases, a rollback on failure; records the
// outcome (the change moves to `done_state` when done).
StepOutcome RunGoal(StepJournal& j, const Goal& goal, audit::ChangeState done_state);

// Which run of change `rec` a crash left half way, if any.
std::optional<RunKind> RunLeftHalfWay(const audit::ChangeRecord& rec, const StepRecord& record);

// Finishes or rolls back the run a crash left (see the file comment).
// REQUIRES: j loaded, for the run RunLeftHalfWay named.
StepOutcome Resume(StepJournal& j);

}  // namespace kubeon::apply
