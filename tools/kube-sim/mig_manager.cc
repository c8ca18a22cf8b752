// See mig_manager.h.
#include "mig_manager.h"

#include <algorithm>

#include "gpu_operator.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

// The operands mig-manager pauses (mig-parted reconfigure.go).
const char* const kPausedComponents[] = {"device-plugin", "gpu-feature-discovery", "dcgm-exporter", "dcgm", "nvsm",
                                         "client"};
constexpr auto kPodWaitTimeout = std::chrono::minutes(5);

int64_t LabelInt(const json& node, const std::string& key) {
  std::string v = NodeLabel(node, key);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::atoll(v.c_str());
}

// Writes labels (value "" removes) and, when ready is set, the node's Ready
// condition, in one update.
bool UpdateNode(ControllerContext& ctx, const std::string& name, const std::map<std::string, std::string>& labels,
                std::optional<bool> ready = std::nullopt) {
  const json* stored = ctx.store.Get(kNodes, "", name);
  if (stored == nullptr) return false;
  json n = *stored;
  for (const auto& [k, v] : labels) n["metadata"]["labels"][k] = v;
  if (ready) {
    json& conds = n["status"]["conditions"];
    if (!conds.is_array()) conds = json::array();
    json cond = {{"type", "Ready"},
                 {"status", *ready ? "True" : "False"},
                 {"reason", *ready ? "KubeletReady" : "KubeletNotReady"},
                 {"message", *ready ? "kubelet is posting ready status" : "node is rebooting (nvidia-mig-manager WITH_REBOOT)"},
                 {"lastHeartbeatTime", Rfc3339(ctx.now)},
                 {"lastTransitionTime", Rfc3339(ctx.now)}};
    bool found = false;
    for (auto& c : conds) {
      if (c.value("type", "") == "Ready") c = cond, found = true;
    }
    if (!found) conds.push_back(cond);
  }
  uint64_t before = ctx.store.ResourceVersion();
  return ctx.store.Update(kNodes, std::move(n)).ok() && ctx.store.ResourceVersion() != before;
}

std::string Describe(const GpuMigTarget& t) {
  if (!t.mig_enabled) return "MIG disabled";
  std::string out = "MIG enabled {";
  for (const auto& [p, n] : t.devices) out += (out.back() == '{' ? "" : ", ") + p + ": " + std::to_string(n);
  return out + "}";
}

}  // namespace

void MigManager::Log(ControllerContext& ctx, const NodeState& st, const std::string& level,
                     const std::string& msg) const {
  ctx.logs.Append(st.pod_uid, ctx.now, level, msg);
}

bool MigManager::Reconcile(ControllerContext& ctx) {
  const std::string& ns = ctx.settings.operator_namespace;
  const auto delay = std::chrono::milliseconds(ctx.settings.config_map_sync_delay_ms);
  sync_.Observe(ctx.store, ns, ctx.settings.mig_config_map, ctx.now, delay);
  // Nodes to look at: what changed and runs in progress.
  std::optional<std::set<std::string>> only = ChangedGpuNodes(cursor_, ctx.store, ns, ctx.settings.mig_config_map);
  if (only) {
    for (const auto& [name, st] : nodes_) {
      if (st.phase != Phase::kIdle || st.rerun) only->insert(name);
    }
  }
  bool wrote = false;
  ForEachGpuNode(ctx.store, ns, "mig-manager", only, [&](const json& node, const std::optional<json>& pod) {
    const std::string name = Name(node);
    const std::string label = NodeLabel(node, kMigConfigLabel);
    const std::string uid = pod && PodPhase(*pod) == "Running" ? Uid(*pod) : "";
    const bool first = nodes_.find(name) == nodes_.end();
    NodeState& st = nodes_[name];
    if (first) {
      st.label = label;
      st.initial = first_run_;
      if (st.initial) st.pod_uid = uid;
      if (!uid.empty()) st.initial = false;
    }
    bool start = false;
    if (uid != st.pod_uid) {
      st.pod_uid = uid;
      if (!uid.empty()) {
        start = !st.initial;
        st.initial = false;
      }
      if (uid.empty() && (st.phase == Phase::kWaitingForPods || st.phase == Phase::kApplying)) {
        st.phase = Phase::kIdle;  // the run dies with its pod; state and labels stay as they are
      }
    }
    if (label != st.label) {
      st.label = label;
      start = start || !uid.empty();
    }
    if (start && !label.empty()) {
      if (st.phase == Phase::kIdle) {
        wrote |= Begin(ctx, name, st);
      } else {
        st.rerun = true;
      }
    }
    wrote |= Step(ctx, name, st);
  });
  waiting_ = sync_.Pending(ctx.now, delay);
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    const json* node = ctx.store.Get(kNodes, "", it->first);
    if (node == nullptr || !IsGpuNode(*node)) {
      it = nodes_.erase(it);
      continue;
    }
    waiting_ = waiting_ || it->second.phase != Phase::kIdle;
    ++it;
  }
  first_run_ = false;
  return wrote;
}

