// The migration schedule (plan.h ScheduleStep, Schedule) as JSON, both ways:
// field names are those of plan.h in snake_case ("runs_meanwhile",
// "content_hash"); an owner is {"namespace", "kind", "name"}; maps are JSON
// objects.  The executor stores a step's JSON in the audit log and reads it
// back, so StepFromJson(StepToJson(s)) == s for every step.
//
// The schema is written once (schedule_json.cc, a template over the writer):
// WriteStep / WriteSchedule stream it as text into a model::JsonWriter (the
// plan's JSON output: no tree for a schedule of 10,000 nodes), StepToJson /
// ScheduleToJson build the same document as a nlohmann value
// (model::JsonTreeWriter); the writer's text is byte-identical to the value's
// dump(indent) (schedule_json_test).
//
// Reading is strict about types (a field of the wrong type is an error naming
// its path, e.g. "evictions[2].count: expected an integer") and lenient about
// presence (an absent field keeps its default), so older logs still read.
#pragma once

#include <nlohmann/json.hpp>

#include "model/json_writer.h"
#include "model/status.h"
#include "plan/plan.h"

namespace kubeon::plan {

nlohmann::json StepToJson(const ScheduleStep& step);
Result<ScheduleStep> StepFromJson(const nlohmann::json& j);

nlohmann::json ScheduleToJson(const Schedule& schedule);
// The same documents as StepToJson / ScheduleToJson, appended to `w` as its
// next value.  REQUIRES: `w` expects a value (top level, after Key(), or in an array).
void WriteStep(model::JsonWriter& w, const ScheduleStep& step);
void WriteSchedule(model::JsonWriter& w, const Schedule& schedule);
Result<Schedule> ScheduleFromJson(const nlohmann::json& j);

}  // namespace kubeon::plan
