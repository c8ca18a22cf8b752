// See change_json.h.
#include "apply/change_json.h"

#include "apply/rfc3339.h"
#include "plan/schedule_json.h"

namespace kubeon::apply {

using nlohmann::json;

Result<plan::ScheduleStep> StepOfChange(const audit::ChangeRecord& r) {
  json j = json::parse(r.step_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("step JSON of change " + r.id + " is not JSON");
  Result<plan::ScheduleStep> step = plan::StepFromJson(j);
  if (!step.ok()) return step.status().WithPrefix("step JSON of change " + r.id);
  return step;
}

std::vector<Attempt> EarlierAttempts(const audit::ChangeRecord& r) {
  Result<StepRecord> record = ReadStepRecord(r.undo_json, "change " + r.id);
  return record.ok() ? record->attempts : std::vector<Attempt>{};
}

json ChangeToJson(const audit::ChangeRecord& r, std::chrono::system_clock::time_point now) {
  const Result<plan::ScheduleStep> step = StepOfChange(r);
  json approval = nullptr;
  if (!r.approved_by.empty()) {
    const auto expires = ParseTimePoint(r.approval_expires_at);
    approval = {{"by", r.approved_by},
                {"at", r.approved_at},
                {"expires_at", r.approval_expires_at},
                {"expired", expires && *expires <= now},
                {"hash", r.approved_hash},
                {"matches_step", r.approved_hash == r.content_hash}};
  }
  const std::vector<Attempt> attempts = EarlierAttempts(r);
  json attempts_json = json::array();
  for (const Attempt& a : attempts) {
    attempts_json.push_back({{"number", a.number}, {"ended_at", a.ended_at}, {"cause", a.cause}});
  }
  return {{"id", r.id},
          {"policy", r.policy},
          {"state", std::string(audit::ChangeStateName(r.state))},
          {"content_hash", r.content_hash},
          {"revision", r.revision},
          {"created_at", r.created_at},
          {"updated_at", r.updated_at},
          {"approval", approval},
          {"rejected_by", r.rejected_by.empty() ? json(nullptr) : json(r.rejected_by)},
          {"reason", r.reason},
          {"step", step.ok() ? plan::StepToJson(*step) : json(nullptr)},
          {"step_error", step.ok() ? json(nullptr) : json(step.status().message())},
          {"attempt", attempts.size() + 1},
          {"attempts", attempts_json}};
}

}  // namespace kubeon::apply
