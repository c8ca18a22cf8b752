// The executor's step record: what a step (or a revert of it) changed on the
// cluster, with each field's value before, and how far it got.  It is what a
// rollback, a resume after a crash and a revert read back, so it is
// persisted: as audit::ChangeRecord::undo_json, in SQLite and in a
// GpuChange's status.undo.
//
// Format (JSON; keys sorted, as nlohmann::json writes them):
//   {"step": RUN, "revert": RUN,     "revert" only once a revert ran;
//    "attempts": [ATTEMPT]}          only once a step was retried (version 2);
//                                     "version": N only when N > 1
//   RUN   = {"phase": PHASE, "cause": "...", "nodes": {NAME: NODE}, "owners": [OWNER]}
//           "phase" absent before the first phase; "cause" only after a failure
//   NODE  = {"prior": {"unschedulable": bool,
//                      "labels": {KEY: "value" | null},       config labels + mig.config.state
//                      "annotations": {KEY: "value" | null}},  do-not-disrupt, scale-down, cordoned-by
//            "cordoned": bool,          this run cordoned the node (it was schedulable)
//            "gpu_count": int,          the node's GPUs (nvidia.com/gpu.count, else capacity)
//            "labels_set": {KEY: "value" | null},  what the run sets (null: removes)
//            "configured": true}        only once its config labels were touched
//   OWNER = {"kind", "namespace", "name", "template_before": {...},
//            "annotation_before": "id" | null,   gpu.kubeon.io/change before
//            "intent": true, "patched": true, "template_after": {...}}  the last three once done
//   ATTEMPT = {"number": N, "ended_at": RFC 3339, "cause": "..."}   an earlier attempt of the
//           step, rolled back (oldest first); "step" is the attempt after the last of them
//
// Contract:
//  - WriteStepRecord writes the lowest version that holds the record
//    (StepRecordVersionOf): a record without attempts is version 1, byte for
//    byte as every earlier version of the executor wrote it, so that an
//    older replica still resumes it; "attempts" (version 2) is what a
//    version-1 reader refuses.  "version" is written only when it is > 1.
//  - ReadStepRecord reads every record an earlier version wrote ("{}" and ""
//    are an empty record).  It refuses, never defaulting: a newer version
//    (kUnsupported, so an older replica never resumes a newer record during
//    a rolling upgrade), a phase it does not know, an unknown key, a missing
//    required field or a value of the wrong type (kInvalid); the message
//    names the field.
//  - Write(Read(x)) == x for every x Read accepts that Write wrote.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/status.h"

namespace kubeon::apply {

inline constexpr int kStepRecordVersion = 2;  // the newest this version reads

// How far a run got.  The names are persisted: renaming one breaks the resume
// of records already stored.
enum class Phase {
  kNotStarted,      // (no "phase" key) created, nothing done yet
  kStart,           // "start": a revert passed its checks
  kPrepare,         // "prepare": annotating and cordoning the nodes
  kConfigure,       // "configure": ConfigMaps, evictions, config labels
  kUncordon,        // "uncordon": reserving (taint) and uncordoning the nodes
  kOwners,          // "owners": patching the owners and waiting for their rollouts
  kCleanup,         // "cleanup": only the taint and annotations remain to remove
  kDone,            // "done"
  kRollback,        // "rollback": rolling back (cause says why)
  kRefused,         // "refused": the checks refused it before any write
  kRolledBack,      // "rolled-back"
  kRollbackFailed,  // "rollback-failed": nodes left cordoned and tainted
};
const char* PhaseName(Phase p);  // the persisted name ("" for kNotStarted)
Result<Phase> ParsePhase(std::string_view name);

using LabelValues = std::map<std::string, std::optional<std::string>>;  // nullopt: absent / removed

struct PriorNodeState {
  bool unschedulable = false;
  LabelValues labels;
  LabelValues annotations;
};

// Node undo: a node's fields before the run, and what the run sets.
struct NodeUndo {
  PriorNodeState prior;
  bool cordoned = false;  // this run cordoned it (it was schedulable before)
  int64_t gpu_count = 0;
  LabelValues labels_set;
  bool configured = false;
};

// Owner undo: an owner's pod template before and after the run's patch.
struct OwnerUndo {
  std::string kind, namespace_, name;
  nlohmann::json template_before = nlohmann::json::object();
  std::optional<std::string> annotation_before;  // gpu.kubeon.io/change
  bool intent = false;                           // a patch was about to be written
  bool patched = false;
  std::optional<nlohmann::json> template_after;
  std::string Display() const { return kind + " " + namespace_ + "/" + name; }
  bool Is(const std::string& k, const std::string& ns, const std::string& n) const {
    return kind == k && namespace_ == ns && name == n;
  }
};

struct RunRecord {
  Phase phase = Phase::kNotStarted;
  std::optional<std::string> cause;
  std::map<std::string, NodeUndo> nodes;
  std::vector<OwnerUndo> owners;
};

// An earlier attempt of the step, rolled back (audit::ChangeState::kRolledBack).
struct Attempt {
  int64_t number = 0;    // 1 for the first
  std::string ended_at;  // RFC 3339 UTC: when it was rolled back
  std::string cause;     // why it failed
};

struct StepRecord {
  int version = 1;  // as read; WriteStepRecord writes StepRecordVersionOf
  std::optional<RunRecord> step;
  std::optional<RunRecord> revert;
  std::vector<Attempt> attempts;
};

int StepRecordVersionOf(const StepRecord& record);
std::string WriteStepRecord(const StepRecord& record);
// `what` names the record in messages ("change 1a2b3c4d").
Result<StepRecord> ReadStepRecord(std::string_view undo_json, const std::string& what);

}  // namespace kubeon::apply
