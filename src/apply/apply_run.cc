#include "apply/apply_run.h"

#include <set>

#include "apply/gate.h"
#include "apply/retry.h"
#include "plan/schedule_json.h"

namespace kubeon::apply {
namespace {

using audit::ChangeRecord;
using audit::ChangeState;

std::string Summary(const plan::ScheduleStep& s) {
  std::string nodes;
  for (const auto& n : s.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  return "step " + std::to_string(s.index) + " " + s.id + " (" + s.method + " on " + nodes + ", " +
         std::to_string(s.owners.size()) + " owner(s), frees " + std::to_string(s.gpus_freed) + " GPU(s))";
}

StepReport Report(const plan::Plan& plan, const plan::ScheduleStep& s, std::string outcome, std::string why) {
  StepReport r;
  r.index = s.index;
  r.id = s.id;
  r.policy = plan.policy_name;
  r.outcome = std::move(outcome);
  r.why = std::move(why);
  r.nodes = s.nodes;
  r.gpus_freed = s.gpus_freed;
  r.monthly_savings_usd = s.monthly_savings_usd;
  return r;
}

std::string Now(const ApplyOptions& o) { return FormatTime(o.now()); }

// Writes `r` over the stored revision `expected`; returns the new record.
Result<ChangeRecord> Put(audit::AuditStore& store, ChangeRecord r, int64_t expected, const ApplyOptions& o) {
  r.updated_at = Now(o);
  Status s = store.PutChange(r, expected);
  if (!s.ok()) return s;
  r.revision = expected + 1;
  return r;
}

Status Log(audit::AuditStore& store, const ApplyOptions& o, const std::string& id, const std::string& action,
           const std::string& outcome, const std::string& detail) {
  audit::LogEntry e;
  e.time = Now(o);
  e.change_id = id;
  e.action = action;
  e.outcome = outcome;
  e.detail = detail;
  e.data_json = "{}";
  Result<int64_t> seq = store.Append(e);
  return seq.ok() ? Status::Ok() : seq.status();
}

}  // namespace

int ApplyExitCode(const std::vector<ApplyReport>& reports) {
  bool rollback_failed = false, rolled_back = false, error = false, infeasible = false, waiting = false;
  for (const auto& r : reports) {
    if (!r.error.empty()) error = true;
    if (!r.feasible) infeasible = true;
    for (const auto& s : r.steps) {
      if (s.outcome == "rollback-failed") rollback_failed = true;
      if (s.outcome == "rolled-back" || s.outcome == "attempts-spent") rolled_back = true;
      if (s.outcome == "waiting-approval" || s.outcome == "waiting-window" || s.outcome == "expired" ||
          s.outcome == "waiting-retry") {
        waiting = true;
      }
    }
  }
  if (rollback_failed) return 5;
  if (rolled_back) return 4;
  if (error) return 1;
  if (infeasible) return 6;
  if (waiting) return 3;
  return 0;
}

ApplyReport ApplyPlan(const plan::Plan& plan, const policy::GpuPolicy& policy, audit::AuditStore* store,
                      const ApplyOptions& o, const RunStepFn& run_step) {
  ApplyReport report;
  report.policy = plan.policy_name;
  auto progress = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  const plan::Schedule& schedule = plan.schedule;
  report.feasible = schedule.feasible;
  report.spare_gpus_needed = schedule.spare_gpus_needed;
  report.blocked_pools = schedule.blocked_pools;
  // A blocked pool holds back no other pool: the schedule's steps are the
  // other pools' order.
  for (const auto& [pool, why] : schedule.blocked_pools) {
    progress("policy " + plan.policy_name + ": GPU pool " + pool + " stays as it is: no order of its changes fits (" +
             why + ")");
  }
  if (!schedule.feasible && schedule.steps.empty()) {
    progress("policy " + plan.policy_name + ": nothing starts");
    return report;
  }

  std::set<std::string> in_plan;
  for (const auto& s : schedule.steps) in_plan.insert(s.id);

  // Approvals of steps that left the plan lapse.
  if (store != nullptr && !o.dry_run) {
    Result<std::vector<ChangeRecord>> all = store->ListChanges();
    if (!all.ok()) {
      report.error = all.status().message();
      return report;
    }
    for (const auto& r : *all) {
      if (r.policy != plan.policy_name || in_plan.count(r.id) != 0) continue;
      if (r.state != ChangeState::kProposed && r.state != ChangeState::kApproved) continue;
      ChangeRecord e = r;
      e.state = ChangeState::kExpired;
      e.reason = "no longer in the plan: the cluster changed since it was proposed";
      Result<ChangeRecord> put = Put(*store, e, r.revision, o);
      Status logged = put.ok() ? Log(*store, o, r.id, "expire", "ok", e.reason) : put.status();
      if (!logged.ok()) {
        report.error = logged.message();
        return report;
      }
      report.expired.push_back(r.id);
      progress("change " + r.id + " expired: " + e.reason);
    }
  }

  // The step of each GPU pool that waits: later steps of that pool do not
  // start (they count on the GPUs it frees); other pools go on.
  std::map<std::string, std::string> blocked_by;
  for (const auto& step : schedule.steps) {
    std::optional<ChangeRecord> record;
    if (store != nullptr && !o.dry_run) {
      Result<std::optional<ChangeRecord>> got = store->GetChange(step.id);
      if (!got.ok()) {
        report.error = got.status().message();
        return report;
      }
      record = *got;
      ChangeRecord r = record.value_or(ChangeRecord{});
      const int64_t expected = record ? record->revision : 0;
      if (!record) {
        r.id = step.id;
        r.policy = plan.policy_name;
        r.content_hash = step.content_hash;
        r.state = ChangeState::kProposed;
        r.created_at = Now(o);
      }
      const std::string step_json = plan::StepToJson(step).dump();
      const bool again = record && record->state == ChangeState::kExpired;
      if (again) {  // the same content is in the plan again: a new proposal, to be decided anew
        r.state = ChangeState::kProposed;
        r.approved_by.clear();
        r.approved_at.clear();
        r.approval_expires_at.clear();
        r.approved_hash.clear();
        r.reason.clear();
      }
      if (!record || again || r.step_json != step_json) {
        r.step_json = step_json;
        Result<ChangeRecord> put = Put(*store, r, expected, o);
        if (!put.ok()) {
          report.error = put.status().message();
          return report;
        }
        if (!record || again) {
          Status logged = Log(*store, o, step.id, "propose", "ok", (again ? "again: " : "") + Summary(step));
          if (!logged.ok()) {
            report.error = logged.message();
            return report;
          }
        }
        record = *put;
      }
    }
    if (auto b = blocked_by.find(step.gpu_model); b != blocked_by.end()) {
      report.steps.push_back(Report(plan, step, "not-started", "waits for step " + b->second));
      continue;
    }
    // A rolled-back step is tried again, within the policy's retry budget.
    if (record && record->state == ChangeState::kRolledBack) {
      Result<RetryDecision> retry = DecideRetry(*record, policy, o.now());
      if (!retry.ok()) {
        report.error = retry.status().message();
        return report;
      }
      if (retry->kind != RetryDecision::Kind::kNow) {
        const bool later = retry->kind == RetryDecision::Kind::kLater;
        report.steps.push_back(Report(plan, step, later ? "waiting-retry" : "attempts-spent", retry->why));
        progress(Summary(step) + ": " + retry->why);
        blocked_by.emplace(step.gpu_model, step.id);
        continue;
      }
      Result<ChangeRecord> next = NewAttempt(*record);
      Result<ChangeRecord> put = next.ok() ? Put(*store, *next, record->revision, o) : next.status();
      Status logged = put.ok() ? Log(*store, o, step.id, "propose", "ok", "retry: " + retry->why) : put.status();
      if (!logged.ok()) {
        report.error = logged.message();
        return report;
      }
      progress(Summary(step) + ": proposed again: " + retry->why);
      record = *put;
    }
    GateDecision d = Decide(step, record, o.mode, policy.window, o.now());
    switch (d.verdict) {
      case GateVerdict::kAlreadyHandled:
        report.steps.push_back(
            Report(plan, step, "already-" + std::string(audit::ChangeStateName(record->state)), d.why));
        if (record->state != ChangeState::kDone && record->state != ChangeState::kReverted) {
          blocked_by.emplace(step.gpu_model, step.id);
        }
        continue;
      case GateVerdict::kExpired:
        if (store != nullptr && !o.dry_run) {
          ChangeRecord e = *record;
          e.state = ChangeState::kExpired;
          e.reason = d.why;
          Result<ChangeRecord> put = Put(*store, e, record->revision, o);
          Status logged = put.ok() ? Log(*store, o, step.id, "expire", "ok", d.why) : put.status();
          if (!logged.ok()) {
            report.error = logged.message();
            return report;
          }
        }
        report.steps.push_back(Report(plan, step, "expired", d.why + "; approve it again"));
        progress(Summary(step) + ": " + d.why);
        blocked_by.emplace(step.gpu_model, step.id);
        continue;
      case GateVerdict::kProposeOnly:
        report.steps.push_back(Report(plan, step, "proposed", d.why));
        progress(Summary(step) + ": proposed");
        continue;  // Proposal records every step; none runs
      case GateVerdict::kNeedsApproval:
      case GateVerdict::kOutsideWindow:
        report.steps.push_back(Report(
            plan, step, d.verdict == GateVerdict::kNeedsApproval ? "waiting-approval" : "waiting-window", d.why));
        progress(Summary(step) + ": " + d.why);
        blocked_by.emplace(step.gpu_model, step.id);
        continue;
      case GateVerdict::kRun:
        break;
    }
    if (o.dry_run) {
      report.steps.push_back(Report(plan, step, "would-run", d.why));
      progress(Summary(step) + ": would run (" + d.why + ")");
      continue;
    }
    if (o.renew_lease) {
      Status lease = o.renew_lease();
      if (!lease.ok()) {
        report.error = lease.message();
        return report;
      }
    }
    ChangeRecord running = *record;
    running.state = ChangeState::kRunning;
    Result<ChangeRecord> put = Put(*store, running, record->revision, o);
    if (!put.ok()) {
      report.error = put.status().message();
      return report;
    }
    if (Status logged = Log(*store, o, step.id, "start", "ok", Summary(step) + ": " + d.why); !logged.ok()) {
      report.error = logged.message();
      return report;
    }
    progress(Summary(step) + ": starting (" + d.why + ")");
    StepResult result = run_step(step);
    if (result.kind == StepResultKind::kLeaseLost) {  // fenced: not a write more, the log included
      progress(Summary(step) + ": " + result.message);
      report.error = result.message;
      return report;
    }
    // The runner may have updated the record (undo data): finish on its latest revision.
    Result<std::optional<ChangeRecord>> latest = store->GetChange(step.id);
    if (!latest.ok() || !latest->has_value()) {
      report.error = latest.ok() ? "audit record of " + step.id + " vanished" : latest.status().message();
      return report;
    }
    ChangeRecord end = **latest;
    const char* outcome = "done";
    ChangeState final_state = ChangeState::kDone;
    switch (result.kind) {
      case StepResultKind::kDone: break;
      case StepResultKind::kRolledBack:
        final_state = ChangeState::kRolledBack;
        outcome = "rolled-back";
        break;
      case StepResultKind::kRollbackFailed:
        final_state = ChangeState::kFailed;
        outcome = "rollback-failed";
        break;
      case StepResultKind::kLeaseLost:
        break;  // returned above
    }
    if (end.state == ChangeState::kRunning) {  // the runner left the final state to us
      end.state = final_state;
      if (result.kind != StepResultKind::kDone) end.reason = result.message;
      Result<ChangeRecord> fin = Put(*store, end, end.revision, o);
      Status logged = fin.ok() ? Log(*store, o, step.id, "finish", outcome, result.message) : fin.status();
      if (!logged.ok()) {
        report.error = logged.message();
        return report;
      }
    }
    report.steps.push_back(Report(plan, step, outcome, result.message));
    progress(Summary(step) + ": " + outcome + (result.message.empty() ? "" : ": " + result.message));
    if (result.kind != StepResultKind::kDone) {
      blocked_by.emplace(step.gpu_model, step.id);
    }
  }
  return report;
}

}  // namespace kubeon::apply
