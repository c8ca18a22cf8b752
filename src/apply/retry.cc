#include "apply/retry.h"

#include <cmath>

#include "apply/rfc3339.h"
#include "apply/step_record.h"

namespace kubeon::apply {
namespace {

using std::chrono::system_clock;

std::string Why(const audit::ChangeRecord& r) { return r.reason.empty() ? "no reason recorded" : r.reason; }

}  // namespace

Result<RetryDecision> DecideRetry(const audit::ChangeRecord& record, const policy::GpuPolicy& policy,
                                  system_clock::time_point now) {
  Result<StepRecord> step = ReadStepRecord(record.undo_json, "change " + record.id);
  if (!step.ok()) return step.status();
  RetryDecision d;
  d.attempts = static_cast<int64_t>(step->attempts.size()) + 1;
  const std::string made = "attempt " + std::to_string(d.attempts) + " of " + std::to_string(policy.max_attempts);
  if (d.attempts >= policy.max_attempts) {
    d.kind = RetryDecision::Kind::kExhausted;
    d.why = "rolled back in all " + std::to_string(d.attempts) + " attempt(s) (spec.disruption.maxAttempts: " +
            std::to_string(policy.max_attempts) + "); the last: " + Why(record);
    return d;
  }
  // The n-th retry waits backoff * 2^(n-1), in whole seconds.
  const double seconds = policy.retry_backoff_hours * 3600 * std::ldexp(1.0, static_cast<int>(d.attempts - 1));
  const auto wait = std::chrono::seconds(static_cast<int64_t>(std::llround(seconds)));
  const auto ended = ParseTimePoint(record.updated_at);
  d.at = ended ? *ended + wait : now;
  if (now < d.at) {
    d.kind = RetryDecision::Kind::kLater;
    d.why = made + " was rolled back (" + Why(record) + "); the next from " +
            FormatTime(std::chrono::floor<std::chrono::seconds>(d.at)) + " (spec.disruption.retryBackoff: " +
            policy.retry_backoff_text + ", doubled for each attempt)";
    return d;
  }
  d.kind = RetryDecision::Kind::kNow;
  d.why = made + " was rolled back (" + Why(record) + "); attempt " + std::to_string(d.attempts + 1) + " of " +
          std::to_string(policy.max_attempts);
  return d;
}

Result<audit::ChangeRecord> NewAttempt(const audit::ChangeRecord& record) {
  Result<StepRecord> step = ReadStepRecord(record.undo_json, "change " + record.id);
  if (!step.ok()) return step.status();
  StepRecord next = *step;
  next.attempts.push_back({static_cast<int64_t>(next.attempts.size()) + 1, record.updated_at, Why(record)});
  next.step.reset();
  next.revert.reset();
  audit::ChangeRecord r = record;
  r.undo_json = WriteStepRecord(next);
  r.state = audit::ChangeState::kProposed;
  r.approved_by.clear();
  r.approved_at.clear();
  r.approval_expires_at.clear();
  r.approved_hash.clear();
  r.rejected_by.clear();
  r.reason.clear();
  return r;
}

}  // namespace kubeon::apply
