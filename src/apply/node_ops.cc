#include "apply/node_ops.h"

#include "apply/object_fields.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

const char* kGpuDeployPrefix = "nvidia.com/gpu.deploy.";
const char* kPausedForMigChange = "paused-for-mig-change";
constexpr const char* kNodeAnnotations[] = {kDoNotDisruptAnnotation, kScaleDownDisabledAnnotation,
                                            kCordonedByAnnotation};

std::optional<std::string> ValueOf(const json& obj, const std::string& key) { return OptStr(obj, key.c_str()); }

NodeUndo PriorOf(const json& node, const NodeGoal& g) {
  NodeUndo u;
  u.prior.unschedulable = IsUnschedulable(node);
  const json labels = Labels(node), annotations = Annotations(node);
  for (const auto& [k, v] : g.labels) u.prior.labels[k] = ValueOf(labels, k);
  u.prior.labels[kMigConfigStateLabel] = ValueOf(labels, kMigConfigStateLabel);
  for (const char* k : kNodeAnnotations) u.prior.annotations[k] = ValueOf(annotations, k);
  u.cordoned = !u.prior.unschedulable;
  int64_t gpus = Quantity(labels.value("nvidia.com/gpu.count", json("0")));
  if (gpus == 0) gpus = Quantity(node.value("/status/capacity/nvidia.com~1gpu"_json_pointer, json("0")));
  u.gpu_count = gpus;
  u.labels_set = g.labels;
  return u;
}

json& AnnotationsOf(json& node) {
  json& ann = node["metadata"]["annotations"];
  if (!ann.is_object()) ann = json::object();
  return ann;
}

}  // namespace

std::set<std::string> StepTaintValues(const json& node) {
  std::set<std::string> out;
  const json taints = node.value("/spec/taints"_json_pointer, json::array());
  if (!taints.is_array()) return out;
  for (const auto& t : taints) {
    if (OptStr(t, "key") == kStepTaintKey) out.insert(OptStr(t, "value").value_or(""));
  }
  return out;
}

bool HasStepTaint(const json& node, const std::string& id) { return StepTaintValues(node).count(id) > 0; }

bool RemoveStepTaint(json& node, const std::string& id) {
  bool removed = false;
  json& taints = node["spec"]["taints"];
  if (taints.is_array()) {
    json kept = json::array();
    for (const auto& t : taints) {
      if (OptStr(t, "key") == kStepTaintKey && OptStr(t, "value") == id) {
        removed = true;
      } else {
        kept.push_back(t);
      }
    }
    taints = kept;
    if (taints.empty()) node["spec"].erase("taints");
  } else {
    node["spec"].erase("taints");
  }
  return removed;
}

Status CheckNodes(StepJournal& j, const std::vector<NodeGoal>& goals) {
  for (const auto& g : goals) {
    auto node = j.client().Get(NodePath(g.name));
    if (!node.ok()) return node.status();
    const auto by = OptStr(Annotations(*node), kCordonedByAnnotation);
    if (IsUnschedulable(*node) && by != j.id()) {
      return Status::Error("node " + g.name + " is cordoned by someone else" +
                               (by ? " (change " + *by + ")" : "") + ": not touched",
                           StatusCode::kConflict);
    }
  }
  return Status::Ok();
}