bool MigManager::Step(ControllerContext& ctx, const std::string& node, NodeState& st) {
  bool wrote = false;
  if (st.phase == Phase::kWaitingForPods) {
    if (st.stuck) {
      if (ctx.now < st.due) return false;
      Log(ctx, st, "error", "Timed out waiting for operand pods to be deleted");
      st.phase = Phase::kIdle;  // GO #2833: returns without setting a state
      st.stuck = false;
    } else if (OperandPodsGone(ctx, node, st)) {
      wrote |= Proceed(ctx, node, st);
    } else if (ctx.now >= st.due) {
      wrote |= Fail(ctx, node, st, "timed out waiting for operand pods to be deleted");
    }
  } else if (st.phase == Phase::kApplying && ctx.now >= st.due) {
    ctx.gpus.Reconfigure(node, st.targets);
    std::map<std::string, std::string> labels{{kMigStateLabel, "success"}};
    const json* n = ctx.store.Get(kNodes, "", node);
    for (const auto& l : st.paused) {
      if (n != nullptr && NodeLabel(*n, l) == kPausedForMigChange) labels[l] = "true";
    }
    Log(ctx, st, "info", "Restarting all GPU clients previously shutdown by reenabling their component-specific nodeSelector labels");
    Log(ctx, st, "info", "Successfully updated to MIG config: " + st.config);
    st.paused.clear();
    st.phase = Phase::kIdle;
    wrote |= UpdateNode(ctx, node, labels);
  } else if (st.phase == Phase::kRebooting && ctx.now >= st.due) {
    std::map<std::string, std::string> labels;
    const json* n = ctx.store.Get(kNodes, "", node);
    for (const auto& l : st.paused) {
      if (n != nullptr && NodeLabel(*n, l) == kPausedForMigChange) labels[l] = "true";
    }
    st.paused.clear();
    st.phase = Phase::kIdle;
    wrote |= UpdateNode(ctx, node, labels, true);
  }
  if (st.phase == Phase::kIdle && st.rerun) {
    st.rerun = false;
    if (!st.label.empty() && !st.pod_uid.empty()) wrote |= Begin(ctx, node, st);
  }
  return wrote;
}

bool MigManager::Begin(ControllerContext& ctx, const std::string& node_name, NodeState& st) {
  const json* node = ctx.store.Get(kNodes, "", node_name);
  if (node == nullptr) return false;
  st.config = st.label;
  st.paused.clear();
  st.stuck = false;
  Log(ctx, st, "info", "Updating to MIG config: " + st.config);
  const std::string& ns = ctx.settings.operator_namespace;
  const std::string source = "configmap " + ns + "/" + ctx.settings.mig_config_map + " key config.yaml";
  const json& view = sync_.View(ns, ctx.settings.mig_config_map, ctx.now,
                                std::chrono::milliseconds(ctx.settings.config_map_sync_delay_ms));
  const std::string* text = ConfigMapKey(view, "config.yaml");
  if (text == nullptr) return Fail(ctx, node_name, st, "/mig-parted-config/config.yaml (" + source + "): not found");
  auto parsed = ParseMigPartedConfig(*text, source);
  if (!parsed.ok()) return Fail(ctx, node_name, st, parsed.error().message);
  auto it = parsed.value().find(st.config);
  if (it == parsed.value().end()) {
    return Fail(ctx, node_name, st, source + ": no config named \"" + st.config + "\" in the mounted file");
  }
  NodeGpu gpu = DescribeNodeGpu(NodeLabel(*node, "nvidia.com/gpu.product"), LabelInt(*node, "nvidia.com/gpu.memory"),
                                NodeLabel(*node, "nvidia.com/mig.capable"));
  NodeGpuState& gpus = ctx.gpus.Ensure(*node);
  auto plan = PlanMigConfig(it->second, static_cast<int>(gpus.gpus.size()), gpu);
  if (!plan.ok()) return Fail(ctx, node_name, st, plan.error().message);
  st.targets = plan.value();
  bool applied = true;
  st.mode_change = false;
  for (size_t i = 0; i < gpus.gpus.size(); ++i) {
    GpuMigTarget have = gpus.gpus[i].Geometry();
    applied = applied && have == st.targets[i];
    st.mode_change = st.mode_change || have.mig_enabled != st.targets[i].mig_enabled;
  }
  if (applied) {
    Log(ctx, st, "info", "Selected MIG configuration is already applied; skipping");
    return UpdateNode(ctx, node_name, {{kMigStateLabel, "success"}});
  }
  std::map<std::string, std::string> labels{{kMigStateLabel, "pending"}};
  for (const char* c : kPausedComponents) {
    std::string l = DeployLabel(c);
    if (NodeLabel(*node, l) != "true") continue;
    labels[l] = kPausedForMigChange;
    st.paused.push_back(l);
  }
  Log(ctx, st, "info", "Shutting down all GPU clients in Kubernetes by disabling their component-specific nodeSelector labels");
  st.stuck = ctx.faults.StuckMigPending(node_name, st.config);
  st.phase = Phase::kWaitingForPods;
  st.due = ctx.now + kPodWaitTimeout;
  bool wrote = UpdateNode(ctx, node_name, labels);
  return Step(ctx, node_name, st) || wrote;
}

