// See device_plugin.h.
#include "device_plugin.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "gpu_operator.h"
#include "kubelet.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kDevicePluginLabel = "nvidia.com/device-plugin.config";
constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kMigPrefix = "nvidia.com/mig-";

bool IsGpuResource(const std::string& res) {
  return res == kGpu || res == "nvidia.com/gpu.shared" || res.rfind(kMigPrefix, 0) == 0;
}

std::string ConfigFingerprint(const TimeSlicingConfig& c) {
  return json{{"rename", c.rename_by_default}, {"replicas", c.replicas}}.dump();
}

}  // namespace

Outcome<TimeSlicingConfig> ParseDevicePluginConfig(const std::string& yaml_text, const std::string& source) {
  auto bad = [&](const std::string& where, const std::string& why) {
    return ApiError::BadRequest(source + ": " + where + ": " + why);
  };
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return bad("line " + std::to_string(e.mark.line + 1), "invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) return bad("(top level)", "must be a map");
  for (const auto& kv : root) {
    std::string k = kv.first.as<std::string>();
    if (k != "version" && k != "flags" && k != "sharing" && k != "resources") return bad(k, "unknown key");
  }
  if (!root["version"] || root["version"].as<std::string>() != "v1") return bad("version", "must be v1");
  TimeSlicingConfig cfg;
  YAML::Node ts = root["sharing"] ? root["sharing"]["timeSlicing"] : YAML::Node();
  if (!ts) return cfg;
  try {
    if (ts["renameByDefault"]) cfg.rename_by_default = ts["renameByDefault"].as<bool>();
    YAML::Node res = ts["resources"];
    if (res && !res.IsSequence()) return bad("sharing.timeSlicing.resources", "must be a list");
    for (size_t i = 0; res && i < res.size(); ++i) {
      std::string where = "sharing.timeSlicing.resources[" + std::to_string(i) + "]";
      if (!res[i]["name"]) return bad(where + ".name", "is required");
      if (!res[i]["replicas"]) return bad(where + ".replicas", "is required");
      std::string name = res[i]["name"].as<std::string>();
      int replicas = res[i]["replicas"].as<int>();
      if (replicas < 1) return bad(where + ".replicas", "must be at least 1");
      if (name != kGpu && name.rfind(kMigPrefix, 0) != 0) return bad(where + ".name", "unknown resource \"" + name + "\"");
      cfg.replicas[name] = replicas;
    }
  } catch (const YAML::Exception& e) {
    return bad("sharing.timeSlicing (line " + std::to_string(e.mark.line + 1) + ")", "has the wrong type");
  }
  return cfg;
}

bool DevicePlugin::Reconcile(ControllerContext& ctx) {
  const std::string& ns = ctx.settings.operator_namespace;
  const auto delay = std::chrono::milliseconds(ctx.settings.config_map_sync_delay_ms);
  sync_.Observe(ctx.store, ns, ctx.settings.device_plugin_config_map, ctx.now, delay);
  // Nodes to look at: what changed, those waiting on the clock, and all of
  // them while a ConfigMap edit is on its way to the nodes.
  std::optional<std::set<std::string>> only = ChangedGpuNodes(cursor_, ctx.store, ns, ctx.settings.device_plugin_config_map);
  const bool syncing = sync_.Pending(ctx.now, delay);
  if (syncing || was_syncing_) only.reset();  // the run after the edit became visible too
  was_syncing_ = syncing;
  if (only) {
    for (const auto& [name, st] : nodes_) {
      if (st.pending || !st.crash.empty() || ctx.store.Get(kNodes, "", name) == nullptr) only->insert(name);
    }
  }
  bool wrote = false;
  waiting_ = syncing;
  ForEachGpuNode(ctx.store, ns, "device-plugin", only, [&](const json& node, const std::optional<json>& pod) {
    auto it = nodes_.find(Name(node));
    const bool first = it == nodes_.end();
    NodeState& st = nodes_[Name(node)];
    wrote |= ReconcileNode(ctx, node, pod, first, st);
  });
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    const json* node = ctx.store.Get(kNodes, "", it->first);
    if (node == nullptr || !IsGpuNode(*node)) {
      it = nodes_.erase(it);
      continue;
    }
    waiting_ = waiting_ || it->second.pending.has_value() || !it->second.crash.empty();
    ++it;
  }
  return wrote;
}