Status PrepareNode(StepJournal& j, const NodeGoal& g) {
  auto& nodes = j.run().nodes;
  if (!nodes.count(g.name)) {
    auto node = j.client().Get(NodePath(g.name));
    if (!node.ok()) return node.status();
    nodes[g.name] = PriorOf(*node, g);
  }
  Status s = j.Intent("prepare-node", "node " + g.name + ": annotate do-not-disrupt and scale-down-disabled, cordon");
  if (!s.ok()) return s;
  const bool cordon = nodes[g.name].cordoned;
  auto r = j.client().UpdateWithRetry(NodePath(g.name), [&](json& node) -> Status {
    const auto by = OptStr(Annotations(node), kCordonedByAnnotation);
    if (IsUnschedulable(node) && by != j.id() && cordon) {
      return Status::Error("node " + g.name + " was cordoned by someone else meanwhile", StatusCode::kConflict);
    }
    json& ann = AnnotationsOf(node);
    ann[kDoNotDisruptAnnotation] = "true";
    ann[kScaleDownDisabledAnnotation] = "true";
    if (cordon) {
      ann[kCordonedByAnnotation] = j.id();
      node["spec"]["unschedulable"] = true;
    }
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  return j.Wrote("prepare-node", "node " + g.name + " annotated and cordoned");
}

Status ReserveAndUncordon(StepJournal& j, const std::string& node, bool reserve) {
  if (!reserve) {
    auto cur = j.client().Get(NodePath(node));
    if (!cur.ok()) return cur.status();
    if (OptStr(Annotations(*cur), kCordonedByAnnotation) != j.id()) return Status::Ok();
  }
  Status s = j.Intent(reserve ? "reserve-node" : "uncordon",
                      "node " + node + ": " +
                          (reserve ? "taint " + std::string(kStepTaintKey) + "=" + j.id() +
                                         ":NoSchedule (reserved for the step's owners), "
                                   : std::string()) +
                          "uncordon");
  if (!s.ok()) return s;
  auto r = j.client().UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
    if (OptStr(Annotations(n), kCordonedByAnnotation) == j.id()) {
      n["spec"].erase("unschedulable");
      n["metadata"]["annotations"].erase(kCordonedByAnnotation);
    }
    if (!reserve) return Status::Ok();
    if (!StepTaintValues(n).empty()) return Status::Ok();
    json& taints = n["spec"]["taints"];
    if (!taints.is_array()) taints = json::array();
    taints.push_back({{"key", kStepTaintKey}, {"value", j.id()}, {"effect", "NoSchedule"}});
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  return j.Wrote(reserve ? "reserve-node" : "uncordon", "node " + node + (reserve ? " tainted and" : "") + " uncordoned");
}

Status Recordon(StepJournal& j, const std::string& node, const NodeUndo& undo) {
  const bool ours = undo.cordoned;
  auto cur = j.client().Get(NodePath(node));
  if (!cur.ok()) return cur.status();
  if (!HasStepTaint(*cur, j.id()) && (IsUnschedulable(*cur) || !ours)) return Status::Ok();
  Status s = j.Intent("recordon", "node " + node + ": cordon again, remove taint " + kStepTaintKey);
  if (!s.ok()) return s;
  auto r = j.client().UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
    if (ours && !IsUnschedulable(n)) {
      n["spec"]["unschedulable"] = true;
      AnnotationsOf(n)[kCordonedByAnnotation] = j.id();
    }
    RemoveStepTaint(n, j.id());
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  return j.Wrote("recordon", "node " + node + " cordoned, taint removed");
}

Status CleanupNode(StepJournal& j, const std::string& node, const NodeUndo& undo) {
  Status s = j.Intent("cleanup-node", "node " + node + ": remove taint " + std::string(kStepTaintKey) +
                                          " and the do-not-disrupt annotations");
  if (!s.ok()) return s;
  bool changed = false;
  auto r = j.client().UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
    changed = false;
    json& ann = AnnotationsOf(n);
    if (OptStr(ann, kCordonedByAnnotation) == j.id()) {
      n["spec"].erase("unschedulable");
      changed = true;
    }
    for (const char* k : kNodeAnnotations) {
      auto it = undo.prior.annotations.find(k);
      std::optional<std::string> want = it == undo.prior.annotations.end() ? std::nullopt : it->second;
      if (std::string(k) == kCordonedByAnnotation && want == j.id()) want.reset();
      const json have = ann.contains(k) ? ann[k] : json(nullptr);
      if (want ? have == json(*want) : have.is_null()) continue;
      changed = true;
      if (want) {
        ann[k] = *want;
      } else {
        ann.erase(k);
      }
    }
    changed |= RemoveStepTaint(n, j.id());
    if (!changed) return Status::Error("nothing to remove", StatusCode::kAborted);  // no write needed
    return Status::Ok();
  });
  if (!r.ok()) {
    if (!changed && r.status().code() == StatusCode::kAborted) return Status::Ok();
    return r.status();
  }
  return j.Wrote("cleanup-node", "node " + node + ": taint and annotations removed");
}

Status RestorePausedLabels(StepJournal& j, const std::string& node) {
  auto cur = j.client().Get(NodePath(node));
  if (!cur.ok()) return cur.status();
  std::vector<std::string> paused;
  const json labels = Labels(*cur);
  for (auto& [k, v] : labels.items()) {
    if (k.rfind(kGpuDeployPrefix, 0) == 0 && v == kPausedForMigChange) paused.push_back(k);
  }
  if (paused.empty()) return Status::Ok();
  Status s = j.Intent("restore-operands", "node " + node + ": " + paused[0] + (paused.size() > 1 ? " ..." : "") +
                                              " back to true");
  if (!s.ok()) return s;
  auto r = j.client().UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
    for (const auto& k : paused) {
      if (n["metadata"]["labels"].value(k, "") == kPausedForMigChange) n["metadata"]["labels"][k] = "true";
    }
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  return j.Wrote("restore-operands", "node " + node + ": operand labels restored");
}

}  // namespace kubeon::apply
