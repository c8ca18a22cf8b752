// Golden tests of the artifacts against NVIDIA's formats: the mig-parted
// config the GPU Operator's mig-manager reads and the device plugin's
// time-slicing config, compared with NVIDIA's own files (testdata/nvidia/,
// copied unchanged from the GPU Operator) key by key, plus exact bytes.
#include "plan/artifacts.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "mig/layout.h"
#include "plan/sha256.h"

namespace kubeon::plan {
namespace {

std::string ReadFile(const std::string& rel) {
  std::ifstream in(std::string(KUBEON_SOURCE_DIR) + "/" + rel);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Plan TwoNodePlan() {
  Plan p;
  NodePlan mig;
  mig.name = "a100-1";
  mig.gpu_model = "A100-40GB";
  mig.method = "mig";
  mig.gpu_count = 8;
  for (int i = 0; i < 3; ++i) {
    GpuAfter g;
    g.index = i;
    g.mig_enabled = true;
    g.mig_devices = i < 2 ? std::vector<std::string>{"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}
                          : std::vector<std::string>{"1g.5gb"};
    mig.gpus.push_back(g);
  }
  p.nodes.push_back(mig);
  NodePlan ts;
  ts.name = "l4-1";
  ts.gpu_model = "L4";
  ts.method = "time-slicing";
  ts.gpu_count = 4;
  ts.time_slicing_replicas = 3;
  p.nodes.push_back(ts);
  return p;
}

TEST(Artifacts, MigPartedConfigExactBytes) {
  Plan p = TwoNodePlan();
  Artifacts a = BuildArtifacts(p, {}, PlannerOptions{});
  const std::string name(p.nodes[0].labels.at("nvidia.com/mig.config"));
  EXPECT_EQ(name.rfind("kubeon-", 0), 0u) << name;
  EXPECT_EQ(name.size(), std::string("kubeon-").size() + 10);
  EXPECT_LE(name.size(), 63u);  // a label value
  EXPECT_EQ(a.mig_parted_config,
            "version: v1\n"
            "mig-configs:\n"
            "  all-disabled:\n"
            "    - devices: all\n"
            "      mig-enabled: false\n"
            "\n"
            "  " + name + ":\n"
            "    - devices: [0, 1]\n"
            "      mig-enabled: true\n"
            "      mig-devices:\n"
            "        \"3g.20gb\": 1\n"
            "        \"2g.10gb\": 1\n"
            "        \"1g.5gb\": 2\n"
            "    - devices: [2]\n"
            "      mig-enabled: true\n"
            "      mig-devices:\n"
            "        \"1g.5gb\": 1\n"
            "    - devices: [3, 4, 5, 6, 7]\n"
            "      mig-enabled: false\n");
  EXPECT_EQ(p.nodes[1].labels.at("nvidia.com/device-plugin.config"), ContentName(DevicePluginConfig(3)));
  EXPECT_EQ(a.device_plugin_configs.at(ContentName(DevicePluginConfig(3))), DevicePluginConfig(3));
}

// Our mig-parted config uses exactly the keys and value types of NVIDIA's default config.
TEST(Artifacts, MigPartedConfigMatchesNvidiaSchema) {
  Plan p = TwoNodePlan();
  Artifacts a = BuildArtifacts(p, {}, PlannerOptions{});
  YAML::Node nvidia_cm = YAML::Load(ReadFile("testdata/nvidia/gpu-operator-default-mig-parted-config.yaml"));
  YAML::Node nvidia = YAML::Load(nvidia_cm["data"]["config.yaml"].as<std::string>());
  YAML::Node ours = YAML::Load(a.mig_parted_config);
  EXPECT_EQ(ours["version"].as<std::string>(), nvidia["version"].as<std::string>());
  ASSERT_TRUE(ours["mig-configs"].IsMap());
  std::set<std::string> nvidia_keys;
  for (const auto& cfg : nvidia["mig-configs"]) {
    for (const auto& entry : cfg.second) {
      for (const auto& kv : entry) nvidia_keys.insert(kv.first.as<std::string>());
    }
  }
  EXPECT_TRUE(nvidia_keys.count("mig-devices"));
  for (const auto& cfg : ours["mig-configs"]) {
    ASSERT_TRUE(cfg.second.IsSequence());
    for (const auto& entry : cfg.second) {
      for (const auto& kv : entry) EXPECT_TRUE(nvidia_keys.count(kv.first.as<std::string>())) << kv.first.as<std::string>();
      EXPECT_TRUE(entry["devices"].IsSequence() || entry["devices"].as<std::string>() == "all");
      (void)entry["mig-enabled"].as<bool>();
      if (entry["mig-devices"]) {
        for (const auto& d : entry["mig-devices"]) EXPECT_GT(d.second.as<int>(), 0);
      }
    }
  }
  // The same config as NVIDIA's all-disabled entry.
  EXPECT_EQ(YAML::Dump(ours["mig-configs"]["all-disabled"]), YAML::Dump(nvidia["mig-configs"]["all-disabled"]));
}

// Every layout NVIDIA ships in its default config is valid for our catalog's model
// (matched through the device-filter PCI IDs): the validator agrees with NVIDIA.
TEST(Artifacts, NvidiaDefaultLayoutsAreValidInOurCatalog) {
  YAML::Node cm = YAML::Load(ReadFile("testdata/nvidia/gpu-operator-default-mig-parted-config.yaml"));
  YAML::Node cfg = YAML::Load(cm["data"]["config.yaml"].as<std::string>());
  const auto& catalog = mig::MigCatalog::Builtin();
  int checked = 0;
  for (const auto& c : cfg["mig-configs"]) {
    for (const auto& entry : c.second) {
      if (!entry["device-filter"] || !entry["mig-devices"] || entry["mig-devices"].size() == 0) continue;
      std::vector<std::string> filters;
      if (entry["device-filter"].IsSequence()) {
        for (const auto& f : entry["device-filter"]) filters.push_back(f.as<std::string>());
      } else {
        filters.push_back(entry["device-filter"].as<std::string>());
      }
      for (const auto& filter : filters) {
        const mig::GpuModel* model = nullptr;
        for (const auto& m : catalog.models()) {
          for (const auto& id : m.pci_device_ids) {
            if (id == filter) model = &m;
          }
        }
        if (model == nullptr) continue;
        std::vector<std::string> layout;
        bool known = true;
        for (const auto& d : entry["mig-devices"]) {
          const std::string prof = d.first.as<std::string>();
          if (!mig::FindProfile(*model, prof)) known = false;
          for (int k = 0; k < d.second.as<int>(); ++k) layout.push_back(prof);
        }
        if (!known) continue;  // profiles we do not catalogue (e.g. +gfx variants)
        EXPECT_TRUE(mig::LayoutFits(*model, layout)) << c.first.as<std::string>() << " on " << model->id;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 30);
}

TEST(Artifacts, DevicePluginConfigMatchesNvidiaSchema) {
  const std::string ours_text = DevicePluginConfig(4);
  EXPECT_EQ(ours_text,
            "version: v1\n"
            "sharing:\n"
            "  timeSlicing:\n"
            "    renameByDefault: true\n"
            "    failRequestsGreaterThanOne: true\n"
            "    resources:\n"
            "      - name: nvidia.com/gpu\n"
            "        replicas: 4\n");
  YAML::Node ours = YAML::Load(ours_text);
  YAML::Node nvidia = YAML::Load(ReadFile("testdata/nvidia/gpu-operator-time-slicing-test-config.yaml"));
  EXPECT_EQ(ours["version"].as<std::string>(), nvidia["version"].as<std::string>());
  const auto ts = ours["sharing"]["timeSlicing"];
  const auto nts = nvidia["sharing"]["timeSlicing"];
  EXPECT_EQ(ts["resources"][0]["name"].as<std::string>(), nts["resources"][0]["name"].as<std::string>());
  EXPECT_EQ(ts["resources"][0]["replicas"].as<int>(), 4);
  (void)ts["renameByDefault"].as<bool>();
}

// The device-plugin ConfigMap carries a "default" key that shares nothing, so
// a node without the label (standalone chart: fallback strategies named,single)
// never takes a time-slicing config; flags are left to the operator.
TEST(Artifacts, DevicePluginConfigMapHasADefaultThatSharesNothing) {
  Plan p = TwoNodePlan();
  Artifacts a = BuildArtifacts(p, {}, PlannerOptions{});
  YAML::Node cm = YAML::Load(a.device_plugin_configmap);
  EXPECT_EQ(cm["metadata"]["namespace"].as<std::string>(), "gpu-operator");
  ASSERT_TRUE(cm["data"]["default"]);
  YAML::Node def = YAML::Load(cm["data"]["default"].as<std::string>());
  EXPECT_EQ(def["version"].as<std::string>(), "v1");
  EXPECT_FALSE(def["sharing"]);
  EXPECT_FALSE(def["flags"]);
  YAML::Node ts = YAML::Load(cm["data"][ContentName(DevicePluginConfig(3))].as<std::string>());
  EXPECT_FALSE(ts["flags"]);
  EXPECT_EQ(ts["sharing"]["timeSlicing"]["resources"][0]["replicas"].as<int>(), 3);
}

// The generated mig-parted ConfigMap replaces the operator's for every node:
// it keeps every config of the operator's current one, as it was.
TEST(Artifacts, MigPartedConfigStartsFromTheOperatorsConfigMap) {
  Plan p = TwoNodePlan();
  PlannerOptions o;
  o.operator_namespace = "nvidia-gpu-operator";
  YAML::Node nvidia_cm = YAML::Load(ReadFile("testdata/nvidia/gpu-operator-default-mig-parted-config.yaml"));
  OperatorState state;
  state.mig_config_yaml = nvidia_cm["data"]["config.yaml"].as<std::string>();
  state.mig_config_source = "nvidia-gpu-operator/default-mig-parted-config";
  state.node_mig_configs = {"all-1g.10gb", "all-disabled"};
  Artifacts a = BuildArtifacts(p, {}, o, state);
  YAML::Node nvidia = YAML::Load(state.mig_config_yaml);
  YAML::Node ours = YAML::Load(a.mig_parted_config);
  for (const auto& cfg : nvidia["mig-configs"]) {
    const std::string name = cfg.first.as<std::string>();
    ASSERT_TRUE(ours["mig-configs"][name]) << name;
    EXPECT_EQ(YAML::Dump(ours["mig-configs"][name]), YAML::Dump(cfg.second)) << name;
  }
  EXPECT_TRUE(ours["mig-configs"][std::string(p.nodes[0].labels.at("nvidia.com/mig.config"))]);
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
  EXPECT_EQ(YAML::Load(a.mig_parted_configmap)["metadata"]["namespace"].as<std::string>(), "nvidia-gpu-operator");
}

TEST(Artifacts, ConfigsNodesNameButTheConfigMapLacksAreWarnings) {
  Plan p = TwoNodePlan();
  OperatorState state;
  state.node_mig_configs = {"all-1g.5gb", "all-disabled"};
  BuildArtifacts(p, {}, PlannerOptions{}, state);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("\"all-1g.5gb\""), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("kubectl get configmaps -n gpu-operator"), std::string::npos) << p.warnings[0];
  Plan q = TwoNodePlan();
  state.mig_config_yaml = "not: [a mig-parted config";
  state.mig_config_source = "gpu-operator/x";
  BuildArtifacts(q, {}, PlannerOptions{}, state);
  ASSERT_EQ(q.warnings.size(), 2u);
  EXPECT_NE(q.warnings[0].find("gpu-operator/x key config.yaml is not a mig-parted config"), std::string::npos);
}

TEST(Artifacts, ConfigMapHoldsFilesVerbatim) {
  const std::string cm = ConfigMapYaml("kubeon-device-plugin-config", "gpu-operator", {{"kubeon-ts-2", DevicePluginConfig(2)}});
  YAML::Node n = YAML::Load(cm);
  EXPECT_EQ(n["kind"].as<std::string>(), "ConfigMap");
  EXPECT_EQ(n["metadata"]["namespace"].as<std::string>(), "gpu-operator");
  EXPECT_EQ(n["data"]["kubeon-ts-2"].as<std::string>(), DevicePluginConfig(2));
}

TEST(Artifacts, StrategicMergePatchSwapsTheGpuResource) {
  Plan p;
  model::Pod pod;
  model::ContainerResources c;
  c.name = "server";
  c.limits["nvidia.com/gpu"] = 1;
  c.requests["nvidia.com/gpu"] = 1;
  pod.containers.push_back(c);
  model::ContainerResources side;
  side.name = "sidecar";
  pod.containers.push_back(side);
  WorkloadForArtifacts w{Decision::kMig, {"prod", "Deployment", "svc"}, "2g.10gb", &pod};
  Artifacts a = BuildArtifacts(p, {w}, PlannerOptions{});
  ASSERT_EQ(a.workload_patches.size(), 1u);
  const auto patch = nlohmann::json::parse(a.workload_patches[0].patch_json);
  EXPECT_EQ(patch, nlohmann::json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"server","resources":{
      "limits":{"nvidia.com/gpu":null,"nvidia.com/mig-2g.10gb":"1"},
      "requests":{"nvidia.com/gpu":null,"nvidia.com/mig-2g.10gb":"1"}}}]}}}})"));
  EXPECT_EQ(a.workload_patches[0].patch_type, "strategic");
}

