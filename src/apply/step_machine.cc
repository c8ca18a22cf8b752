#include "apply/step_machine.h"

#include <vector>

#include "apply/eviction.h"
#include "apply/gpu_capacity.h"
#include "apply/label_handshake.h"
#include "apply/node_ops.h"
#include "apply/object_fields.h"
#include "apply/operator_configmaps.h"
#include "apply/owner_rollout.h"
#include "apply/terminations.h"
#include "plan/schedule_json.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

bool IsStep(StepJournal& j) { return j.kind() == RunKind::kStep; }

// ---- the forward phases ---------------------------------------------------

Status PatchOwners(StepJournal& j, const Goal& goal) {
  j.run().phase = Phase::kOwners;
  for (const auto& o : goal.owners) {
    if (Status s = PatchOwner(j, o); !s.ok()) return s;
  }
  return Status::Ok();
}

Status AwaitRollouts(StepJournal& j) {
  const std::vector<OwnerUndo> owners = j.run().owners;
  for (const auto& o : owners) {
    if (!o.patched) continue;
    if (Status s = WaitRollout(j, o.kind, o.namespace_, o.name); !s.ok()) return s;
  }
  return Status::Ok();
}

Status Owners(StepJournal& j, const Goal& goal) {
  if (Status s = PatchOwners(j, goal); !s.ok()) return s;
  return AwaitRollouts(j);
}

Status Configure(StepJournal& j, const NodeGoal& g) {
  NodeUndo& undo = j.run().nodes.at(g.name);
  undo.configured = true;
  for (const auto& [label, value] : g.labels) {
    std::set<std::optional<std::string>> prior = {value};
    auto p = undo.prior.labels.find(label);
    prior.insert(p == undo.prior.labels.end() ? std::nullopt : p->second);
    if (Status s = SetConfigLabel(j, g.name, label, value, static_cast<int>(undo.gpu_count), prior); !s.ok()) {
      return s;
    }
  }
  return Status::Ok();
}

Status Cleanup(StepJournal& j) {
  const auto nodes = j.run().nodes;
  for (const auto& [node, undo] : nodes) {
    if (Status s = CleanupNode(j, node, undo); !s.ok()) return s;
  }
  j.run().phase = Phase::kDone;
  return Status::Ok();
}

// Cordon, (a revert: the owners back), the ConfigMaps, evict, configure,
// uncordon, (a step: the owners onto the slices), clean up.  See Goal.
Status Forward(StepJournal& j, const Goal& goal) {
  j.run().phase = Phase::kPrepare;
  for (const auto& g : goal.nodes) {
    if (Status s = PrepareNode(j, g); !s.ok()) return s;
  }
  if (goal.owners_first) {
    if (Status s = PatchOwners(j, goal); !s.ok()) return s;
    if (goal.owners_fit_elsewhere) {
      if (Status s = AwaitRollouts(j); !s.ok()) return s;
    }
  }
  j.run().phase = Phase::kConfigure;
  bool synced_needed = false;
  if (Status s = WriteConfigMaps(j, goal.nodes, &synced_needed); !s.ok()) return s;
  if (synced_needed && j.options().configmap_sync.count() > 0) {
    j.Progress("waiting " + std::to_string(j.options().configmap_sync.count() / 1000) +
               " s for the kubelet to sync the ConfigMaps to the nodes");
    j.ctx().clock.Sleep(j.options().configmap_sync);
  }
  for (const auto& g : goal.nodes) {
    j.Progress("evicting the GPU pods of node " + g.name);
    if (Status s = EvictGpuPods(j, g.name, goal.eviction_rank); !s.ok()) return s;
  }
  for (const auto& g : goal.nodes) {
    if (Status s = Configure(j, g); !s.ok()) return s;
  }
  j.run().phase = Phase::kUncordon;
  for (const auto& g : goal.nodes) {
    if (Status s = ReserveAndUncordon(j, g.name, goal.reserve); !s.ok()) return s;
  }
  if (!goal.owners_first) {
    if (Status s = Owners(j, goal); !s.ok()) return s;
  } else if (!goal.owners_fit_elsewhere) {
    if (Status s = AwaitRollouts(j); !s.ok()) return s;
  }
  j.run().phase = Phase::kCleanup;
  if (Status s = j.Save(); !s.ok()) return s;
  return Cleanup(j);
}

// ---- rollback ---------------------------------------------------------------

