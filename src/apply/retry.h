// Whether a step that failed and was rolled back is tried again: the retry
// budget and backoff of a GpuPolicy (spec.disruption.maxAttempts,
// spec.disruption.retryBackoff), read against the change's record.  Pure;
// ApplyPlan (apply_run.h) writes what it decides.
//
//  - DecideRetry: for a change in state rolled-back.  Its attempts so far are
//    the earlier ones its step record lists (StepRecord::attempts) plus the
//    one just rolled back, which ended at the record's updated_at.  The next
//    attempt may start retry_backoff * 2^(attempts - 1) after that (15m, 30m,
//    1h, ... by default), and never once max_attempts were made.
//  - NewAttempt: the record of the next attempt: proposed again under the
//    same id and content hash, any approval cleared (it is decided anew, as
//    the mode and the step's flags say), the rolled-back attempt appended to
//    the step record's attempts, its run and any revert cleared.
//
// REQUIRES: record.state == audit::ChangeState::kRolledBack.
#pragma once

#include <chrono>
#include <string>

#include "audit/audit_store.h"
#include "model/status.h"
#include "policy/gpu_policy.h"

namespace kubeon::apply {

struct RetryDecision {
  enum class Kind {
    kNow,        // the next attempt may start
    kLater,      // the backoff has not passed: `at`
    kExhausted,  // max_attempts were made
  };
  Kind kind = Kind::kNow;
  int64_t attempts = 0;  // made so far, the rolled-back one included
  std::chrono::system_clock::time_point at;
  std::string why;  // one line for a person, naming the policy field
};

// kInvalid when the record's step record cannot be read.
Result<RetryDecision> DecideRetry(const audit::ChangeRecord& record, const policy::GpuPolicy& policy,
                                  std::chrono::system_clock::time_point now);
Result<audit::ChangeRecord> NewAttempt(const audit::ChangeRecord& record);

}  // namespace kubeon::apply
