// See mig_parted.h.
#include "mig_parted.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <regex>

#include <yaml-cpp/yaml.h>

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

std::vector<int> Range(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

GpuModel EightSlice(const std::string& name, const std::vector<std::string>& n,
                    std::vector<std::string> ids) {
  // n = {1g small, 1g double, 2g, 3g, 4g, 7g}
  GpuModel m;
  m.name = name;
  m.profiles = {{n[0], 1, 1, 7, Range(7)},      {n[0] + "+me", 1, 1, 1, Range(7)},
                {n[1], 1, 2, 4, {0, 2, 4, 6}},  {n[2], 2, 2, 3, {0, 2, 4}},
                {n[3], 3, 4, 2, {0, 4}},        {n[4], 4, 4, 1, {0}},
                {n[5], 7, 8, 1, {0}}};
  m.device_ids = std::move(ids);
  return m;
}

const std::vector<GpuModel>& Models() {
  static const std::vector<GpuModel> models = [] {
    std::vector<GpuModel> v;
    v.push_back(EightSlice("A100-40GB", {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"},
                           {"0X20B010DE", "0X20B110DE", "0X20F110DE", "0X20F610DE"}));
    v.push_back(EightSlice("80GB", {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
                           {"0X233010DE", "0X233110DE", "0X232210DE", "0X20B210DE", "0X20B510DE",
                            "0X20F310DE", "0X20F510DE", "0X232410DE"}));
    v.push_back(EightSlice("H100-NVL", {"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"},
                           {"0X232110DE", "0X233A10DE"}));
    v.push_back(EightSlice("96GB", {"1g.12gb", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb"},
                           {"0X234210DE", "0X233D10DE", "0X20B610DE", "0X232910DE"}));
    v.push_back(EightSlice("H200", {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"},
                           {"0X233510DE", "0X233B10DE"}));
    v.push_back(EightSlice("GH200-144G", {"1g.18gb", "1g.36gb", "2g.36gb", "3g.72gb", "4g.72gb", "7g.144gb"},
                           {"0X234810DE"}));
    v.push_back(EightSlice("B200", {"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"},
                           {"0X290110DE"}));
    GpuModel a30;
    a30.name = "A30";
    a30.memory_slices = 4;
    a30.compute_slices = 4;
    a30.profiles = {{"1g.6gb", 1, 1, 4, Range(4)},        {"1g.6gb+me", 1, 1, 1, Range(4)},
                    {"2g.12gb", 2, 2, 2, {0, 2}},         {"2g.12gb+me", 2, 2, 1, {0, 2}},
                    {"4g.24gb", 4, 4, 1, {0}}};
    a30.device_ids = {"0X20B710DE"};
    v.push_back(a30);
    return v;
  }();
  return models;
}

// Memory (GB) of the full-GPU profile of an 8-slice model.
double FullMemoryGb(const GpuModel& m) {
  const std::string& n = m.profiles.back().name;  // "7g.80gb"
  return std::atof(n.substr(n.find('.') + 1).c_str());
}

std::string BaseProduct(const std::string& product) {
  std::string p = Upper(product);
  for (const char* suffix : {"-SHARED", "-MIG-"}) {
    size_t at = p.find(suffix);
    if (at != std::string::npos) p = p.substr(0, at);
  }
  return p;
}

bool Contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

const MigProfile* GpuModel::Find(const std::string& profile) const {
  for (const auto& p : profiles) {
    if (p.name == profile) return &p;
  }
  return nullptr;
}

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

bool IsMigCapableProduct(const std::string& product) {
  std::string p = BaseProduct(product);
  for (const char* fam : {"A100", "A800", "A30", "H100", "H800", "H200", "H20", "GH200", "B200", "GB200"}) {
    if (Contains(p, fam)) return true;
  }
  return false;
}

const GpuModel* IdentifyGpuModel(const std::string& product, int64_t memory_mib) {
  std::string p = BaseProduct(product);
  if (!IsMigCapableProduct(p)) return nullptr;
  const auto& models = Models();
  if (Contains(p, "A30")) return &models.back();
  double gb = 0;
  if (memory_mib > 0) {
    gb = static_cast<double>(memory_mib) / 1024.0;
  } else {
    std::smatch m;
    static const std::regex kGb("([0-9]+)GB");
    if (std::regex_search(p, m, kGb)) gb = std::atof(m[1].str().c_str());
    else if (Contains(p, "NVL")) gb = 94;
    else if (Contains(p, "GH200")) gb = 96;
    else if (Contains(p, "H200")) gb = 141;
    else if (Contains(p, "B200")) gb = 180;
    else if (Contains(p, "H20")) gb = 96;
    else if (Contains(p, "H100") || Contains(p, "H800")) gb = 80;
    else gb = 40;
  }
  const GpuModel* best = nullptr;
  double best_diff = 1e9;
  for (const auto& m : models) {
    if (m.name == "A30") continue;
    double diff = std::fabs(FullMemoryGb(m) - gb);
    if (diff < best_diff) best = &m, best_diff = diff;
  }
  return best_diff <= 0.15 * gb ? best : nullptr;
}

Outcome<bool> ValidateGpuLayout(const GpuModel* model, const std::map<std::string, int>& devices) {
  if (model == nullptr) {
    static const std::regex kName("^([1-7])g\\.[0-9]+gb(\\+me|\\+gfx|-me)?$");
    int compute = 0, count = 0;
    for (const auto& [name, n] : devices) {
      std::smatch m;
      if (!std::regex_match(name, m, kName)) return ApiError::BadRequest("\"" + name + "\" is not a MIG profile name");
      int g = std::atoi(m[1].str().c_str());
      if (g == 5 || g == 6) return ApiError::BadRequest("\"" + name + "\" is not a MIG profile name");
      compute += g * n;
      count += n;
    }
    if (count > 7) return ApiError::BadRequest("more than 7 MIG instances on one GPU");
    if (compute > 7) return ApiError::BadRequest("more than 7 compute slices on one GPU");
    return true;
  }
  std::vector<const MigProfile*> instances;
  int compute = 0;
  for (const auto& [name, n] : devices) {
    const MigProfile* p = model->Find(name);
    if (p == nullptr) {
      return ApiError::BadRequest("profile \"" + name + "\" does not exist on " + model->name);
    }
    if (n > p->max_instances) {
      return ApiError::BadRequest(std::to_string(n) + " x " + name + " exceeds the maximum of " +
                                  std::to_string(p->max_instances) + " on " + model->name);
    }
    for (int i = 0; i < n; ++i) instances.push_back(p);
    compute += p->compute_slices * n;
  }
  if (compute > model->compute_slices) {
    return ApiError::BadRequest("layout needs " + std::to_string(compute) + " compute slices, " +
                                model->name + " has " + std::to_string(model->compute_slices));
  }
  std::sort(instances.begin(), instances.end(), [](const MigProfile* a, const MigProfile* b) {
    return a->memory_slices > b->memory_slices;
  });
  std::function<bool(size_t, unsigned)> place = [&](size_t i, unsigned used) {
    if (i == instances.size()) return true;
    const MigProfile* p = instances[i];
    for (int start : p->starts) {
      unsigned mask = ((1u << p->memory_slices) - 1u) << start;
      if (start + p->memory_slices > model->memory_slices || (used & mask) != 0) continue;
      if (place(i + 1, used | mask)) return true;
    }
    return false;
  };
  if (!place(0, 0)) return ApiError::BadRequest("instances cannot be placed without overlapping memory slices on " + model->name);
  return true;
}

Outcome<NodeMigResult> ApplyMigConfig(const std::vector<MigConfigEntry>& entries, int gpu_count,
                                      const GpuModel* model, bool mig_capable) {
  NodeMigResult r;
  for (int gpu = 0; gpu < gpu_count; ++gpu) {
    const MigConfigEntry* chosen = nullptr;
    for (const auto& e : entries) {
      bool selected = e.all_devices || std::find(e.devices.begin(), e.devices.end(), gpu) != e.devices.end();
      if (selected && !e.device_filter.empty()) {
        selected = false;
        for (const auto& f : e.device_filter) {
          if (model != nullptr && std::find(model->device_ids.begin(), model->device_ids.end(), f) != model->device_ids.end()) {
            selected = true;
          }
        }
      }
      if (selected) chosen = &e;  // later entries win, as mig-parted applies them in order
    }
    if (chosen == nullptr || !chosen->mig_enabled) {
      ++r.full_gpus;
      continue;
    }
    if (!mig_capable) return ApiError::BadRequest("GPU " + std::to_string(gpu) + " is not MIG capable");
    auto ok = ValidateGpuLayout(model, chosen->mig_devices);
    if (!ok.ok()) return ApiError::BadRequest("GPU " + std::to_string(gpu) + ": " + ok.error().message);
    ++r.mig_gpus;
    for (const auto& [name, n] : chosen->mig_devices) r.devices[name] += n;
  }
  for (const auto& e : entries) {
    for (int idx : e.devices) {
      if (idx >= gpu_count) {
        return ApiError::BadRequest("device index " + std::to_string(idx) + " out of range (node has " +
                                    std::to_string(gpu_count) + " GPUs)");
      }
    }
  }
  return r;
}

}  // namespace kubeon::kubesim