Status RollbackNode(StepJournal& j, const std::string& node, const NodeUndo& undo) {
  if (!undo.configured) return Status::Ok();
  if (Status s = Recordon(j, node, undo); !s.ok()) return s;
  auto cur = j.client().Get(NodePath(node));
  if (!cur.ok()) return cur.status();
  const json labels = Labels(*cur);
  bool evicted = false;
  for (const auto& [label, set_value] : undo.labels_set) {
    const std::optional<std::string> target = PriorTarget(label, undo);
    const std::set<std::optional<std::string>> allowed = {target, OptStr(labels, label.c_str())};
    if (!evicted) {
      j.Progress("rollback: evicting the GPU pods of node " + node);
      if (Status s = EvictGpuPods(j, node); !s.ok()) return s;
      evicted = true;
    }
    if (Status s = SetConfigLabel(j, node, label, target, static_cast<int>(undo.gpu_count), allowed); !s.ok()) {
      return s;
    }
  }
  return RestorePausedLabels(j, node);
}

// Undoes what the run records, in reverse order.  An error names what could
// not be undone (those nodes stay cordoned and tainted).
Status Rollback(StepJournal& j) {
  std::vector<std::string> problems;
  const std::vector<OwnerUndo> owners = j.run().owners;
  for (auto it = owners.rbegin(); it != owners.rend(); ++it) {
    if (!it->intent) continue;
    const OwnerGoal g = RestoreGoal(*it);
    auto cur = j.client().Get(OwnerPath(g.kind, g.namespace_, g.name));
    if (!cur.ok()) {
      problems.push_back(cur.status().message());
      continue;
    }
    if (cur->value("/spec/template"_json_pointer, json::object()) == *g.template_ &&
        OptStr(Annotations(*cur), kChangeAnnotation) == g.change) {
      continue;
    }
    Status s = PatchOwner(j, g);
    if (!s.ok()) problems.push_back("restoring " + g.Display() + ": " + s.message());
    if (j.stopped()) return s;
  }
  const auto nodes = j.run().nodes;
  for (const auto& [node, undo] : nodes) {
    Status s = RollbackNode(j, node, undo);
    if (j.stopped()) return s;
    if (!s.ok()) {
      problems.push_back("node " + node + " (left cordoned and tainted): " + s.message());
      continue;
    }
    s = CleanupNode(j, node, undo);
    if (j.stopped()) return s;
    if (!s.ok()) problems.push_back("node " + node + ": " + s.message());
  }
  for (const auto& o : owners) {
    if (!o.intent) continue;
    Status s = WaitRollout(j, o.kind, o.namespace_, o.name);
    if (j.stopped()) return s;
    if (!s.ok()) j.Progress("after the rollback: " + s.message());
  }
  if (problems.empty()) return Status::Ok();
  std::string msg = problems[0];
  for (size_t i = 1; i < problems.size(); ++i) msg += "; " + problems[i];
  return Status::Error(msg);
}

// ---- outcomes -----------------------------------------------------------------

// A stopped run writes nothing more: not even its outcome to the log (the
// Lease's next holder resumes it from the record, as after a crash).
StepOutcome Stopped(StepJournal& j) {
  StepOutcome& o = j.outcome();
  if (j.fenced()) {
    o.kind = OutcomeKind::kLeaseLost;
    o.cause = "lost the Lease: stopped writing; change " + j.id() + " is left at phase " +
              (j.run().phase == Phase::kNotStarted ? std::string("start") : PhaseName(j.run().phase)) +
              " for the Lease's next holder to finish or roll back";
  } else {
    o.kind = OutcomeKind::kCrashed;
    o.cause = "stopped at a crash point (write observer)";
  }
  return o;
}

StepOutcome Finish(StepJournal& j, OutcomeKind kind, const std::string& cause, audit::ChangeState state, Phase phase) {
  StepOutcome& out = j.outcome();
  out.kind = kind;
  out.cause = cause;
  j.run().phase = phase;
  Status s = j.Save(state, cause);
  if (s.ok()) {
    s = j.Log(phase == Phase::kDone ? "done" : "outcome", kind == OutcomeKind::kDone ? "ok" : "failed",
              std::string(OutcomeName(kind)) + (cause.empty() ? "" : ": " + cause));
  }
  if (!s.ok() && out.cause.empty()) out.cause = "audit log: " + s.message();
  if (!j.journal_error().empty()) {
    out.cause += (out.cause.empty() ? "" : "; ") + std::string("audit log: ") + j.journal_error();
  }
  j.Progress(std::string(OutcomeName(kind)) + (cause.empty() ? "" : ": " + cause));
  return out;
}

