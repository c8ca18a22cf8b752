// The journal of one run (a step, or a revert of it): its change record and
// typed step record (step_record.h), and the log-first rule (issue 11, rule
// 8) every cluster write of the executor follows:
//
//   Intent(action, detail)   saves the record (the undo data of the write to
//                            come is already in run()) and appends an
//                            "intent" entry;
//   ... the cluster write ...
//   Wrote(action, detail)    counts the write, calls the injected
//                            WriteObserver (a crash point), appends "ok".
//
// Every part of the state machine takes the journal: it is also where the run
// finds its context (client, clock, options), its outcome so far, and
// whether it is rolling back.
//
// REQUIRES: the StepContext outlives the journal; one journal per run, used
// by one thread.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "apply/step_context.h"
#include "apply/step_record.h"

namespace kubeon::apply {

enum class RunKind { kStep, kRevert };  // which RUN of the record the journal writes

class StepJournal {
 public:
  StepJournal(const StepContext& ctx, std::string id, RunKind kind);

  // Loads change `id` (or creates it from `create` when absent and `create`
  // is non-null) and its step record; the run this journal writes is
  // created empty when the record lacks it.  A record this version cannot
  // read (step_record.h) is an error with the reader's code.
  Status Load(const audit::ChangeRecord* create);

  const StepContext& ctx() const { return ctx_; }
  kube::KubeClient& client() const { return ctx_.client; }
  const StepOptions& options() const { return ctx_.options; }
  const std::string& id() const { return id_; }
  RunKind kind() const { return kind_; }

  audit::ChangeRecord& change() { return change_; }
  StepRecord& record() { return record_; }
  RunRecord& run() { return kind_ == RunKind::kStep ? *record_.step : *record_.revert; }
  StepOutcome& outcome() { return outcome_; }

  bool crashed() const { return crashed_; }
  bool fenced() const { return fenced_; }
  // The run stopped: crashed (a crash point) or fenced (the Lease lost).
  // Nothing more may be written, to the cluster or to the log.
  bool stopped() const { return crashed_ || fenced_; }
  bool rolling_back() const { return rolling_back_; }
  void StartRollingBack() { rolling_back_ = true; }

  // Writes the record (undo data and, when given, state and reason).
  Status Save(std::optional<audit::ChangeState> state = std::nullopt, const std::string& reason = "");
  Status Log(const std::string& action, const std::string& outcome, const std::string& detail,
             const nlohmann::json& data = nlohmann::json::object());
  // The fence (StepContext::fence); an error sets fenced().
  Status Fence();
  // Log first: the fence, the undo data, then the intent (and the progress
  // line).
  Status Intent(const std::string& action, const std::string& detail);
  // After a successful cluster write.  An error when the observer stopped
  // the run (crashed() is then true) or the log refused the entry.
  Status Wrote(const std::string& action, const std::string& detail);

  void Progress(const std::string& line) const;
  // A log write whose failure must not stop the work in hand (a rollback, a
  // resume): said in progress at once and kept for the outcome's cause.
  void NoteJournalError(const Status& s);
  const std::string& journal_error() const { return journal_error_; }

 private:
  const StepContext& ctx_;
  std::string id_;
  RunKind kind_;
  audit::ChangeRecord change_;
  StepRecord record_;
  StepOutcome outcome_;
  bool crashed_ = false;
  bool fenced_ = false;
  bool rolling_back_ = false;
  std::string journal_error_;  // the first log write a rollback or resume went on without
};

// RFC 3339 UTC (seconds) of the clock's now, for log entries and records.
std::string Stamp(Clock& clock);

}  // namespace kubeon::apply
