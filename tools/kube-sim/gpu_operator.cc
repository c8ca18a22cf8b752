// See gpu_operator.h.
#include "gpu_operator.h"

#include <yaml-cpp/yaml.h>

#include "quantity.h"
#include "resources.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
constexpr const char* kMigStateLabel = "nvidia.com/mig.config.state";
constexpr const char* kDevicePluginLabel = "nvidia.com/device-plugin.config";
constexpr const char* kGpu = "nvidia.com/gpu";
constexpr const char* kMigPrefix = "nvidia.com/mig-";

std::string Label(const json& node, const std::string& key) {
  const json& l = Labels(node);
  return l.contains(key) && l[key].is_string() ? l[key].get<std::string>() : std::string();
}

bool SetLabel(ControllerContext& ctx, const std::string& node_name, const std::string& key, const std::string& value) {
  const json* node = ctx.store.Get(kNodes, "", node_name);
  if (node == nullptr) return false;
  json n = *node;
  n["metadata"]["labels"][key] = value;
  uint64_t before = ctx.store.ResourceVersion();
  return ctx.store.Update(kNodes, std::move(n)).ok() && ctx.store.ResourceVersion() != before;
}

void RecordEvent(ControllerContext& ctx, const std::string& node, const std::string& reason, const std::string& msg) {
  std::string now = Rfc3339(ctx.now);
  json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata", {{"name", node + "." + RandomSuffix(ctx.store.rng(), 10)}, {"namespace", "default"}}},
             {"involvedObject", {{"kind", "Node"}, {"name", node}, {"apiVersion", "v1"}}},
             {"reason", reason},
             {"message", msg},
             {"type", "Warning"},
             {"source", {{"component", "nvidia-mig-manager"}, {"host", node}}},
             {"firstTimestamp", now},
             {"lastTimestamp", now},
             {"count", 1}};
  (void)ctx.store.Create(kEvents, std::move(ev));
}

int64_t LabelInt(const json& node, const std::string& key, int64_t fallback) {
  std::string v = Label(node, key);
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return fallback;
  return std::atoll(v.c_str());
}

