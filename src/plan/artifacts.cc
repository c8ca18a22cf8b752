// See artifacts.h.
#include "plan/artifacts.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "model/json_writer.h"
#include "plan/sha256.h"

namespace kubeon::plan {
namespace {

std::string DeviceList(const std::vector<int>& devices) {
  std::string s = "[";
  for (size_t i = 0; i < devices.size(); ++i) s += (i ? ", " : "") + std::to_string(devices[i]);
  return s + "]";
}

// The mig-parted entries (list items, indented under the config name) for one node.
std::string MigEntries(const NodePlan& node) {
  // Group consecutive GPUs with the same layout.
  std::vector<std::pair<std::vector<std::string>, std::vector<int>>> groups;
  int mig_gpus = 0;
  for (const auto& g : node.gpus) {
    if (!g.mig_enabled) continue;
    ++mig_gpus;
    if (!groups.empty() && groups.back().first == g.mig_devices) {
      groups.back().second.push_back(g.index);
    } else {
      groups.push_back({g.mig_devices, {g.index}});
    }
  }
  std::ostringstream out;
  for (const auto& [layout, devices] : groups) {
    out << "    - devices: " << DeviceList(devices) << "\n";
    out << "      mig-enabled: true\n";
    out << "      mig-devices:\n";
    std::vector<std::pair<std::string, int>> counts;
    for (const auto& p : layout) {
      if (!counts.empty() && counts.back().first == p) {
        ++counts.back().second;
      } else {
        counts.push_back({p, 1});
      }
    }
    for (const auto& [p, c] : counts) out << "        \"" << p << "\": " << c << "\n";
  }
  std::vector<int> rest;
  for (int i = mig_gpus; i < node.gpu_count; ++i) rest.push_back(i);
  if (!rest.empty()) {
    out << "    - devices: " << DeviceList(rest) << "\n";
    out << "      mig-enabled: false\n";
  }
  return out.str();
}

std::string Indent(const std::string& text, const std::string& prefix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += line.empty() ? "\n" : prefix + line + "\n";
    start = end + 1;
  }
  return out;
}

// A container's requests or limits (member `key`) as the patch changes them:
// the whole-GPU resource removed (null) and one of `to` added.  Written only
// for a map that holds nvidia.com/gpu.
void ResourcePatch(model::JsonWriter& j, std::string_view key, const std::string& to) {
  j.Key(key);
  j.BeginObject();
  const std::string_view gpu = model::kGpuResource;
  if (to == gpu) {
    j.Field(gpu, "1");
  } else if (gpu < to) {
    j.Key(gpu), j.Null(), j.Field(to, "1");
  } else {
    j.Field(to, "1"), j.Key(gpu), j.Null();
  }
  j.EndObject();
}

// One node selector requirement: {"key", "operator", "values" when any}.
void Requirement(model::JsonWriter& j, const std::string& key, const std::string& op,
                 const std::vector<std::string>& values) {
  j.BeginObject();
  j.Field("key", key);
  j.Field("operator", op);
  if (!values.empty()) j.Field("values", values);
  j.EndObject();
}

// The pod's required node selector terms, each with the product requirement
// added (terms are ORed, so every one of them must carry it), or one term with
// only that requirement.
void NodeSelectorTerms(model::JsonWriter& j, const model::Pod& pod, const std::vector<std::string>& products) {
  const auto product = [&] { Requirement(j, "nvidia.com/gpu.product", "In", products); };
  j.Key("nodeSelectorTerms");
  j.BeginArray();
  for (const auto& t : pod.required_node_terms) {
    j.BeginObject();
    j.Key("matchExpressions");
    j.BeginArray();
    bool has_product = false;
    for (const auto& e : t.match_expressions) {
      Requirement(j, e.key, e.op, e.values);
      has_product = has_product || e.key == "nvidia.com/gpu.product";
    }
    if (!has_product) product();
    j.EndArray();
    if (!t.match_fields.empty()) {
      j.Key("matchFields");
      j.BeginArray();
      for (const auto& f : t.match_fields) Requirement(j, f.key, f.op, f.values);
      j.EndArray();
    }
    j.EndObject();
  }
  if (pod.required_node_terms.empty()) {
    j.BeginObject();
    j.Key("matchExpressions");
    j.BeginArray();
    product();
    j.EndArray();
    j.EndObject();
  }
  j.EndArray();
}

// The strategic merge patch of a workload's pod template, as
// nlohmann::json::dump() prints it (compact, keys sorted): the GPU containers'
// resources and, for a pool of known products, the product node affinity.
std::string PatchFor(const WorkloadForArtifacts& w) {
  const std::string to = w.decision == Decision::kMig ? std::string(model::kMigResourcePrefix) + w.slice
                                                       : std::string(model::kSharedGpuResource);
  const auto holds_gpus = [](const model::ContainerResources& c) {
    return c.requests.count(model::kGpuResource) || c.limits.count(model::kGpuResource);
  };
  // The containers (init == false) or init containers that hold GPUs, in order.
  const auto containers = [&](model::JsonWriter& j, std::string_view key, bool init) {
    const auto& all = w.pod->containers;
    if (std::none_of(all.begin(), all.end(), [&](const auto& c) { return c.init == init && holds_gpus(c); })) return;
    j.Key(key);
    j.BeginArray();
    for (const auto& c : all) {
      if (c.init != init || !holds_gpus(c)) continue;
      j.BeginObject();
      j.Field("name", c.name);
      j.Key("resources");
      j.BeginObject();
      if (c.limits.count(model::kGpuResource)) ResourcePatch(j, "limits", to);
      if (c.requests.count(model::kGpuResource)) ResourcePatch(j, "requests", to);
      j.EndObject();
      j.EndObject();
    }
    j.EndArray();
  };
  std::string out;
  model::JsonWriter j(&out, model::JsonWriter::kCompact);
  j.BeginObject();
  j.Key("spec");
  j.BeginObject();
  j.Key("template");
  j.BeginObject();
  j.Key("spec");
  j.BeginObject();
  if (!w.product_labels.empty()) {
    j.Key("affinity");
    j.BeginObject();
    j.Key("nodeAffinity");
    j.BeginObject();
    j.Key("requiredDuringSchedulingIgnoredDuringExecution");
    j.BeginObject();
    NodeSelectorTerms(j, *w.pod, w.product_labels);
    j.EndObject();
    j.EndObject();
    j.EndObject();
  }
  containers(j, "containers", false);
  containers(j, "initContainers", true);
  j.EndObject();
  j.EndObject();
  j.EndObject();
  j.EndObject();
  return out;
}

}  // namespace