// Moved pods stay on their GPU model: the product requirement joins each of
// the pod's required node selector terms (they are ORed), or is the only one.
TEST(Artifacts, PatchKeepsPodsOnTheirGpuModel) {
  Plan p;
  model::Pod pod;
  model::ContainerResources c;
  c.name = "server";
  c.limits["nvidia.com/gpu"] = 1;
  pod.containers.push_back(c);
  WorkloadForArtifacts w{Decision::kMig, {"prod", "Deployment", "svc"}, "1g.10gb", &pod,
                         {"NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-SXM5-80GB"}};
  Artifacts a = BuildArtifacts(p, {w}, PlannerOptions{});
  auto patch = nlohmann::json::parse(a.workload_patches[0].patch_json);
  EXPECT_EQ(patch["spec"]["template"]["spec"]["affinity"], nlohmann::json::parse(R"({"nodeAffinity":{
      "requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[
      {"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3","NVIDIA-H100-SXM5-80GB"]}]}]}}})"));
  pod.required_node_terms = {{{{"topology.kubernetes.io/zone", "In", {"a", "b"}}}, {}},
                             {{{"pool", "Exists", {}}}, {{"metadata.name", "NotIn", {"n1"}}}}};
  a = BuildArtifacts(p, {w}, PlannerOptions{});
  patch = nlohmann::json::parse(a.workload_patches[0].patch_json);
  EXPECT_EQ(patch["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                 ["nodeSelectorTerms"],
            nlohmann::json::parse(R"([
      {"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["a","b"]},
                           {"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3","NVIDIA-H100-SXM5-80GB"]}]},
      {"matchExpressions":[{"key":"pool","operator":"Exists"},
                           {"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3","NVIDIA-H100-SXM5-80GB"]}],
       "matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}])"));
}