bool DevicePlugin::ReconcileNode(ControllerContext& ctx, const json& node, const std::optional<json>& pod, bool first,
                                 NodeState& st) {
  const std::string name = Name(node);
  const std::string& ns = ctx.settings.operator_namespace;
  const std::string& cm = ctx.settings.device_plugin_config_map;
  const NodeGpuState& gpus = ctx.gpus.Ensure(node);
  if (pod) st.seen_pod = true;
  const bool running = pod && PodPhase(*pod) == "Running";
  // The config the label names, as the node's mounted file has it.
  const std::string key = NodeLabel(node, kDevicePluginLabel);
  const json& view = sync_.View(ns, cm, ctx.now, std::chrono::milliseconds(ctx.settings.config_map_sync_delay_ms));
  std::string wanted = key, error;
  TimeSlicingConfig cfg;
  if (!key.empty()) {
    const std::string* text = ConfigMapKey(view, key);
    if (text == nullptr) {
      error = "unable to load config: config \"" + key + "\" not found in /available-configs (ConfigMap " + ns + "/" +
              cm + ")";
    } else {
      wanted += "\n" + *text;
      auto parsed = ParseDevicePluginConfig(*text, "configmap " + ns + "/" + cm + " key " + key);
      if (parsed.ok()) cfg = parsed.value();
      else error = "unable to load config: " + parsed.error().message;
    }
  }
  const bool crash_mode = ctx.settings.device_plugin_missing_config == "crash";
  if (first) {
    st.wanted = wanted;
    if (error.empty()) st.applied = cfg;
  } else if (wanted != st.wanted) {
    st.wanted = wanted;
    st.pending.reset();
    if (error.empty()) {
      st.pending = std::make_pair(cfg, ctx.now + std::chrono::milliseconds(ctx.settings.device_plugin_delay_ms));
    } else if (pod) {
      ctx.logs.Append(Uid(*pod), ctx.now, crash_mode ? "error" : "warning",
                      error + (crash_mode ? "" : "; keeping the current config"));
    }
  }
  st.crash = error.empty() || !crash_mode || first ? std::string() : error;
  if (st.pending && ctx.now >= st.pending->second) {
    st.applied = st.pending->first;
    st.pending.reset();
  }
  bool wrote = false;
  if (running) wrote |= WritePodStatus(ctx, *pod, st);
  const bool advertising = running && st.crash.empty();
  if (!st.seen_pod) return wrote;
  std::string fp = std::string(advertising ? "on/" : "off/") + std::to_string(gpus.generation) + "/" +
                   ConfigFingerprint(st.applied);
  for (const auto& g : gpus.gpus) fp += "/" + json{{"m", g.mig_enabled}, {"d", g.Geometry().devices}}.dump();
  if (first) st.advertised = fp;
  if (fp == st.advertised) return wrote;
  st.advertised = fp;
  return WriteResources(ctx, name, st, advertising) || wrote;
}

bool DevicePlugin::WritePodStatus(ControllerContext& ctx, const json& pod, NodeState& st) {
  const json* node = ctx.store.Get(kNodes, "", Str(pod, {"spec", "nodeName"}));
  if (node == nullptr) return false;
  const std::string now = Rfc3339(ctx.now);
  if (st.crash.empty()) {
    if (st.crash_pod != Uid(pod)) return false;
    st.crash_pod.clear();  // recovered: the container runs again
    json p = pod;
    p["status"] = RunningPodStatus(pod, *node, now);
    for (auto& c : p["status"]["containerStatuses"]) c["restartCount"] = st.restarts;
    return ctx.store.Update(kPods, std::move(p)).ok();
  }
  if (st.crash_pod != Uid(pod)) {
    st.crash_pod = Uid(pod);
    st.restarts = 0;
    st.next_restart = ctx.now;
  }
  if (ctx.now < st.next_restart) return false;
  ++st.restarts;
  // The kubelet's back-off: 10 s doubling up to 5 min.
  auto backoff = std::chrono::seconds(std::min<int64_t>(300, int64_t{10} << std::min(st.restarts - 1, 5)));
  st.next_restart = ctx.now + backoff;
  ctx.logs.Append(Uid(pod), ctx.now, "error", st.crash);
  json p = pod;
  json& status = p["status"];
  std::string names;
  for (auto& c : status["containerStatuses"]) {
    std::string cname = c.value("name", "");
    names += (names.empty() ? "" : " ") + cname;
    c["ready"] = false;
    c["started"] = false;
    c["restartCount"] = st.restarts;
    c["lastState"] = {{"terminated", {{"exitCode", 1}, {"reason", "Error"}, {"startedAt", now}, {"finishedAt", now}}}};
    c["state"] = {{"waiting", {{"reason", "CrashLoopBackOff"},
                               {"message", "back-off " + std::to_string(backoff.count()) +
                                               "s restarting failed container=" + cname + " pod=" + Name(pod) + "_" +
                                               Namespace(pod) + "(" + Uid(pod) + ")"}}}};
  }
  for (auto& c : status["conditions"]) {
    std::string type = c.value("type", "");
    if (type == "Ready" || type == "ContainersReady") {
      c["status"] = "False";
      c["reason"] = "ContainersNotReady";
      c["message"] = "containers with unready status: [" + names + "]";
      c["lastTransitionTime"] = now;
    }
  }
  return ctx.store.Update(kPods, std::move(p)).ok();
}

