// What one run of the state machine sets: node config labels and owner
// templates (a Goal), built either from a plan's ScheduleStep (forward) or
// from a step record (back: a rollback or a revert).  Pure; no I/O.
//
//  - StepGoal: the step's nodes with the config labels it names
//    (nvidia.com/mig.config, nvidia.com/device-plugin.config), its owners
//    with their patches, the toleration of the step taint and the change
//    annotation, its capacity needs and its eviction order.
//  - PriorTarget: the value a config label goes back to.  An empty or absent
//    prior nvidia.com/mig.config becomes all-disabled, which mig-manager acts
//    on (an absent label it ignores); other labels go back as they were.
//  - RestoreGoal: an owner back to its template and change annotation from
//    before the run.
//  - StepToleration: what an owner's pods get to land on their step's
//    reserved nodes: the step taint with the step's own id (operator Equal),
//    so that they never tolerate a later step's reservation.  It stays in the
//    template once the step is done: its taint is gone by then and change ids
//    are not reused, so it matches nothing, and removing it would restart
//    every moved pod a second time.  The owner's next change (a later step,
//    a revert) replaces it.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apply/step_record.h"
#include "plan/plan.h"

namespace kubeon::apply {

struct NodeGoal {
  std::string name;
  LabelValues labels;  // config labels to set (nullopt: remove)
};

struct OwnerGoal {
  std::string kind, namespace_, name;
  std::optional<nlohmann::json> patch;      // strategic merge patch of the object (forward)
  std::optional<nlohmann::json> template_;  // full spec.template (back)
  // A revert: at the write, only the fields the change set go from `after`
  // back to `before` on the owner's template as it then is (RestoreFields),
  // so that someone else's edits since stay; template_ shows the result as
  // of the revert's check.
  struct FieldsBack {
    nlohmann::json before, after;
  };
  std::optional<FieldsBack> restore_fields;
  std::optional<std::string> change;        // gpu.kubeon.io/change value (nullopt: remove)
  bool add_toleration = false;
  std::string gitops;
  std::string Display() const { return kind + " " + namespace_ + "/" + name; }
};

struct Goal {
  std::vector<NodeGoal> nodes;
  std::vector<OwnerGoal> owners;
  std::vector<plan::CapacityNeed> needs;
  // "ns/name" -> position in the step's evictions: pods that run elsewhere
  // meanwhile come first, so that the ones waiting Pending take their
  // PodDisruptionBudget's allowance last (schedule.h).  Unlisted pods go last.
  std::map<std::string, size_t> eviction_rank;
  // A revert moves the owners before it empties its nodes and reserves
  // nothing.  Its nodes are cordoned first (a time-sliced node offers
  // nvidia.com/gpu, where the owners' restored whole-GPU pods would land
  // otherwise), until their config is back.  When the cluster has the whole
  // GPUs elsewhere (owners_fit_elsewhere) their rollouts are awaited before
  // any eviction: the rollouts, within maxUnavailable, carry the pods to
  // those GPUs, so no PodDisruptionBudget blocks the evictions that follow.
  // Otherwise the GPUs come from the reverted nodes themselves: the nodes are
  // emptied and reconfigured while the rollouts wait for them.
  bool owners_first = false;
  bool owners_fit_elsewhere = false;
  bool reserve = true;  // taint the nodes for the owners when they are uncordoned
};

Goal StepGoal(const plan::ScheduleStep& step);
std::optional<std::string> PriorTarget(const std::string& label, const NodeUndo& node);
OwnerGoal RestoreGoal(const OwnerUndo& owner);
nlohmann::json StepToleration(const std::string& change_id);

}  // namespace kubeon::apply