std::string DevicePluginDefaultConfig() { return "version: v1\n"; }

std::string DevicePluginConfig(int replicas) {
  std::ostringstream out;
  out << "version: v1\n"
      << "sharing:\n"
      << "  timeSlicing:\n"
      << "    renameByDefault: true\n"
      << "    failRequestsGreaterThanOne: true\n"
      << "    resources:\n"
      << "      - name: nvidia.com/gpu\n"
      << "        replicas: " << replicas << "\n";
  return out.str();
}

std::string ConfigMapYaml(const std::string& name, const std::string& namespace_,
                          const std::map<std::string, std::string>& data) {
  std::ostringstream out;
  out << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " << name << "\n  namespace: " << namespace_
      << "\n  labels:\n    app.kubernetes.io/managed-by: kubeon-gpu\ndata:\n";
  for (const auto& [k, v] : data) out << "  " << k << ": |\n" << Indent(v, "    ");
  return out.str();
}

namespace {

// The configs of an existing mig-parted config.yaml, re-emitted as block
// YAML under `mig-configs:` (name -> its entries), in file order; "" names and
// an unreadable file are reported through *error.
std::vector<std::pair<std::string, std::string>> ExistingMigConfigs(const std::string& yaml, std::string* error) {
  std::vector<std::pair<std::string, std::string>> out;
  try {
    const YAML::Node doc = YAML::Load(yaml);
    const YAML::Node configs = doc["mig-configs"];
    if (!configs || !configs.IsMap()) {
      *error = "no mig-configs map";
      return {};
    }
    for (const auto& kv : configs) {
      const std::string name = kv.first.as<std::string>();
      YAML::Emitter e;
      e << kv.second;
      if (!e.good()) {
        *error = "config " + name + ": " + e.GetLastError();
        return {};
      }
      out.push_back({name, Indent(std::string(e.c_str()) + "\n", "    ")});
    }
  } catch (const YAML::Exception& e) {
    *error = e.what();
    return {};
  }
  return out;
}

}  // namespace