bool DevicePlugin::WriteResources(ControllerContext& ctx, const std::string& node_name, const NodeState& st,
                                  bool advertising) {
  const json* stored = ctx.store.Get(kNodes, "", node_name);
  const NodeGpuState* gpus = ctx.gpus.Find(node_name);
  if (stored == nullptr || gpus == nullptr) return false;
  json node = *stored;
  const TimeSlicingConfig& ts = st.applied;
  auto replicas_of = [&](const std::string& res) {
    auto it = ts.replicas.find(res);
    return it == ts.replicas.end() ? 1 : it->second;
  };
  auto advertised = [&](const std::string& res) {
    return replicas_of(res) > 1 && ts.rename_by_default ? res + ".shared" : res;
  };
  int64_t full = 0;
  bool any_mig = false;
  std::map<std::string, int64_t> devices;
  for (const auto& g : gpus->gpus) {
    full += g.mig_enabled ? 0 : 1;
    any_mig = any_mig || g.mig_enabled;
    for (const auto& d : g.mig) ++devices[d.profile];
  }
  std::map<std::string, int64_t> resources;
  resources[advertised(kGpu)] = full * replicas_of(kGpu);
  for (const auto& [profile, n] : devices) resources[advertised(kMigPrefix + profile)] = n * replicas_of(kMigPrefix + profile);
  for (const char* section : {"capacity", "allocatable"}) {
    json& list = node["status"][section];
    if (!list.is_object()) list = json::object();
    if (!advertising && std::string(section) == "capacity") continue;
    for (auto it = list.begin(); it != list.end(); ++it) {
      if (IsGpuResource(it.key())) *it = "0";
    }
    if (!advertising) continue;
    for (const auto& [res, n] : resources) list[res] = std::to_string(n);
  }
  if (advertising) {
    json& labels = node["metadata"]["labels"];
    std::vector<std::string> stale;
    for (const auto& [k, v] : labels.items()) {
      (void)v;
      if (k.rfind(kMigPrefix, 0) == 0 && k.size() > 6 && k.compare(k.size() - 6, 6, ".count") == 0) stale.push_back(k);
    }
    for (const auto& k : stale) labels.erase(k);
    for (const auto& [profile, n] : devices) labels[kMigPrefix + profile + ".count"] = std::to_string(n);
    if (any_mig) labels["nvidia.com/mig.strategy"] = "mixed";
    int gpu_replicas = replicas_of(kGpu);
    labels["nvidia.com/gpu.replicas"] = std::to_string(gpu_replicas);
    labels["nvidia.com/gpu.sharing-strategy"] = gpu_replicas > 1 ? "time-slicing" : "none";
    if (labels.contains("nvidia.com/gpu.product") && labels["nvidia.com/gpu.product"].is_string()) {
      std::string product = labels["nvidia.com/gpu.product"].get<std::string>();
      const std::string suffix = "-SHARED";
      if (product.size() >= suffix.size() &&
          product.compare(product.size() - suffix.size(), suffix.size(), suffix) == 0) {
        product.resize(product.size() - suffix.size());
      }
      if (gpu_replicas > 1 && !ts.rename_by_default) product += suffix;
      labels["nvidia.com/gpu.product"] = product;
    }
  }
  uint64_t before = ctx.store.ResourceVersion();
  return ctx.store.Update(kNodes, std::move(node)).ok() && ctx.store.ResourceVersion() != before;
}

}  // namespace kubeon::kubesim