const json* ConfigMapData(ControllerContext& ctx, const std::string& name, const std::string& key) {
  const json* cm = ctx.store.Get(kConfigMaps, ctx.settings.operator_namespace, name);
  if (cm == nullptr) return nullptr;
  const json* v = Find(*cm, {"data", key.c_str()});
  return v != nullptr && v->is_string() ? v : nullptr;
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

bool GpuOperator::WaitingOnClock() const {
  for (const auto& [name, st] : nodes_) {
    if (st.pending_mig || st.pending_dp) return true;
  }
  return false;
}

GpuOperator::NodeState GpuOperator::FirstSight(const json& node, ControllerContext& ctx) const {
  NodeState st;
  st.mig_label = Label(node, kMigConfigLabel);
  st.dp_fingerprint = DevicePluginFingerprint(ctx, node);
  const json* cap = Find(node, {"status", "capacity"});
  int64_t replicas = std::max<int64_t>(1, LabelInt(node, "nvidia.com/gpu.replicas", 1));
  int64_t full = 0;
  if (cap != nullptr && cap->is_object()) {
    for (const auto& [res, q] : cap->items()) {
      auto v = QuantityOf(q);
      if (!v) continue;
      if (res == kGpu || res == "nvidia.com/gpu.shared") full += static_cast<int64_t>(*v);
      if (res.rfind(kMigPrefix, 0) == 0) {
        std::string profile = res.substr(std::string(kMigPrefix).size());
        if (profile.size() > 7 && profile.compare(profile.size() - 7, 7, ".shared") == 0) continue;
        st.layout.devices[profile] = static_cast<int64_t>(*v);
      }
    }
  }
  st.layout.full_gpus = static_cast<int>(full / replicas);
  int64_t count = LabelInt(node, "nvidia.com/gpu.count", -1);
  if (count < 0) count = st.layout.full_gpus + (st.layout.devices.empty() ? 0 : 1);
  st.gpu_count = static_cast<int>(count);
  st.layout.mig_gpus = std::max(0, st.gpu_count - st.layout.full_gpus);
  return st;
}

std::string GpuOperator::DevicePluginFingerprint(ControllerContext& ctx, const json& node) const {
  std::string key = Label(node, kDevicePluginLabel);
  if (key.empty()) return "";
  const json* data = ConfigMapData(ctx, ctx.settings.device_plugin_config_map, key);
  return key + "\n" + (data != nullptr ? data->get<std::string>() : std::string("<missing>"));
}

bool GpuOperator::FinishMig(ControllerContext& ctx, const std::string& node_name, NodeState& st) {
  const std::string config = st.pending_mig->first;
  st.pending_mig.reset();
  const json* node = ctx.store.Get(kNodes, "", node_name);
  if (node == nullptr) return false;
  const std::string source = "configmap " + ctx.settings.operator_namespace + "/" + ctx.settings.mig_config_map +
                             " key config.yaml";
  auto fail = [&](const std::string& why) {
    bool wrote = SetLabel(ctx, node_name, kMigStateLabel, "failed");
    RecordEvent(ctx, node_name, "MigConfigFailed", "applying MIG config \"" + config + "\": " + why);
    return wrote;
  };
  if (ctx.faults.FailMigConfig(node_name, config)) return fail("injected failure");
  const json* text = ConfigMapData(ctx, ctx.settings.mig_config_map, "config.yaml");
  if (text == nullptr) return fail(source + ": not found");
  auto parsed = ParseMigPartedConfig(text->get<std::string>(), source);
  if (!parsed.ok()) return fail(parsed.error().message);
  auto it = parsed.value().find(config);
  if (it == parsed.value().end()) return fail(source + ": no config named \"" + config + "\"");
  NodeGpu gpu = DescribeNodeGpu(Label(*node, "nvidia.com/gpu.product"), LabelInt(*node, "nvidia.com/gpu.memory", 0),
                                Label(*node, "nvidia.com/mig.capable"));
  auto result = ApplyMigConfig(it->second, st.gpu_count, gpu);
  if (!result.ok()) return fail(result.error().message);
  st.layout = result.value();
  bool wrote = WriteResources(ctx, node_name, st);
  json n = *ctx.store.Get(kNodes, "", node_name);
  n["metadata"]["labels"][kMigStateLabel] = "success";
  if (st.layout.mig_gpus > 0) n["metadata"]["labels"]["nvidia.com/mig.strategy"] = "mixed";
  uint64_t before = ctx.store.ResourceVersion();
  if (ctx.store.Update(kNodes, std::move(n)).ok() && ctx.store.ResourceVersion() != before) wrote = true;
  return wrote;
}

bool GpuOperator::WriteResources(ControllerContext& ctx, const std::string& node_name, const NodeState& st) {
  const json* stored = ctx.store.Get(kNodes, "", node_name);
  if (stored == nullptr) return false;
  json node = *stored;
  TimeSlicingConfig ts;
  std::string dp_key = Label(node, kDevicePluginLabel);
  if (!dp_key.empty()) {
    const json* data = ConfigMapData(ctx, ctx.settings.device_plugin_config_map, dp_key);
    std::string source = "configmap " + ctx.settings.operator_namespace + "/" +
                         ctx.settings.device_plugin_config_map + " key " + dp_key;
    if (data == nullptr) {
      RecordEvent(ctx, node_name, "DevicePluginConfigFailed", source + ": not found");
      return false;
    }
    auto parsed = ParseDevicePluginConfig(data->get<std::string>(), source);
    if (!parsed.ok()) {
      RecordEvent(ctx, node_name, "DevicePluginConfigFailed", parsed.error().message);
      return false;
    }
    ts = parsed.value();
  }
  auto replicas_of = [&](const std::string& res) {
    auto it = ts.replicas.find(res);
    return it == ts.replicas.end() ? 1 : it->second;
  };
  auto advertised = [&](const std::string& res) {
    return replicas_of(res) > 1 && ts.rename_by_default ? res + ".shared" : res;
  };
  std::map<std::string, int64_t> resources;
  resources[advertised(kGpu)] = static_cast<int64_t>(st.layout.full_gpus) * replicas_of(kGpu);
  for (const auto& [profile, n] : st.layout.devices) {
    std::string res = kMigPrefix + profile;
    resources[advertised(res)] = n * replicas_of(res);
  }
  for (const char* section : {"capacity", "allocatable"}) {
    json& list = node["status"][section];
    if (!list.is_object()) list = json::object();
    std::vector<std::string> drop;
    for (const auto& [res, q] : list.items()) {
      (void)q;
      if (res == kGpu || res == "nvidia.com/gpu.shared" || res.rfind(kMigPrefix, 0) == 0) drop.push_back(res);
    }
    for (const auto& r : drop) list.erase(r);
    for (const auto& [res, n] : resources) list[res] = std::to_string(n);
  }
  json& labels = node["metadata"]["labels"];
  std::vector<std::string> stale;
  for (const auto& [k, v] : labels.items()) {
    (void)v;
    if (k.rfind(kMigPrefix, 0) == 0 && k.size() > 6 && k.compare(k.size() - 6, 6, ".count") == 0) stale.push_back(k);
  }
  for (const auto& k : stale) labels.erase(k);
  for (const auto& [profile, n] : st.layout.devices) labels[kMigPrefix + profile + ".count"] = std::to_string(n);
  int gpu_replicas = replicas_of(kGpu);
  labels["nvidia.com/gpu.replicas"] = std::to_string(gpu_replicas);
  labels["nvidia.com/gpu.sharing-strategy"] = gpu_replicas > 1 ? "time-slicing" : "none";
  if (labels.contains("nvidia.com/gpu.product") && labels["nvidia.com/gpu.product"].is_string()) {
    std::string product = labels["nvidia.com/gpu.product"].get<std::string>();
    const std::string suffix = "-SHARED";
    if (product.size() >= suffix.size() && product.compare(product.size() - suffix.size(), suffix.size(), suffix) == 0) {
      product.resize(product.size() - suffix.size());
    }
    if (gpu_replicas > 1 && !ts.rename_by_default) product += suffix;
    labels["nvidia.com/gpu.product"] = product;
  }
  uint64_t before = ctx.store.ResourceVersion();
  return ctx.store.Update(kNodes, std::move(node)).ok() && ctx.store.ResourceVersion() != before;
}

bool GpuOperator::Reconcile(ControllerContext& ctx) {
  bool wrote = false;
  std::map<std::string, NodeState> kept;
  for (const auto& [unused_ns, name] : Keys(ctx.store, kNodes)) {
    (void)unused_ns;
    const json& node = *ctx.store.Get(kNodes, "", name);  // read before any write to it
    auto it = nodes_.find(name);
    if (it == nodes_.end()) {
      kept[name] = FirstSight(node, ctx);
      continue;
    }
    NodeState st = std::move(it->second);
    std::string mig = Label(node, kMigConfigLabel);
    if (mig != st.mig_label) {
      st.mig_label = mig;
      if (!mig.empty()) {
        wrote |= SetLabel(ctx, name, kMigStateLabel, "pending");
        st.pending_mig = std::make_pair(mig, ctx.now + std::chrono::milliseconds(ctx.settings.mig_reconfigure_delay_ms));
      }
    }
    if (st.pending_mig && ctx.now >= st.pending_mig->second) wrote |= FinishMig(ctx, name, st);
    const json* latest = ctx.store.Get(kNodes, "", name);
    std::string fp = latest != nullptr ? DevicePluginFingerprint(ctx, *latest) : "";
    if (fp != st.dp_fingerprint) {
      st.dp_fingerprint = fp;
      st.pending_dp = ctx.now + std::chrono::milliseconds(ctx.settings.device_plugin_delay_ms);
    }
    if (st.pending_dp && ctx.now >= *st.pending_dp) {
      st.pending_dp.reset();
      wrote |= WriteResources(ctx, name, st);
    }
    kept[name] = std::move(st);
  }
  nodes_ = std::move(kept);
  return wrote;
}

}  // namespace kubeon::kubesim
