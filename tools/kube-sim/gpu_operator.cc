// See gpu_operator.h.
#include "gpu_operator.h"

#include "daemonset_controller.h"
#include "quantity.h"
#include "workload.h"

namespace kubeon::kubesim {

const std::vector<OperandSpec>& Operands() {
  // Names as in gpu-operator's assets/state-*/..._daemonset.yaml.
  static const std::vector<OperandSpec> kOperands = {
      {"device-plugin", "nvidia-device-plugin-daemonset", "nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"},
      {"gpu-feature-discovery", "gpu-feature-discovery", "gpu-feature-discovery", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"},
      {"dcgm-exporter", "nvidia-dcgm-exporter", "nvidia-dcgm-exporter", "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.9-3.6.1-ubuntu22.04"},
      {"mig-manager", "nvidia-mig-manager", "nvidia-mig-manager", "nvcr.io/nvidia/cloud-native/k8s-mig-manager:v0.10.0-ubuntu20.04"},
  };
  return kOperands;
}

const OperandSpec& OperandFor(const std::string& component) {
  for (const auto& o : Operands()) {
    if (component == o.component) return o;
  }
  return Operands().front();
}

std::string DeployLabel(const std::string& component) { return "nvidia.com/gpu.deploy." + component; }

std::string NodeLabel(const json& node, const std::string& key) {
  const json& l = Labels(node);
  auto it = l.find(key);
  return it != l.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool IsGpuNode(const json& node) {
  if (NodeLabel(node, "nvidia.com/gpu.present") == "true" || !NodeLabel(node, "nvidia.com/gpu.count").empty()) {
    return true;
  }
  const json* cap = Find(node, {"status", "capacity"});
  if (cap == nullptr || !cap->is_object()) return false;
  for (const auto& [res, q] : cap->items()) {
    if (res != "nvidia.com/gpu" && res != "nvidia.com/gpu.shared" && res.rfind("nvidia.com/mig-", 0) != 0) continue;
    auto v = QuantityOf(q);
    if (v && *v > 0) return true;
  }
  return false;
}

OperandPodIndex IndexOperandPods(const Store& store, const std::string& ns) {
  OperandPodIndex index;
  store.ForEach(kPods, ns, "", [&](const std::string& key, const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref != nullptr && ref->value("kind", "") == "DaemonSet" && IsPodActive(pod)) {
      index.emplace(std::make_pair(ref->value("name", ""), Str(pod, {"spec", "nodeName"})), key);
    }
    return true;
  });
  return index;
}

const json* OperandPod(const Store& store, const OperandPodIndex& index, const std::string& daemonset,
                       const std::string& node) {
  auto it = index.find({daemonset, node});
  return it == index.end() ? nullptr : GetByKey(store, kPods, it->second);
}

void ForEachGpuNode(const Store& store, const std::string& ns, const std::string& component,
                    const std::optional<std::set<std::string>>& only,
                    const std::function<void(const json& node, const std::optional<json>& pod)>& fn) {
  if (only && only->empty()) return;
  const OperandPodIndex pods = IndexOperandPods(store, ns);
  const std::string ds = OperandFor(component).daemonset;
  std::vector<std::string> names;
  if (only) {
    names.assign(only->begin(), only->end());
  } else {
    for (const auto& [unused, name] : Keys(store, kNodes)) names.push_back(name);
  }
  for (const auto& name : names) {
    const json* node = store.Get(kNodes, "", name);
    if (node == nullptr || !IsGpuNode(*node)) continue;
    const json* pod = OperandPod(store, pods, ds, name);
    std::optional<json> pod_copy;
    if (pod != nullptr) pod_copy = *pod;
    fn(json(*node), pod_copy);
  }
}

std::optional<std::set<std::string>> ChangedGpuNodes(ChangeCursor& cursor, const Store& store, const std::string& ns,
                                                     const std::string& configmap) {
  const uint64_t start_rv = store.ResourceVersion();
  std::set<std::string> nodes;
  bool all = false;
  const bool incremental = cursor.Collect(store, [&](const std::string& id, const std::string&, const json& obj,
                                                     const json* old) {
    if (id == kNodes) nodes.insert(Name(obj));
    if (id == kPods && Namespace(obj) == ns) {
      nodes.insert(Str(obj, {"spec", "nodeName"}));
      if (old != nullptr) nodes.insert(Str(*old, {"spec", "nodeName"}));
    }
    if (id == kConfigMaps && Namespace(obj) == ns && Name(obj) == configmap) all = true;
  });
  cursor.AdvanceTo(start_rv);
  if (!incremental || all) return std::nullopt;
  nodes.erase("");
  return nodes;
}

namespace {

json OperandDaemonSet(const OperandSpec& o, const std::string& ns) {
  json labels = {{"app", o.daemonset}};
  json container = {{"name", o.container}, {"image", o.image}, {"imagePullPolicy", "IfNotPresent"},
                    {"securityContext", {{"privileged", true}}}};
  json spec = {{"nodeSelector", {{DeployLabel(o.component), "true"}}},
               {"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
               {"priorityClassName", "system-node-critical"},
               {"serviceAccountName", o.daemonset},
               {"containers", json::array({container})}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "DaemonSet"},
          {"metadata", {{"name", o.daemonset}, {"namespace", ns}, {"labels", labels}}},
          {"spec", {{"selector", {{"matchLabels", labels}}},
                    {"updateStrategy", {{"type", "RollingUpdate"}}},
                    {"template", {{"metadata", {{"labels", labels}}}, {"spec", spec}}}}}};
}

}  // namespace

bool GpuOperator::EnsureDaemonSets(ControllerContext& ctx) {
  bool wrote = false;
  const std::string& ns = ctx.settings.operator_namespace;
  if (ctx.store.Get(kNamespaces, "", ns) == nullptr) return false;  // the API server would refuse
  for (const auto& o : Operands()) {
    json want = OperandDaemonSet(o, ns);
    const json* have = ctx.store.Get(kDaemonSets, ns, o.daemonset);
    if (have == nullptr) {
      wrote |= ctx.store.Create(kDaemonSets, std::move(want)).ok();
    } else if (!Str(*have, {"metadata", "annotations", kSynthesizedAnnotation}).empty()) {
      json taken = *have;
      taken["metadata"]["annotations"].erase(kSynthesizedAnnotation);
      taken["metadata"]["labels"] = want["metadata"]["labels"];
      taken["spec"] = want["spec"];
      wrote |= ctx.store.Update(kDaemonSets, std::move(taken)).ok();
    }
  }
  return wrote;
}

bool GpuOperator::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  std::vector<std::string> nodes;
  bool ds_changed = false;
  const bool incremental = cursor_.Collect(ctx.store, [&](const std::string& id, const std::string&, const json& obj,
                                                          const json*) {
    if (id == kNodes) nodes.push_back(Name(obj));
    if (id == kDaemonSets && Namespace(obj) == ctx.settings.operator_namespace) ds_changed = true;
  });
  cursor_.AdvanceTo(start_rv);
  if (!incremental) {
    nodes.clear();
    for (const auto& [unused, name] : Keys(ctx.store, kNodes)) nodes.push_back(name);
    ds_changed = true;
  }
  bool wrote = false, gpu_node = false;
  for (const auto& name : nodes) {
    const json* node = ctx.store.Get(kNodes, "", name);
    if (node == nullptr || !IsGpuNode(*node)) continue;
    gpu_node = true;
    json updated = *node;
    bool changed = false;
    for (const auto& o : Operands()) {
      const std::string label = DeployLabel(o.component);
      if (std::string(o.component) == "mig-manager" && NodeLabel(*node, "nvidia.com/mig.capable") != "true") continue;
      if (Labels(*node).contains(label)) continue;
      updated["metadata"]["labels"][label] = "true";
      changed = true;
    }
    if (changed) wrote |= ctx.store.Update(kNodes, std::move(updated)).ok();
  }
  has_gpu_nodes_ |= gpu_node;
  if (gpu_node || (ds_changed && has_gpu_nodes_)) {
    wrote |= EnsureDaemonSets(ctx);
  }
  return wrote;
}

}  // namespace kubeon::kubesim