StepOutcome RollbackAfter(StepJournal& j, const std::string& cause) {
  j.Progress("failed: " + cause + "; rolling back");
  // The rollback goes on when the log cannot take these two writes: putting
  // the nodes back matters more; the outcome says the log missed them.
  j.NoteJournalError(j.Log("rollback", "intent", cause));
  j.run().phase = Phase::kRollback;
  j.run().cause = cause;
  j.NoteJournalError(j.Save());
  j.StartRollingBack();
  Status r = Rollback(j);
  if (j.stopped()) return Stopped(j);
  const audit::ChangeState keep = j.change().state;
  if (r.ok()) {
    return Finish(j, OutcomeKind::kRolledBack, cause, IsStep(j) ? audit::ChangeState::kRolledBack : keep,
                  Phase::kRolledBack);
  }
  return Finish(j, OutcomeKind::kRollbackFailed, cause + "; rollback failed: " + r.message(),
                IsStep(j) ? audit::ChangeState::kFailed : keep, Phase::kRollbackFailed);
}

// The resumed work ended: crashed, or done (nullopt when it failed and must
// be rolled back).
std::optional<StepOutcome> Settled(StepJournal& j, const Status& s) {
  if (j.stopped()) return Stopped(j);
  if (!s.ok()) return std::nullopt;
  return Finish(j, OutcomeKind::kDone, "", audit::ChangeState::kDone, Phase::kDone);
}

std::string PhaseOrStart(Phase p) { return p == Phase::kNotStarted ? "start" : PhaseName(p); }

}  // namespace

void BeginStep(StepJournal& j) { j.run() = RunRecord{}; }

void BeginRevert(StepJournal& j) {
  j.run() = RunRecord{};
  j.run().phase = Phase::kStart;
}

StepOutcome RunGoal(StepJournal& j, const Goal& goal, audit::ChangeState done_state) {
  Status s = Status::Ok();
  if (!goal.needs.empty()) {
    s = CheckCapacityAwaitingTerminations(j, [&](const GpuLedger& l) { return CheckNeeds(l, goal.needs); });
  }
  if (s.ok()) s = CheckNodes(j, goal.nodes);
  if (!s.ok()) {
    // Nothing written to the cluster.
    j.Progress("refused: " + s.message());
    return Finish(j, OutcomeKind::kRolledBack, s.message(), IsStep(j) ? audit::ChangeState::kRolledBack : j.change().state,
                  Phase::kRefused);
  }
  s = Forward(j, goal);
  if (j.stopped()) return Stopped(j);
  if (s.ok()) return Finish(j, OutcomeKind::kDone, "", done_state, Phase::kDone);
  return RollbackAfter(j, s.message());
}

std::optional<RunKind> RunLeftHalfWay(const audit::ChangeRecord& rec, const StepRecord& record) {
  if (rec.state == audit::ChangeState::kRunning) return RunKind::kStep;
  // A revert whose rollback failed is taken again: its nodes are still
  // cordoned and tainted.
  if (rec.state == audit::ChangeState::kDone && record.revert) {
    const Phase p = record.revert->phase;
    if (p != Phase::kNotStarted && p != Phase::kDone && p != Phase::kRolledBack && p != Phase::kRefused) {
      return RunKind::kRevert;
    }
  }
  return std::nullopt;
}

StepOutcome Resume(StepJournal& j) {
  const bool step = IsStep(j);
  const Phase at = j.run().phase;
  j.NoteJournalError(j.Log("resume", "intent", std::string("found ") + (step ? "step" : "revert") +
                                                   " left at phase " + PhaseOrStart(at)));
  if (step && (at == Phase::kCleanup || at == Phase::kDone)) {
    j.Progress("resuming: only the final cleanup is missing");
    if (auto done = Settled(j, Cleanup(j))) return *done;
  }
  // Interrupted while its owners moved: the nodes are reconfigured and some
  // owners already roll onto the new slices, so going back would need whole
  // GPUs the step freed and may have given away.  Finish the move instead
  // (re-applying a patch is idempotent); roll back only if that fails.
  if (step && at == Phase::kOwners) {
    Result<plan::ScheduleStep> plan_step = plan::StepFromJson(json::parse(j.change().step_json, nullptr, false));
    if (plan_step.ok()) {
      j.Progress("resuming: the nodes are reconfigured; finishing the owners' move");
      Status s = Owners(j, StepGoal(*plan_step));
      if (s.ok() && !j.stopped()) {
        j.run().phase = Phase::kCleanup;
        s = j.Save();
        if (s.ok()) s = Cleanup(j);
      }
      if (auto done = Settled(j, s)) return *done;
    }
  }
  j.Progress("rolling back what the log shows half done");
  return RollbackAfter(j, "interrupted at phase " + PhaseOrStart(j.run().phase) + " (resumed from the log)");
}

}  // namespace kubeon::apply
