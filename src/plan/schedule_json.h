// The migration schedule (plan.h ScheduleStep, Schedule) as JSON, both ways:
// field names are those of plan.h in snake_case ("runs_meanwhile",
// "content_hash"); an owner is {"namespace", "kind", "name"}; maps are JSON
// objects.  The executor stores a step's JSON in the audit log and reads it
// back, so StepFromJson(StepToJson(s)) == s for every step.
//
// Reading is strict about types (a field of the wrong type is an error naming
// its path, e.g. "evictions[2].count: expected an integer") and lenient about
// presence (an absent field keeps its default), so older logs still read.
#pragma once

#include <nlohmann/json.hpp>

#include "model/status.h"
#include "plan/plan.h"

namespace kubeon::plan {

nlohmann::json StepToJson(const ScheduleStep& step);
Result<ScheduleStep> StepFromJson(const nlohmann::json& j);

nlohmann::json ScheduleToJson(const Schedule& schedule);
Result<Schedule> ScheduleFromJson(const nlohmann::json& j);

}  // namespace kubeon::plan
