// See mig_parted.h.
#include "mig_parted.h"

#include <algorithm>
#include <cctype>

#include <yaml-cpp/yaml.h>

#include "mig/layout.h"

namespace kubeon::kubesim {

namespace {

ApiError ConfigError(const std::string& source, const std::string& where, const std::string& why) {
  return ApiError::BadRequest(source + ": " + where + ": " + why);
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

Outcome<MigConfigEntry> ParseEntry(const YAML::Node& n, const std::string& source, const std::string& where) {
  if (!n.IsMap()) return ConfigError(source, where, "must be a map");
  MigConfigEntry e;
  for (const auto& kv : n) {
    std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    std::string at = where + "." + key + " (line " + std::to_string(v.Mark().line + 1) + ")";
    try {
      if (key == "devices") {
        if (v.IsScalar()) {
          if (v.as<std::string>() != "all") return ConfigError(source, at, "must be \"all\" or a list of indexes");
          e.all_devices = true;
        } else if (v.IsSequence()) {
          e.all_devices = false;
          for (const auto& d : v) {
            int idx = d.as<int>();
            if (idx < 0) return ConfigError(source, at, "device index must be >= 0");
            e.devices.push_back(idx);
          }
        } else {
          return ConfigError(source, at, "must be \"all\" or a list of indexes");
        }
      } else if (key == "mig-enabled") {
        e.mig_enabled = v.as<bool>();
      } else if (key == "mig-devices") {
        if (!v.IsMap()) return ConfigError(source, at, "must be a map of profile to count");
        for (const auto& d : v) {
          int count = d.second.as<int>();
          if (count < 0) return ConfigError(source, at, "count must be >= 0");
          if (count > 0) e.mig_devices[d.first.as<std::string>()] = count;
        }
      } else if (key == "device-filter") {
        if (v.IsScalar()) {
          e.device_filter.push_back(Upper(v.as<std::string>()));
        } else if (v.IsSequence()) {
          for (const auto& d : v) e.device_filter.push_back(Upper(d.as<std::string>()));
        } else {
          return ConfigError(source, at, "must be a string or a list of strings");
        }
      } else {
        return ConfigError(source, at, "unknown key");
      }
    } catch (const YAML::Exception&) {
      return ConfigError(source, at, "has the wrong type");
    }
  }
  if (!e.mig_enabled && !e.mig_devices.empty()) {
    return ConfigError(source, where, "mig-devices given but mig-enabled is false");
  }
  return e;
}

// True when one of the filters names the model's PCI id.
// REQUIRES: filters are upper case (ParseEntry stores them so).
bool FilterSelects(const std::vector<std::string>& filters, const mig::GpuModel* model) {
  if (model == nullptr) return false;
  for (const auto& id : model->pci_device_ids) {
    if (std::find(filters.begin(), filters.end(), Upper(id)) != filters.end()) return true;
  }
  return false;
}

}  // namespace

Outcome<MigConfigSet> ParseMigPartedConfig(const std::string& yaml_text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    return ConfigError(source, "line " + std::to_string(e.mark.line + 1), "invalid YAML: " + e.msg);
  }
  if (!root.IsMap()) return ConfigError(source, "(top level)", "must be a map");
  for (const auto& kv : root) {
    std::string k = kv.first.as<std::string>();
    if (k != "version" && k != "mig-configs") return ConfigError(source, k, "unknown key");
  }
  if (!root["version"] || !root["version"].IsScalar() || root["version"].as<std::string>() != "v1") {
    return ConfigError(source, "version", "must be v1");
  }
  YAML::Node configs = root["mig-configs"];
  if (!configs || !configs.IsMap()) return ConfigError(source, "mig-configs", "must be a map of config name to entries");
  MigConfigSet out;
  for (const auto& kv : configs) {
    std::string name = kv.first.as<std::string>();
    if (!kv.second.IsSequence()) return ConfigError(source, "mig-configs." + name, "must be a list of entries");
    std::vector<MigConfigEntry> entries;
    for (size_t i = 0; i < kv.second.size(); ++i) {
      auto e = ParseEntry(kv.second[i], source, "mig-configs." + name + "[" + std::to_string(i) + "]");
      if (!e.ok()) return e.error();
      entries.push_back(std::move(e).value());
    }
    out[name] = std::move(entries);
  }
  return out;
}

const mig::GpuModel* IdentifyGpuModel(const std::string& product, int64_t memory_mib) {
  return mig::MigCatalog::Builtin().MatchProduct(product, memory_mib);
}

NodeGpu DescribeNodeGpu(const std::string& product, int64_t memory_mib, const std::string& mig_capable_label) {
  NodeGpu g;
  g.product = product;
  g.model = IdentifyGpuModel(product, memory_mib);
  g.mig_capable = mig_capable_label.empty() ? (g.model != nullptr && g.model->mig_capable)
                                            : mig_capable_label == "true";
  return g;
}

Outcome<bool> ValidateGpuLayout(const mig::GpuModel& model, const std::map<std::string, int>& devices) {
  // Counts come from a ConfigMap and may be huge: the count rules are checked
  // on the counts before the instances are listed one by one.  A model
  // without MIG and an unknown profile get PlaceLayout's own errors.
  auto place_error = [&](const std::vector<std::string>& profiles) -> Outcome<bool> {
    auto placed = mig::PlaceLayout(model, profiles);
    if (!placed.ok()) return ApiError::BadRequest(placed.status().message());
    return true;
  };
  if (!model.mig_capable) return place_error({});
  std::vector<int> counts(model.profiles.size(), 0);
  for (const auto& [name, n] : devices) {
    int i = mig::ProfileIndex(model, name);
    if (i < 0) return place_error({name});
    counts[static_cast<size_t>(i)] = n;
  }
  Status rules = mig::CheckCountRules(model, counts);
  if (!rules.ok()) return ApiError::BadRequest(rules.message());
  std::vector<std::string> instances;
  for (const auto& [name, n] : devices) instances.insert(instances.end(), static_cast<size_t>(n), name);
  return place_error(instances);
}

Outcome<std::vector<GpuMigTarget>> PlanMigConfig(const std::vector<MigConfigEntry>& entries, int gpu_count,
                                                  const NodeGpu& gpu_info) {
  std::vector<GpuMigTarget> out(static_cast<size_t>(std::max(0, gpu_count)));
  for (int gpu = 0; gpu < gpu_count; ++gpu) {
    const MigConfigEntry* chosen = nullptr;
    for (const auto& e : entries) {
      bool selected = e.all_devices || std::find(e.devices.begin(), e.devices.end(), gpu) != e.devices.end();
      if (selected && !e.device_filter.empty()) selected = FilterSelects(e.device_filter, gpu_info.model);
      if (selected) chosen = &e;  // later entries win, as mig-parted applies them in order
    }
    if (chosen == nullptr || !chosen->mig_enabled) continue;
    const std::string at = "GPU " + std::to_string(gpu);
    if (gpu_info.model == nullptr) {
      return ApiError::BadRequest(at + ": GPU model \"" + gpu_info.product + "\" is not in the MIG catalog");
    }
    if (!gpu_info.mig_capable) {
      return ApiError::BadRequest(at + " (" + gpu_info.model->id + ", \"" + gpu_info.product + "\") is not MIG capable");
    }
    auto ok = ValidateGpuLayout(*gpu_info.model, chosen->mig_devices);
    if (!ok.ok()) return ApiError::BadRequest(at + " (" + gpu_info.model->id + "): " + ok.error().message);
    GpuMigTarget& t = out[static_cast<size_t>(gpu)];
    t.mig_enabled = true;
    for (const auto& [name, n] : chosen->mig_devices) {
      if (n > 0) t.devices[name] = n;
    }
  }
  for (const auto& e : entries) {
    for (int idx : e.devices) {
      if (idx >= gpu_count) {
        return ApiError::BadRequest("device index " + std::to_string(idx) + " out of range (node has " +
                                    std::to_string(gpu_count) + " GPUs)");
      }
    }
  }
  return out;
}

Outcome<NodeMigResult> ApplyMigConfig(const std::vector<MigConfigEntry>& entries, int gpu_count,
                                      const NodeGpu& gpu_info) {
  auto plan = PlanMigConfig(entries, gpu_count, gpu_info);
  if (!plan.ok()) return plan.error();
  NodeMigResult r;
  for (const auto& t : plan.value()) {
    if (!t.mig_enabled) {
      ++r.full_gpus;
      continue;
    }
    ++r.mig_gpus;
    for (const auto& [name, n] : t.devices) r.devices[name] += n;
  }
  return r;
}

}  // namespace kubeon::kubesim