Artifacts BuildArtifacts(Plan& plan, const std::vector<WorkloadForArtifacts>& workloads, const PlannerOptions& given,
                         const OperatorState& state) {
  PlannerOptions options = given;
  if (options.operator_namespace.empty()) options.operator_namespace = model::kDefaultOperatorNamespace;
  Artifacts a;
  std::map<std::string, std::string> configs;  // name -> entries
  std::map<std::string, std::string> name_of;  // entries -> name (nodes often share a layout)
  for (auto& node : plan.nodes) {
    if (node.method == "mig") {
      const std::string entries = MigEntries(node);
      auto known = name_of.find(entries);
      if (known == name_of.end()) known = name_of.emplace(entries, ContentName(entries)).first;
      const std::string& name = known->second;
      configs.emplace(name, entries);
      node.labels["nvidia.com/mig.config"] = name;
    } else if (node.method == "time-slicing" && node.time_slicing_replicas) {
      const std::string body = DevicePluginConfig(*node.time_slicing_replicas);
      const std::string key = ContentName(body);
      a.device_plugin_configs.emplace(key, body);
      node.labels["nvidia.com/device-plugin.config"] = key;
    }
  }
  if (!configs.empty()) {
    std::vector<std::pair<std::string, std::string>> existing;
    if (!state.mig_config_yaml.empty()) {
      std::string error;
      existing = ExistingMigConfigs(state.mig_config_yaml, &error);
      if (!error.empty()) {
        plan.warnings.push_back("ConfigMap " + state.mig_config_source + " key config.yaml is not a mig-parted config (" +
                                error + "); the generated mig-parted ConfigMap holds only all-disabled and this plan's configs");
      }
    }
    std::set<std::string> defined;
    std::ostringstream out;
    out << "version: v1\nmig-configs:\n";
    bool first = true;
    auto add = [&](const std::string& name, const std::string& entries) {
      if (!defined.insert(name).second) return;
      out << (first ? "" : "\n") << "  " << name << ":\n" << entries;
      first = false;
    };
    for (const auto& [name, entries] : existing) {
      if (!configs.count(name)) add(name, entries);
    }
    add("all-disabled", "    - devices: all\n      mig-enabled: false\n");
    for (const auto& [name, entries] : configs) add(name, entries);
    a.mig_parted_config = out.str();
    a.mig_parted_configmap = ConfigMapYaml(options.mig_configmap_name, options.operator_namespace,
                                           {{"config.yaml", a.mig_parted_config}});
    for (const auto& name : state.node_mig_configs) {
      if (defined.count(name)) continue;
      plan.warnings.push_back(
          "a node selects MIG config \"" + name + "\" (label nvidia.com/mig.config), which the generated mig-parted "
          "ConfigMap does not define" +
          (state.mig_config_yaml.empty()
               ? std::string(" (the snapshot has no operator ConfigMap to start from: plan --from-cluster, or add "
                             "`kubectl get configmaps -n ") + options.operator_namespace + " -o json` to the snapshot)"
               : std::string(" (nor does ") + state.mig_config_source + ")") +
          "; mig-manager fails on such a node when its pod restarts");
    }
  }
  if (!a.device_plugin_configs.empty()) {
    std::map<std::string, std::string> data = a.device_plugin_configs;
    data.emplace("default", DevicePluginDefaultConfig());
    a.device_plugin_configmap = ConfigMapYaml(options.device_plugin_configmap_name, options.operator_namespace, data);
  }
  for (const auto& w : workloads) {
    if (w.decision == Decision::kUnchanged || w.pod == nullptr) continue;
    a.workload_patches.push_back({w.ref.namespace_, w.ref.kind, w.ref.name, "strategic", PatchFor(w)});
  }
  return a;
}

}  // namespace kubeon::plan
