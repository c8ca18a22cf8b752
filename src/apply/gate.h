// The executor's gate: may this step start now?  A pure function of the
// step, its audit record, the policy's mode and window, and the time
// (issue 11 rules 1 and 2).  No I/O; the apply command acts on the answer.
//
// Rules, in order:
//  1. A step already done, reverted or rejected is not started again
//     (idempotence: `apply` twice changes nothing the second time).
//  2. An approval holds for the content it was given for: approved_hash must
//     equal the step's content_hash (the id is derived from that hash, so a
//     changed step is a new change and the old record expires), and it ends
//     at approval_expires_at (TTL).  A lapsed approval -> kExpired.
//  3. Proposal never changes the cluster -> kProposeOnly.
//  4. Approve acts only on approved, unexpired steps -> else kNeedsApproval.
//     Auto acts on its own on clean steps; a flagged step (PDB, GitOps, ...)
//     needs an explicit approval even under Auto -> kNeedsApproval.
//  5. A step starts only while the window is open and only when its estimated
//     duration (ScheduleStep::estimated_seconds) ends before the window
//     closes -> else kOutsideWindow with the next opening.  No window (only
//     possible in Proposal mode) never opens.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "apply/rfc3339.h"
#include "audit/audit_store.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::apply {

enum class GateVerdict {
  kRun,
  kAlreadyHandled,  // done, reverted, rejected, failed: not started again
  kExpired,         // its approval lapsed (hash or TTL): the record becomes expired
  kProposeOnly,
  kNeedsApproval,
  kOutsideWindow,
};
const char* GateVerdictName(GateVerdict v);

struct GateDecision {
  GateVerdict verdict = GateVerdict::kProposeOnly;
  std::string why;  // one line for a person
  std::optional<std::chrono::sys_seconds> next_open;  // with kOutsideWindow
};

// `record` is the audit record of this step id, nullopt when it was never
// recorded.  `mode` is the effective mode (policy, or --mode).
GateDecision Decide(const plan::ScheduleStep& step, const std::optional<audit::ChangeRecord>& record,
                    policy::Mode mode, const std::optional<policy::Window>& window, std::chrono::sys_seconds now);

}  // namespace kubeon::apply
