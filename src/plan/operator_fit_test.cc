// Tests of operator_fit.h: where the operator runs, which mig-parted
// ConfigMap is in use, and each warning about an install the plan does not fit.
#include "plan/operator_fit.h"

#include <gtest/gtest.h>

namespace kubeon::plan {
namespace {

model::GpuOperatorPolicy GoodPolicy() {
  model::GpuOperatorPolicy cp;
  cp.name = "cluster-policy";
  cp.namespace_ = "nvidia-gpu-operator";
  cp.mig_strategy = "mixed";
  cp.mig_config_name = "kubeon-mig-parted-config";
  cp.device_plugin_config_name = "kubeon-device-plugin-config";
  cp.device_plugin_config_default = "default";
  return cp;
}

Plan PlanWith(const std::string& method) {
  Plan p;
  NodePlan n;
  n.name = "n1";
  n.method = method;
  p.nodes.push_back(n);
  return p;
}

bool Has(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(OperatorFit, NamespaceFromFlagThenClusterPolicyThenDefault) {
  model::Cluster c;
  PlannerOptions o;
  EXPECT_EQ(OperatorNamespace(c, o), "gpu-operator");
  c.gpu_operator = GoodPolicy();
  EXPECT_EQ(OperatorNamespace(c, o), "nvidia-gpu-operator");
  o.operator_namespace = "gpu";
  EXPECT_EQ(OperatorNamespace(c, o), "gpu");
}

TEST(OperatorFit, CurrentMigConfigMapIsTheOneTheClusterPolicyNames) {
  model::Cluster c;
  PlannerOptions o;
  o.operator_namespace = "gpu-operator";
  c.config_maps.push_back({"gpu-operator", "default-mig-parted-config", {{"config.yaml", "default"}}});
  c.config_maps.push_back({"gpu-operator", "kubeon-mig-parted-config", {{"config.yaml", "ours"}}});
  c.config_maps.push_back({"gpu-operator", "custom", {{"config.yaml", "custom"}}});
  c.config_maps.push_back({"other", "custom", {{"config.yaml", "elsewhere"}}});
  model::Node n;
  n.labels["nvidia.com/mig.config"] = "all-1g.10gb";
  c.nodes.push_back(n);
  EXPECT_EQ(CurrentOperatorState(c, o).mig_config_yaml, "ours");
  c.gpu_operator = GoodPolicy();
  c.gpu_operator->mig_config_name = "custom";
  OperatorState s = CurrentOperatorState(c, o);
  EXPECT_EQ(s.mig_config_yaml, "custom");
  EXPECT_EQ(s.mig_config_source, "gpu-operator/custom");
  EXPECT_EQ(s.node_mig_configs, (std::set<std::string>{"all-1g.10gb"}));
  c.config_maps.erase(c.config_maps.begin() + 1, c.config_maps.end());
  EXPECT_EQ(CurrentOperatorState(c, o).mig_config_yaml, "default");
  c.config_maps.clear();
  EXPECT_EQ(CurrentOperatorState(c, o).mig_config_yaml, "");
}

TEST(OperatorFit, NoWarningWhenNothingChangesOrTheInstallFits) {
  model::Cluster c;
  EXPECT_TRUE(FitWarnings(PlanWith("none"), c, PlannerOptions{}).empty());
  c.gpu_operator = GoodPolicy();
  EXPECT_TRUE(FitWarnings(PlanWith("mig"), c, PlannerOptions{}).empty());
  EXPECT_TRUE(FitWarnings(PlanWith("time-slicing"), c, PlannerOptions{}).empty());
}

TEST(OperatorFit, MissingClusterPolicyIsSaid) {
  model::Cluster c;
  const auto w = FitWarnings(PlanWith("mig"), c, PlannerOptions{});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("no GPU Operator ClusterPolicy"), std::string::npos);
  EXPECT_NE(w[0].find("migManager.config.name kubeon-mig-parted-config"), std::string::npos);
  const auto ts = FitWarnings(PlanWith("time-slicing"), c, PlannerOptions{});
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].find("mig.strategy"), std::string::npos) << ts[0];
  EXPECT_NE(ts[0].find("devicePlugin.config.name kubeon-device-plugin-config"), std::string::npos);
}

TEST(OperatorFit, EachMismatchIsAWarning) {
  model::Cluster c;
  c.gpu_operator = GoodPolicy();
  c.gpu_operator->mig_strategy = "single";
  c.gpu_operator->mig_config_name = "";
  c.gpu_operator->with_reboot = true;
  auto w = FitWarnings(PlanWith("mig"), c, PlannerOptions{});
  EXPECT_TRUE(Has(w, "spec.mig.strategy is \"single\"")) << w.size();
  EXPECT_TRUE(Has(w, "spec.migManager.config.name is unset (the operator's generated default-mig-parted-config)"));
  EXPECT_TRUE(Has(w, "WITH_REBOOT"));
  EXPECT_EQ(w.size(), 3u);
  c.gpu_operator = GoodPolicy();
  c.gpu_operator->device_plugin_config_name = "time-slicing-config";
  c.gpu_operator->device_plugin_config_default = "any";
  w = FitWarnings(PlanWith("time-slicing"), c, PlannerOptions{});
  EXPECT_TRUE(Has(w, "spec.devicePlugin.config.name is \"time-slicing-config\""));
  EXPECT_TRUE(Has(w, "spec.devicePlugin.config.default is \"any\""));
  EXPECT_EQ(w.size(), 2u);
}

}  // namespace
}  // namespace kubeon::plan
