// A ChangeRecord as JSON for people and tools: `kubeon-gpu changes -o json`
// (cli/change_commands.h documents the fields, a contract: fields may be
// added, never renamed) and the reviewer page's GET /api/changes.
//   {"id", "policy", "state", "content_hash", "revision", "created_at",
//    "updated_at", "approval": {"by", "at", "expires_at", "expired", "hash",
//    "matches_step"} | null, "rejected_by" | null, "reason",
//    "step": <plan/schedule_json.h StepToJson> | null,
//    "step_error": null | "why the stored step does not read",
//    "attempt": N (the current attempt, 1 until a rolled-back step is tried
//    again), "attempts": [{"number", "ended_at", "cause"}] (the earlier
//    ones, rolled back; oldest first)}
// An approval is "expired" when its expiry is not after `now`.
#pragma once

#include <chrono>

#include <nlohmann/json.hpp>

#include <vector>

#include "apply/step_record.h"
#include "audit/audit_store.h"
#include "model/status.h"
#include "plan/plan.h"

namespace kubeon::apply {

nlohmann::json ChangeToJson(const audit::ChangeRecord& r, std::chrono::system_clock::time_point now);

// The earlier attempts of a change's step, rolled back (step_record.h); none
// when its step record cannot be read.
std::vector<Attempt> EarlierAttempts(const audit::ChangeRecord& r);

// The step a record proposes (plan/schedule_json.h), or why it cannot be read.
Result<plan::ScheduleStep> StepOfChange(const audit::ChangeRecord& r);

}  // namespace kubeon::apply
