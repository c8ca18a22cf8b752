#include "apply/step_runner.h"

#include "apply/revert.h"
#include "apply/step_goal.h"
#include "apply/step_journal.h"
#include "apply/step_machine.h"

namespace kubeon::apply {
namespace {

StepOutcome Failed(const std::string& id, const std::string& cause) {
  StepOutcome o;
  o.change_id = id;
  o.kind = OutcomeKind::kRolledBack;
  o.cause = cause;
  return o;
}

// A ConfigMap or namespace name must be a DNS-1123 subdomain; a manifest
// passed by mistake would otherwise reach the API as a garbled URL.
Status CheckArtifactNames(const StepArtifacts& a) {
  for (const auto& [what, name] : {std::pair<const char*, const std::string*>{"operator namespace", &a.operator_namespace},
                                   {"MIG ConfigMap name", &a.mig_configmap},
                                   {"device-plugin ConfigMap name", &a.device_plugin_configmap}}) {
    const bool ok = !name->empty() && name->size() <= 253 &&
                    name->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string::npos;
    if (!ok) {
      return Status::Error(std::string(what) + " \"" + name->substr(0, 40) + (name->size() > 40 ? "..." : "") +
                               "\" is not a Kubernetes object name",
                           StatusCode::kInvalid);
    }
  }
  return Status::Ok();
}

}  // namespace

const char* OutcomeName(OutcomeKind k) {
  switch (k) {
    case OutcomeKind::kDone: return "done";
    case OutcomeKind::kRolledBack: return "rolled-back";
    case OutcomeKind::kRollbackFailed: return "rollback-failed";
    case OutcomeKind::kCrashed: return "crashed";
    case OutcomeKind::kLeaseLost: return "lease-lost";
  }
  return "?";
}

StepOutcome RunStep(const StepContext& ctx, const plan::ScheduleStep& step) {
  if (Status names = CheckArtifactNames(ctx.artifacts); !names.ok()) return Failed(step.id, names.message());
  StepJournal j(ctx, step.id, RunKind::kStep);
  audit::ChangeRecord fresh;
  fresh.id = step.id;
  fresh.policy = ctx.policy;
  fresh.content_hash = step.content_hash;
  fresh.state = audit::ChangeState::kRunning;
  fresh.created_at = Stamp(ctx.clock);
  fresh.updated_at = fresh.created_at;
  Status s = j.Load(&fresh);
  if (!s.ok()) return Failed(step.id, "audit log: " + s.message());
  if (j.change().state == audit::ChangeState::kDone) {
    j.Progress("already done: nothing to change");
    return j.outcome();  // idempotent: a done step is not taken again
  }
  if (j.change().state == audit::ChangeState::kRunning && j.run().phase != Phase::kNotStarted) {
    return Failed(step.id, "change " + step.id + " was left running by an earlier run: resume or roll it back first");
  }
  // A fresh attempt (a step rolled back before, or reverted, may be taken again).
  BeginStep(j);
  s = j.Save(audit::ChangeState::kRunning);
  if (s.ok()) {
    s = j.Log("start", "intent", "step " + step.id + " (" + step.method + ") on " +
                                     (step.nodes.empty() ? std::string("no node") : step.nodes[0]) +
                                     (step.nodes.size() > 1 ? " ..." : ""));
  }
  if (!s.ok()) return Failed(step.id, "audit log: " + s.message());
  return RunGoal(j, StepGoal(step), audit::ChangeState::kDone);
}

std::vector<StepOutcome> ResumeOrRollback(const StepContext& ctx) {
  std::vector<StepOutcome> out;
  auto list = ctx.store.ListChanges();
  if (!list.ok()) {
    out.push_back(Failed("", "audit log: " + list.status().message()));
    return out;
  }
  for (const auto& rec : *list) {
    if (rec.state != audit::ChangeState::kRunning && rec.state != audit::ChangeState::kDone) continue;
    // A done change is half way only in a revert; one that never had a
    // revert is not read (nor reported when this version cannot read it).
    if (rec.state == audit::ChangeState::kDone && rec.undo_json.find("\"revert\"") == std::string::npos) continue;
    Result<StepRecord> record = ReadStepRecord(rec.undo_json, "change " + rec.id);
    if (!record.ok()) {
      out.push_back(Failed(rec.id, "not resumed: " + record.status().message()));
      continue;
    }
    const std::optional<RunKind> kind = RunLeftHalfWay(rec, *record);
    if (!kind) continue;
    StepJournal j(ctx, rec.id, *kind);
    if (Status s = j.Load(nullptr); !s.ok()) {
      out.push_back(Failed(rec.id, "audit log: " + s.message()));
      continue;
    }
    out.push_back(Resume(j));
  }
  return out;
}

StepOutcome RevertChange(const StepContext& ctx, const std::string& id) {
  if (Status names = CheckArtifactNames(ctx.artifacts); !names.ok()) return Failed(id, names.message());
  StepJournal j(ctx, id, RunKind::kRevert);
  if (Status s = j.Load(nullptr); !s.ok()) return Failed(id, s.message());
  if (j.change().state != audit::ChangeState::kDone) {
    return Failed(id, "change " + id + " is not done (only a done change can be reverted)");
  }
  Result<Goal> goal = RevertGoal(j);
  if (!goal.ok()) return Failed(id, goal.status().message());
  BeginRevert(j);
  Status s = j.Save();
  if (s.ok()) s = j.Log("revert", "intent", "revert change " + id);
  if (!s.ok()) return Failed(id, "audit log: " + s.message());
  return RunGoal(j, *goal, audit::ChangeState::kReverted);
}

}  // namespace kubeon::apply