// The patch text is exactly what nlohmann::json::dump() prints for it (compact,
// keys sorted, dump's escapes): the plan's JSON re-indents it as such and its
// hashes are taken over it.
TEST(Artifacts, PatchTextIsDumpsText) {
  Plan p;
  model::Pod pod;
  model::ContainerResources init;
  init.name = "warm\"up\t\u00e9";
  init.init = true;
  init.requests["nvidia.com/gpu"] = 1;
  model::ContainerResources main;
  main.name = "main";
  main.limits["nvidia.com/gpu"] = 2;
  main.requests["cpu"] = 1;
  model::ContainerResources side;
  side.name = "side";
  side.limits["memory"] = 1;
  pod.containers = {side, init, main};
  pod.required_node_terms = {{{{"nvidia.com/gpu.product", "In", {"X"}}, {"k\x01", "Exists", {}}},
                              {{"metadata.name", "In", {"n\\1"}}}},
                             {{}, {{"metadata.name", "NotIn", {}}}}};
  for (Decision d : {Decision::kMig, Decision::kTimeSlicing}) {
    for (const std::vector<std::string>& products : {std::vector<std::string>{}, std::vector<std::string>{"P\"1", "P2"}}) {
      WorkloadForArtifacts w{d, {"ns", "Deployment", "svc"}, "3g.20gb", &pod, products};
      const Artifacts a = BuildArtifacts(p, {w}, PlannerOptions{});
      ASSERT_EQ(a.workload_patches.size(), 1u);
      const std::string& text = a.workload_patches[0].patch_json;
      const nlohmann::json patch = nlohmann::json::parse(text);
      EXPECT_EQ(text, patch.dump());
      const nlohmann::json& spec = patch["spec"]["template"]["spec"];
      EXPECT_EQ(spec["containers"].size(), 1u) << text;
      EXPECT_EQ(spec["initContainers"][0]["name"], init.name) << text;
      EXPECT_EQ(spec.contains("affinity"), !products.empty()) << text;
    }
  }
}

}  // namespace
}  // namespace kubeon::plan