bool MigManager::OperandPodsGone(ControllerContext& ctx, const std::string& node, const NodeState& st) const {
  bool gone = true;
  ctx.store.ForEach(kPods, ctx.settings.operator_namespace, "", [&](const std::string&, const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref == nullptr || ref->value("kind", "") != "DaemonSet" || Str(pod, {"spec", "nodeName"}) != node) return true;
    const json* ds = ctx.store.Get(kDaemonSets, Namespace(pod), ref->value("name", ""));
    const json* sel = ds != nullptr ? Find(*ds, {"spec", "template", "spec", "nodeSelector"}) : nullptr;
    for (const auto& l : st.paused) gone = gone && !(sel != nullptr && sel->is_object() && sel->contains(l));
    return gone;
  });
  return gone;
}

bool MigManager::Proceed(ControllerContext& ctx, const std::string& node_name, NodeState& st) {
  const NodeGpuState* gpus = ctx.gpus.Find(node_name);
  if (gpus == nullptr) return Fail(ctx, node_name, st, "node has no GPUs");
  std::string busy;
  for (size_t i = 0; i < gpus->gpus.size(); ++i) {
    const SimGpu& g = gpus->gpus[i];
    if (!st.mode_change && g.Geometry() == st.targets[i]) continue;
    std::vector<std::string> holders = g.holders;
    for (const auto& d : g.mig) holders.insert(holders.end(), d.holders.begin(), d.holders.end());
    for (const auto& h : holders) {
      busy += (busy.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(i) + " held by pod " + h;
    }
  }
  if (!busy.empty()) {
    if (st.mode_change) {
      Log(ctx, st, "error", "Error resetting GPUs for MIG mode change (mig-parted resets every GPU of the node): "
                            "In use by another client (" + busy + ")");
      if (ctx.settings.mig_manager_with_reboot) return Reboot(ctx, node_name, st);
      return Fail(ctx, node_name, st, "unable to apply MIG config with MIG mode change: In use by another client");
    }
    return Fail(ctx, node_name, st, "error destroying GPU instances: In use by another client (" + busy + ")");
  }
  if (ctx.faults.FailMigConfig(node_name, st.config)) return Fail(ctx, node_name, st, "injected failure (kube-sim fault)");
  for (size_t i = 0; i < gpus->gpus.size(); ++i) {
    if (!(gpus->gpus[i].Geometry() == st.targets[i])) {
      Log(ctx, st, "info", "GPU " + std::to_string(i) + ": " + Describe(gpus->gpus[i].Geometry()) + " -> " +
                               Describe(st.targets[i]));
    }
  }
  Log(ctx, st, "info", "Applying the selected MIG config to the node");
  st.phase = Phase::kApplying;
  st.due = ctx.now + std::chrono::milliseconds(ctx.settings.mig_reconfigure_delay_ms);
  return Step(ctx, node_name, st);
}

bool MigManager::Fail(ControllerContext& ctx, const std::string& node_name, NodeState& st, const std::string& why) {
  Log(ctx, st, "error", "Error: " + why);
  Log(ctx, st, "info", "Changing the 'nvidia.com/mig.config.state' node label to 'failed'");
  std::map<std::string, std::string> labels{{kMigStateLabel, "failed"}};
  const json* n = ctx.store.Get(kNodes, "", node_name);
  for (const auto& l : st.paused) {
    if (n != nullptr && NodeLabel(*n, l) == kPausedForMigChange) labels[l] = "true";
  }
  st.paused.clear();
  st.phase = Phase::kIdle;
  return UpdateNode(ctx, node_name, labels);
}

bool MigManager::Reboot(ControllerContext& ctx, const std::string& node_name, NodeState& st) {
  Log(ctx, st, "info", "Rebooting the node to apply the MIG mode change (WITH_REBOOT)");
  Log(ctx, st, "info", "Changing the 'nvidia.com/mig.config.state' node label to 'rebooting'");
  bool wrote = UpdateNode(ctx, node_name, {{kMigStateLabel, "rebooting"}}, false);
  std::vector<std::pair<std::string, std::string>> lost;
  ctx.store.ForEach(kPods, "", "", [&](const std::string&, const json& pod) {
    if (Str(pod, {"spec", "nodeName"}) == node_name) lost.emplace_back(Namespace(pod), Name(pod));
    return true;
  });
  for (const auto& [ns, name] : lost) wrote |= ctx.store.Delete(kPods, ns, name).ok();
  ctx.gpus.Reboot(node_name, st.targets);
  st.phase = Phase::kRebooting;
  st.due = ctx.now + std::chrono::milliseconds(ctx.settings.node_reboot_delay_ms);
  return wrote;
}

}  // namespace kubeon::kubesim
