#include "apply/revert.h"

#include <set>

#include "apply/gpu_capacity.h"
#include "apply/object_fields.h"
#include "apply/operator_config.h"
#include "apply/owner_rollout.h"
#include "apply/terminations.h"
#include "model/cluster.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

json LabelJson(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

// The whole GPUs a node offers once back under `target` (its prior MIG
// config), from the MIG ConfigMap (read once, on the first node that needs
// it); its GPU count when that cannot be told.
class WholeGpusUnder {
 public:
  explicit WholeGpusUnder(StepJournal& j) : j_(j) {}
  int64_t operator()(const std::optional<std::string>& target, int64_t gpus) {
    if (!target || *target == kAllDisabled) return gpus;
    if (!yaml_) {
      const StepArtifacts& a = j_.ctx().artifacts;
      auto cm = j_.client().Get("/api/v1/namespaces/" + a.operator_namespace + "/configmaps/" + a.mig_configmap);
      yaml_ = cm.ok() ? std::optional<std::string>(cm->value("/data/config.yaml"_json_pointer, std::string()))
                      : std::nullopt;
    }
    if (!*yaml_) return gpus;
    auto exp = ExpectedMigResources(**yaml_, *target, static_cast<int>(gpus));
    return exp.ok() ? (*exp)[model::kGpuResource] : gpus;
  }

 private:
  StepJournal& j_;
  std::optional<std::optional<std::string>> yaml_;  // outer: read yet; inner: the ConfigMap's config, if any
};

}  // namespace

Result<Goal> RevertGoal(StepJournal& j) {
  const std::string& id = j.id();
  const RunRecord step = j.record().step.value_or(RunRecord{});
  Goal goal;
  int64_t owners_need = 0, coming = 0;
  std::set<std::string> nodes;
  WholeGpusUnder whole_gpus_under(j);
  for (const auto& [node, undo] : step.nodes) {
    nodes.insert(node);
    auto cur = j.client().Get(NodePath(node));
    if (!cur.ok()) return cur.status();
    NodeGoal ng{node, {}};
    const json labels = Labels(*cur);
    for (const auto& [label, set] : undo.labels_set) {
      const json have = labels.contains(label) ? labels[label] : json(nullptr);
      if (have != LabelJson(set)) {
        return Status::Error("field metadata.labels[\"" + label + "\"] of node " + node + " was changed since change " +
                                 id + ": expected " + LabelJson(set).dump() + ", found " + have.dump() +
                                 "; nothing changed",
                             StatusCode::kConflict);
      }
      ng.labels[label] = PriorTarget(label, undo);
    }
    auto mig = ng.labels.find(kMigConfigLabel);
    coming += whole_gpus_under(mig == ng.labels.end() ? std::nullopt : mig->second, undo.gpu_count);
    goal.nodes.push_back(ng);
  }
  for (const auto& o : step.owners) {
    if (!o.patched) continue;
    auto cur = j.client().Get(OwnerPath(o.kind, o.namespace_, o.name));
    if (!cur.ok()) return cur.status();
    // Only the fields the change set go back; someone else's edits since stay.
    OwnerGoal back = RestoreGoal(o);
    back.restore_fields = OwnerGoal::FieldsBack{o.template_before, o.template_after.value_or(json::object())};
    const json current = cur->value("/spec/template"_json_pointer, json::object());
    std::optional<json> restored = RestoreFields(back.restore_fields->before, back.restore_fields->after, current);
    if (!restored) return TemplateChangedError(back, back.restore_fields->before, back.restore_fields->after, current, id);
    back.template_ = std::move(*restored);
    // Whole GPUs its pods need once back.
    json pod = json::object();
    pod["spec"] = o.template_before.value("spec", json::object());
    auto req = PodGpuRequests(pod);
    const json replicas = cur->value("/spec/replicas"_json_pointer, json(1));
    owners_need += (replicas.is_number_integer() ? replicas.get<int64_t>() : 1) *
                   (req.count(model::kGpuResource) ? req[model::kGpuResource] : 0);
    goal.owners.push_back(std::move(back));
  }
  bool elsewhere = false;
  Status fits = CheckCapacityAwaitingTerminations(j, [&](const GpuLedger& l) {
    return CheckWholeGpusForRevert(l, nodes, owners_need, coming, id, &elsewhere);
  });
  if (!fits.ok()) return fits;
  goal.owners_first = true;
  goal.owners_fit_elsewhere = elsewhere;
  goal.reserve = false;
  return goal;
}

}  // namespace kubeon::apply
