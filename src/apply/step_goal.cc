#include "apply/step_goal.h"

#include "apply/operator_config.h"
#include "apply/step_context.h"

namespace kubeon::apply {

using json = nlohmann::json;

Goal StepGoal(const plan::ScheduleStep& step) {
  Goal g;
  g.needs = step.needs;
  for (size_t i = 0; i < step.evictions.size(); ++i) g.eviction_rank.emplace(step.evictions[i].pod, i);
  for (const auto& node : step.nodes) {
    NodeGoal ng{node, {}};
    auto it = step.labels_after.find(node);
    if (it != step.labels_after.end()) {
      for (const auto& [k, v] : it->second) {
        if (k == kMigConfigLabel || k == kDevicePluginConfigLabel) ng.labels[std::string(k)] = std::string(v);
      }
    }
    g.nodes.push_back(ng);
  }
  for (const auto& o : step.owners) {
    OwnerGoal og{o.owner.kind, o.owner.namespace_, o.owner.name};
    json patch = json::parse(o.patch_json.empty() ? "{}" : o.patch_json, nullptr, false);
    og.patch = patch.is_object() ? patch : json::object();
    og.change = step.id;
    og.add_toleration = true;
    og.gitops = o.gitops;
    g.owners.push_back(og);
  }
  return g;
}

std::optional<std::string> PriorTarget(const std::string& label, const NodeUndo& node) {
  std::optional<std::string> target;
  auto it = node.prior.labels.find(label);
  if (it != node.prior.labels.end()) target = it->second;
  if (label == kMigConfigLabel && (!target || target->empty())) target = kAllDisabled;
  return target;
}

OwnerGoal RestoreGoal(const OwnerUndo& owner) {
  OwnerGoal g{owner.kind, owner.namespace_, owner.name};
  g.template_ = owner.template_before;
  g.change = owner.annotation_before;
  return g;
}

json StepToleration(const std::string& change_id) {
  return {{"key", kStepTaintKey}, {"operator", "Equal"}, {"value", change_id}, {"effect", "NoSchedule"}};
}

}  // namespace kubeon::apply
