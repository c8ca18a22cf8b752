#include "apply/gate.h"

#include "apply/rfc3339.h"

namespace kubeon::apply {

const char* GateVerdictName(GateVerdict v) {
  switch (v) {
    case GateVerdict::kRun: return "run";
    case GateVerdict::kAlreadyHandled: return "already-handled";
    case GateVerdict::kExpired: return "expired";
    case GateVerdict::kProposeOnly: return "propose-only";
    case GateVerdict::kNeedsApproval: return "needs-approval";
    case GateVerdict::kOutsideWindow: return "outside-window";
  }
  return "?";
}

GateDecision Decide(const plan::ScheduleStep& step, const std::optional<audit::ChangeRecord>& record,
                    policy::Mode mode, const std::optional<policy::Window>& window, std::chrono::sys_seconds now) {
  using audit::ChangeState;
  GateDecision d;
  if (record) {
    switch (record->state) {
      case ChangeState::kDone:
      case ChangeState::kReverted:
      case ChangeState::kRejected:
      case ChangeState::kFailed:
      case ChangeState::kRolledBack:
      case ChangeState::kRunning:
        d.verdict = GateVerdict::kAlreadyHandled;
        d.why = "change " + step.id + " is " + std::string(audit::ChangeStateName(record->state));
        return d;
      case ChangeState::kExpired:
      case ChangeState::kProposed:
      case ChangeState::kApproved:
        break;
    }
  }
  bool approved = false;
  if (record && record->state == ChangeState::kApproved) {
    if (record->approved_hash != step.content_hash) {
      d.verdict = GateVerdict::kExpired;
      d.why = "the approval of " + step.id + " was for other content (hash " + record->approved_hash.substr(0, 12) +
              ", now " + step.content_hash.substr(0, 12) + ")";
      return d;
    }
    const auto until = ParseTime(record->approval_expires_at);
    if (until && *until <= now) {
      d.verdict = GateVerdict::kExpired;
      d.why = "the approval of " + step.id + " by " + record->approved_by + " expired at " + FormatTime(*until);
      return d;
    }
    approved = true;
  }
  if (mode == policy::Mode::kProposal) {
    d.verdict = GateVerdict::kProposeOnly;
    d.why = "mode Proposal: proposed only";
    return d;
  }
  if (!approved && (mode == policy::Mode::kApprove || !step.flags.empty())) {
    d.verdict = GateVerdict::kNeedsApproval;
    d.why = mode == policy::Mode::kApprove
                ? "waiting for approval: kubeon-gpu approve " + step.id
                : "flagged (" + step.flags.front() + "): Auto does not take it; approve it with kubeon-gpu approve " +
                      step.id;
    return d;
  }
  if (!window) {
    d.verdict = GateVerdict::kOutsideWindow;
    d.why = "the policy has no change window";
    return d;
  }
  if (!window->Contains(now)) {
    d.verdict = GateVerdict::kOutsideWindow;
    d.next_open = window->NextOpen(now);
    d.why = "the window \"" + window->text() + "\" is closed" +
            (d.next_open ? "; it opens at " + FormatTime(*d.next_open) : std::string());
    return d;
  }
  const auto close = window->CloseOf(now);
  const auto end = now + std::chrono::seconds(step.estimated_seconds);
  if (close != std::chrono::sys_seconds::max() && end > close) {
    d.verdict = GateVerdict::kOutsideWindow;
    d.next_open = window->NextOpen(close);
    d.why = "step " + step.id + " takes about " + std::to_string(step.estimated_seconds / 60) +
            " min but the window closes at " + FormatTime(close) +
            (d.next_open ? "; next opening " + FormatTime(*d.next_open) : std::string());
    return d;
  }
  d.verdict = GateVerdict::kRun;
  d.why = approved ? "approved by " + record->approved_by : "mode Auto, window open";
  return d;
}

}  // namespace kubeon::apply
