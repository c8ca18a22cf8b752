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
  // A revert moves the owners first (their rollouts, within maxUnavailable,
  // carry the pods back to whole GPUs elsewhere, so no PDB blocks the
  // evictions that follow) and reserves nothing.
  bool owners_first = false;
  bool reserve = true;  // taint the nodes for the owners when they are uncordoned
};

Goal StepGoal(const plan::ScheduleStep& step);
std::optional<std::string> PriorTarget(const std::string& label, const NodeUndo& node);
OwnerGoal RestoreGoal(const OwnerUndo& owner);
// The toleration of the step taint an owner's pods get.
nlohmann::json StepToleration();

}  // namespace kubeon::apply
