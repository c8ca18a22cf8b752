#include "apply/operator_configmaps.h"

#include <set>

#include "apply/operator_config.h"
#include "model/cluster.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

std::string ConfigMapsPath(const StepArtifacts& a) { return "/api/v1/namespaces/" + a.operator_namespace + "/configmaps"; }

json Skeleton(const StepArtifacts& a, const std::string& name) {
  return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
              {"metadata", {{"name", name}, {"namespace", a.operator_namespace},
                            {"labels", {{"app.kubernetes.io/managed-by", "kubeon-gpu"}}}}},
              {"data", json::object()}};
}

// The ConfigMap, or nullopt when it does not exist.
Result<std::optional<json>> ReadConfigMap(StepJournal& j, const std::string& name) {
  auto cm = j.client().Get(ConfigMapsPath(j.ctx().artifacts) + "/" + name);
  if (cm.ok()) return std::optional<json>(*cm);
  if (cm.error().Code() == StatusCode::kNotFound) return std::optional<json>();
  return cm.status();
}

Status WriteMigConfigs(StepJournal& j, const std::vector<std::string>& names, bool* changed) {
  const StepArtifacts& a = j.ctx().artifacts;
  auto cm = ReadConfigMap(j, a.mig_configmap);
  if (!cm.ok()) return cm.status();
  const std::string have = *cm ? (*cm)->value("/data/config.yaml"_json_pointer, std::string()) : "";
  std::vector<std::string> missing;
  for (const auto& n : names) {
    if (have.empty() || !HasMigConfig(have, n)) missing.push_back(n);
  }
  if (missing.empty()) return Status::Ok();
  if (a.mig_parted_config.empty()) {
    return Status::Error("ConfigMap " + a.operator_namespace + "/" + a.mig_configmap + " lacks MIG config \"" +
                             missing[0] + "\" and the plan has no mig-parted config",
                         StatusCode::kInvalid);
  }
  Status s = j.Intent("write-configmap", "ConfigMap " + a.operator_namespace + "/" + a.mig_configmap +
                                             ": add MIG config " + missing[0] + (missing.size() > 1 ? " ..." : ""));
  if (!s.ok()) return s;
  auto r = j.client().Upsert(ConfigMapsPath(a), a.mig_configmap, Skeleton(a, a.mig_configmap), [&](json& obj) -> Status {
    const std::string cur = obj.value("/data/config.yaml"_json_pointer, std::string());
    auto merged = MergeMigConfig(cur, a.mig_parted_config, missing);
    if (!merged.ok()) return merged.status();
    if (!obj["data"].is_object()) obj["data"] = json::object();
    obj["data"]["config.yaml"] = *merged;
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  *changed = true;
  return j.Wrote("write-configmap", "ConfigMap " + a.mig_configmap + " updated");
}

Status WriteDevicePluginConfigs(StepJournal& j, const std::set<std::string>& keys, bool* changed) {
  const StepArtifacts& a = j.ctx().artifacts;
  auto cm = ReadConfigMap(j, a.device_plugin_configmap);
  if (!cm.ok()) return cm.status();
  const json data = *cm ? (*cm)->value("data", json::object()) : json::object();
  std::map<std::string, std::string> add;
  for (const auto& k : keys) {
    auto it = a.device_plugin_configs.find(k);
    if (data.contains(k)) {
      if (it != a.device_plugin_configs.end() && data[k] != it->second) {
        return Status::Error("device-plugin config key \"" + k + "\" in ConfigMap " + a.device_plugin_configmap +
                                 " differs from the plan's (edited by hand?)",
                             StatusCode::kConflict);
      }
      continue;
    }
    if (it == a.device_plugin_configs.end()) {
      return Status::Error("ConfigMap " + a.operator_namespace + "/" + a.device_plugin_configmap + " lacks key \"" +
                               k + "\" and the plan has no such device-plugin config",
                           StatusCode::kInvalid);
    }
    add[k] = it->second;
  }
  if (add.empty()) return Status::Ok();
  Status s = j.Intent("write-configmap", "ConfigMap " + a.operator_namespace + "/" + a.device_plugin_configmap +
                                             ": add key " + add.begin()->first);
  if (!s.ok()) return s;
  auto r = j.client().Upsert(ConfigMapsPath(a), a.device_plugin_configmap, Skeleton(a, a.device_plugin_configmap),
                             [&](json& obj) -> Status {
                               if (!obj["data"].is_object()) obj["data"] = json::object();
                               for (const auto& [k, v] : add) {
                                 if (!obj["data"].contains(k)) obj["data"][k] = v;
                               }
                               return Status::Ok();
                             });
  if (!r.ok()) return r.status();
  *changed = true;
  return j.Wrote("write-configmap", "ConfigMap " + a.device_plugin_configmap + " updated");
}

}  // namespace

Status WriteConfigMaps(StepJournal& j, const std::vector<NodeGoal>& goals, bool* changed) {
  *changed = false;
  std::vector<std::string> mig_names;
  std::set<std::string> dp_keys;
  for (const auto& g : goals) {
    for (const auto& [k, v] : g.labels) {
      if (!v) continue;
      if (k == kMigConfigLabel) mig_names.push_back(*v);
      if (k == kDevicePluginConfigLabel) dp_keys.insert(*v);
    }
  }
  if (!mig_names.empty()) {
    if (Status s = WriteMigConfigs(j, mig_names, changed); !s.ok()) return s;
  }
  if (!dp_keys.empty()) {
    if (Status s = WriteDevicePluginConfigs(j, dp_keys, changed); !s.ok()) return s;
  }
  return Status::Ok();
}

Result<std::map<std::string, int64_t>> ExpectedFor(StepJournal& j, const std::string& label,
                                                   const std::optional<std::string>& value, int gpus) {
  const StepArtifacts& a = j.ctx().artifacts;
  std::map<std::string, int64_t> out;
  if (label == kMigConfigLabel) {
    auto cm = j.client().Get(ConfigMapsPath(a) + "/" + a.mig_configmap);
    if (!cm.ok()) return cm.status();
    return ExpectedMigResources(cm->value("/data/config.yaml"_json_pointer, std::string()), value.value_or(""), gpus);
  }
  if (!value) {
    out[model::kSharedGpuResource] = 0;
    return out;
  }
  auto cm = j.client().Get(ConfigMapsPath(a) + "/" + a.device_plugin_configmap);
  if (!cm.ok()) return cm.status();
  auto replicas = TimeSlicingReplicas(cm->value("data", json::object()).value(*value, std::string()));
  if (!replicas.ok()) return replicas.status();
  out[model::kSharedGpuResource] = *replicas > 1 ? gpus * *replicas : 0;
  return out;
}

}  // namespace kubeon::apply
