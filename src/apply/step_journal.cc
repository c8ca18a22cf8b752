#include "apply/step_journal.h"

#include "apply/rfc3339.h"

namespace kubeon::apply {

std::string Stamp(Clock& clock) { return FormatTime(std::chrono::floor<std::chrono::seconds>(clock.Now())); }

StepJournal::StepJournal(const StepContext& ctx, std::string id, RunKind kind)
    : ctx_(ctx), id_(std::move(id)), kind_(kind) {
  outcome_.change_id = id_;
}

Status StepJournal::Load(const audit::ChangeRecord* create) {
  auto got = ctx_.store.GetChange(id_);
  if (!got.ok()) return got.status();
  if (got->has_value()) {
    change_ = **got;
  } else if (create != nullptr) {
    change_ = *create;
    change_.revision = 0;
    if (Status s = ctx_.store.PutChange(change_, 0); !s.ok()) return s;
    change_.revision = 1;
  } else {
    return Status::Error("no change with id " + id_ + " in the audit log", StatusCode::kNotFound);
  }
  Result<StepRecord> read = ReadStepRecord(change_.undo_json, "change " + id_);
  if (!read.ok()) return read.status();
  record_ = std::move(*read);
  std::optional<RunRecord>& run = kind_ == RunKind::kStep ? record_.step : record_.revert;
  if (!run) run.emplace();
  return Status::Ok();
}

Status StepJournal::Save(std::optional<audit::ChangeState> state, const std::string& reason) {
  if (state) change_.state = *state;
  if (!reason.empty()) change_.reason = reason;
  change_.undo_json = WriteStepRecord(record_);
  change_.updated_at = Stamp(ctx_.clock);
  Status s = ctx_.store.PutChange(change_, change_.revision);
  if (s.ok()) ++change_.revision;
  return s;
}

Status StepJournal::Log(const std::string& action, const std::string& outcome, const std::string& detail,
                        const nlohmann::json& data) {
  audit::LogEntry e;
  e.time = Stamp(ctx_.clock);
  e.change_id = id_;
  e.action = action;
  e.outcome = outcome;
  e.detail = detail;
  e.data_json = data.dump();
  auto r = ctx_.store.Append(e);
  return r.ok() ? Status::Ok() : r.status();
}

Status StepJournal::Fence() {
  if (fenced_) return Status::Error("stopped writing: the Lease was lost", StatusCode::kAborted);
  if (!ctx_.fence) return Status::Ok();
  Status s = ctx_.fence();
  if (!s.ok()) {
    fenced_ = true;
    Progress(s.message() + ": stopped writing; the change is left for the Lease's next holder");
  }
  return s;
}

Status StepJournal::Intent(const std::string& action, const std::string& detail) {
  Status s = Fence();
  if (s.ok()) s = Save();
  if (s.ok()) s = Log(action, "intent", detail);
  if (s.ok()) Progress(detail);
  return s;
}

Status StepJournal::Wrote(const std::string& action, const std::string& detail) {
  ++outcome_.writes;
  if (ctx_.options.write_observer && ctx_.options.write_observer(outcome_.writes)) {
    crashed_ = true;
    return Status::Error("stopped after cluster write " + std::to_string(outcome_.writes) + " (crash point)",
                         StatusCode::kAborted);
  }
  return Log(action, "ok", detail);
}

void StepJournal::Progress(const std::string& line) const {
  if (ctx_.progress) ctx_.progress(id_ + ": " + line);
}

void StepJournal::NoteJournalError(const Status& s) {
  if (s.ok()) return;
  Progress("warning: audit log: " + s.message());
  if (journal_error_.empty()) journal_error_ = s.message();
}

}  // namespace kubeon::apply
