// See operator_fit.h.
#include "plan/operator_fit.h"

namespace kubeon::plan {

std::string OperatorNamespace(const model::Cluster& cluster, const PlannerOptions& options) {
  if (!options.operator_namespace.empty()) return options.operator_namespace;
  if (cluster.gpu_operator && !cluster.gpu_operator->namespace_.empty()) return cluster.gpu_operator->namespace_;
  return model::kDefaultOperatorNamespace;
}

OperatorState CurrentOperatorState(const model::Cluster& cluster, const PlannerOptions& options) {
  OperatorState state;
  std::vector<std::string> names;
  if (cluster.gpu_operator && !cluster.gpu_operator->mig_config_name.empty()) {
    names.push_back(cluster.gpu_operator->mig_config_name);
  }
  names.push_back(options.mig_configmap_name);
  names.push_back(kOperatorDefaultMigConfigMap);
  for (const auto& name : names) {
    const model::ConfigMap* cm = cluster.FindConfigMap(options.operator_namespace, name);
    if (cm == nullptr) continue;
    auto it = cm->data.find("config.yaml");
    if (it == cm->data.end()) continue;
    state.mig_config_yaml = it->second;
    state.mig_config_source = options.operator_namespace + "/" + name;
    break;
  }
  for (const auto& n : cluster.nodes) {
    auto it = n.labels.find("nvidia.com/mig.config");
    if (it != n.labels.end() && !it->second.empty()) state.node_mig_configs.emplace(it->second);
  }
  return state;
}

std::vector<std::string> FitWarnings(const Plan& plan, const model::Cluster& cluster, const PlannerOptions& options) {
  bool mig = false, shared = false;
  for (const auto& n : plan.nodes) {
    mig = mig || n.method == "mig";
    shared = shared || n.method == "time-slicing";
  }
  std::vector<std::string> out;
  if (!mig && !shared) return out;
  if (!cluster.gpu_operator) {
    std::string needs;
    if (mig) needs = "mig.strategy mixed, migManager.config.name " + options.mig_configmap_name;
    if (shared) needs += (needs.empty() ? "" : ", ") + std::string("devicePlugin.config.name ") +
                         options.device_plugin_configmap_name;
    out.push_back("the snapshot has no GPU Operator ClusterPolicy (nvidia.com/v1), so its fit is unchecked: it must "
                  "run with " + needs + " (plan --from-cluster reads it)");
    return out;
  }
  const model::GpuOperatorPolicy& cp = *cluster.gpu_operator;
  const std::string who = "ClusterPolicy " + cp.name + ": ";
  auto shown = [](const std::string& v, const std::string& unset) { return v.empty() ? unset : "\"" + v + "\""; };
  if (mig && cp.mig_strategy != "mixed") {
    out.push_back(who + "spec.mig.strategy is " + shown(cp.mig_strategy, "unset (single)") +
                  "; the plan's nvidia.com/mig-<profile> resources need \"mixed\"");
  }
  if (mig && cp.mig_config_name != options.mig_configmap_name) {
    out.push_back(who + "spec.migManager.config.name is " +
                  shown(cp.mig_config_name, "unset (the operator's generated " +
                                                std::string(kOperatorDefaultMigConfigMap) + ")") +
                  "; apply the generated ConfigMap, then set it to \"" + options.mig_configmap_name +
                  "\", or mig-manager never reads this plan's MIG configs");
  }
  if (mig && cp.with_reboot) {
    out.push_back(who + "spec.migManager.env WITH_REBOOT is \"true\": a MIG mode change that fails reboots the "
                        "node, with every pod on it");
  }
  if (shared && cp.device_plugin_config_name != options.device_plugin_configmap_name) {
    out.push_back(who + "spec.devicePlugin.config.name is " + shown(cp.device_plugin_config_name, "unset") +
                  "; set it to \"" + options.device_plugin_configmap_name +
                  "\" (and config.default to \"default\") after applying the generated ConfigMap, or the device "
                  "plugin never reads the time-slicing configs");
  }
  if (shared && !cp.device_plugin_config_default.empty() && cp.device_plugin_config_default != "default" &&
      !plan.artifacts.device_plugin_configs.count(cp.device_plugin_config_default)) {
    out.push_back(who + "spec.devicePlugin.config.default is \"" + cp.device_plugin_config_default +
                  "\", a key the generated ConfigMap lacks: every unlabelled node's device plugin would fail; set "
                  "it to \"default\"");
  }
  return out;
}

}  // namespace kubeon::plan
