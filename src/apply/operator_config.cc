#include "apply/operator_config.h"

#include <set>

#include <yaml-cpp/yaml.h>

#include "model/cluster.h"

namespace kubeon::apply {
namespace {

Result<YAML::Node> Parse(const std::string& yaml, const std::string& what) {
  try {
    YAML::Node doc = YAML::Load(yaml);
    if (!doc.IsMap()) return Status::Error(what + ": not a YAML map");
    return doc;
  } catch (const YAML::Exception& e) {
    return Status::Error(what + ": " + e.what());
  }
}

Result<YAML::Node> Configs(const YAML::Node& doc, const std::string& what) {
  YAML::Node configs = doc["mig-configs"];
  if (!configs || !configs.IsMap()) return Status::Error(what + ": no mig-configs map");
  return configs;
}

// Content without formatting: scalars as text, maps with sorted keys.
std::string Canon(const YAML::Node& n) {
  if (n.IsScalar()) return "\"" + n.Scalar() + "\"";
  std::string out;
  if (n.IsSequence()) {
    out = "[";
    for (const auto& e : n) out += Canon(e) + ",";
    return out + "]";
  }
  if (n.IsMap()) {
    std::map<std::string, std::string> sorted;
    for (const auto& kv : n) sorted[kv.first.Scalar()] = Canon(kv.second);
    out = "{";
    for (const auto& [k, v] : sorted) out += k + ":" + v + ",";
    return out + "}";
  }
  return "~";
}

std::string Emit(const YAML::Node& n) {
  YAML::Emitter out;
  out << n;
  return out.c_str();
}

}  // namespace

Result<std::string> MergeMigConfig(const std::string& existing, const std::string& plan,
                                   const std::vector<std::string>& names) {
  auto plan_doc = Parse(plan, "the plan's mig-parted config");
  if (!plan_doc.ok()) return plan_doc.status();
  auto plan_configs = Configs(*plan_doc, "the plan's mig-parted config");
  if (!plan_configs.ok()) return plan_configs.status();
  YAML::Node doc;
  if (existing.empty()) {
    doc["version"] = "v1";
    doc["mig-configs"] = YAML::Node(YAML::NodeType::Map);
  } else {
    auto parsed = Parse(existing, "the ConfigMap's config.yaml");
    if (!parsed.ok()) return parsed.status();
    doc = *parsed;
    if (!doc["mig-configs"]) doc["mig-configs"] = YAML::Node(YAML::NodeType::Map);
  }
  auto configs = Configs(doc, "the ConfigMap's config.yaml");
  if (!configs.ok()) return configs.status();
  std::vector<std::string> wanted = names;
  if ((*plan_configs)[kAllDisabled]) wanted.insert(wanted.begin(), kAllDisabled);
  std::set<std::string> done;
  bool changed = existing.empty();
  for (const auto& name : wanted) {
    if (!done.insert(name).second) continue;
    YAML::Node from = (*plan_configs)[name];
    if (!from) return Status::Error("the plan's mig-parted config has no config \"" + name + "\"");
    YAML::Node have = (*configs)[name];
    if (have) {
      // all-disabled may be written differently by the operator; only kubeon configs must match.
      if (name != kAllDisabled && Canon(have) != Canon(from)) {
        return Status::Error("mig-parted config \"" + name + "\" in the ConfigMap differs from the plan's (edited by hand?)");
      }
      continue;
    }
    (*configs)[name] = YAML::Clone(from);
    changed = true;
  }
  if (!changed) return existing;
  return Emit(doc) + "\n";
}

bool HasMigConfig(const std::string& yaml, const std::string& name) {
  auto doc = Parse(yaml, "config.yaml");
  if (!doc.ok()) return false;
  auto configs = Configs(*doc, "config.yaml");
  return configs.ok() && static_cast<bool>((*configs)[name]);
}

Result<std::map<std::string, int64_t>> ExpectedMigResources(const std::string& yaml, const std::string& name,
                                                            int gpu_count) {
  const std::string what = "mig-parted config \"" + name + "\"";
  auto doc = Parse(yaml, what);
  if (!doc.ok()) return doc.status();
  auto configs = Configs(*doc, what);
  if (!configs.ok()) return configs.status();
  YAML::Node entries = (*configs)[name];
  if (!entries || !entries.IsSequence()) return Status::Error(what + ": missing or not a list");
  std::map<std::string, int64_t> out;
  try {
    for (const auto& e : entries) {
      if (e["device-filter"]) continue;
      int64_t devices = 0;
      YAML::Node d = e["devices"];
      if (d && d.IsScalar() && d.as<std::string>() == "all") {
        devices = gpu_count;
      } else if (d && d.IsSequence()) {
        devices = static_cast<int64_t>(d.size());
      } else {
        return Status::Error(what + ": an entry without devices");
      }
      const bool enabled = e["mig-enabled"] && e["mig-enabled"].as<bool>();
      if (!enabled) {
        out[model::kGpuResource] += devices;
        continue;
      }
      if (!e["mig-devices"]) continue;
      for (const auto& kv : e["mig-devices"]) {
        out[std::string(model::kMigResourcePrefix) + kv.first.as<std::string>()] += devices * kv.second.as<int64_t>();
      }
    }
  } catch (const YAML::Exception& ex) {
    return Status::Error(what + ": " + ex.what());
  }
  return out;
}

Result<int64_t> TimeSlicingReplicas(const std::string& config) {
  auto doc = Parse(config, "device-plugin config");
  if (!doc.ok()) return doc.status();
  try {
    YAML::Node resources = (*doc)["sharing"]["timeSlicing"]["resources"];
    if (!resources || !resources.IsSequence()) return int64_t{1};
    for (const auto& r : resources) {
      if (r["name"] && r["name"].as<std::string>() == model::kGpuResource && r["replicas"]) {
        return r["replicas"].as<int64_t>();
      }
    }
  } catch (const YAML::Exception& ex) {
    return Status::Error(std::string("device-plugin config: ") + ex.what());
  }
  return int64_t{1};
}

}  // namespace kubeon::apply
