// Tests for the simulated device plugin (device_plugin.h) on
// testdata/small.json: its config-manager facing a config key the mounted
// ConfigMap lacks (crash-loop or skip), and the sync delay.
#include "device_plugin.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "workload.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

constexpr const char* kTs4 = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n";

json ConfigMap(const json& data) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", "kubeon-device-plugin-config"}, {"namespace", "gpu-operator"}}},
          {"data", data}};
}

std::string Allocatable(ManualSim& m, const std::string& node) {
  return Str(m.Get(kNodes, "", node), {"status", "allocatable", "nvidia.com/gpu"});
}

std::string Capacity(ManualSim& m, const std::string& node) {
  return Str(m.Get(kNodes, "", node), {"status", "capacity", "nvidia.com/gpu"});
}

json PluginPod(ManualSim& m, const std::string& node) {
  for (const auto& p : m.store().List(kPods, "gpu-operator")) {
    if (Str(p, {"spec", "nodeName"}) == node && Name(p).rfind("nvidia-device-plugin-daemonset-", 0) == 0) return p;
  }
  return json();
}

void SetConfig(ManualSim& m, const std::string& value) {
  m.Mutate(kNodes, "", "gpu-a", [&](json& n) { n["metadata"]["labels"]["nvidia.com/device-plugin.config"] = value; });
}

TEST(DevicePluginTest, MissingKeyCrashLoopsUntilItAppears) {
  ManualSim m;  // 60 s sync delay, "crash"
  m.Create(kConfigMaps, ConfigMap({{"ts4", kTs4}}));
  m.Advance(60000);
  SetConfig(m, "ts4");
  EXPECT_EQ(Capacity(m, "gpu-a"), "32");
  SetConfig(m, "ts8");  // not in the ConfigMap
  json pod = PluginPod(m, "gpu-a");
  const json& cs = pod["status"]["containerStatuses"][0];
  EXPECT_EQ(Str(cs, {"state", "waiting", "reason"}), "CrashLoopBackOff");
  EXPECT_EQ(cs["restartCount"], 1);
  EXPECT_FALSE(IsPodReady(pod));
  EXPECT_EQ(Allocatable(m, "gpu-a"), "0");
  EXPECT_EQ(Capacity(m, "gpu-a"), "32");
  m.Advance(10000);
  EXPECT_EQ(PluginPod(m, "gpu-a")["status"]["containerStatuses"][0]["restartCount"], 2);
  m.Advance(20000);
  EXPECT_EQ(PluginPod(m, "gpu-a")["status"]["containerStatuses"][0]["restartCount"], 3);
  EXPECT_NE(m.sim().logs().Text(Uid(pod)).find("config \\\"ts8\\\" not found"), std::string::npos)
      << m.sim().logs().Text(Uid(pod));
  // The key is added: the mounted file has it only after the sync delay.
  m.Mutate(kConfigMaps, "gpu-operator", "kubeon-device-plugin-config", [](json& cm) {
    cm["data"]["ts8"] = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 8\n";
  });
  m.Advance(59000);
  EXPECT_EQ(Allocatable(m, "gpu-a"), "0");
  m.Advance(1000);
  EXPECT_TRUE(IsPodReady(PluginPod(m, "gpu-a")));
  EXPECT_EQ(PluginPod(m, "gpu-a")["status"]["containerStatuses"][0]["restartCount"], 4);  // kept
  EXPECT_EQ(Allocatable(m, "gpu-a"), "64");
}

TEST(DevicePluginTest, MissingKeyRecoversWhenTheLabelChanges) {
  Settings s;
  s.config_map_sync_delay_ms = 0;
  ManualSim m(s);
  m.Create(kConfigMaps, ConfigMap({{"ts4", kTs4}}));
  SetConfig(m, "nope");
  EXPECT_EQ(Allocatable(m, "gpu-a"), "0");
  SetConfig(m, "ts4");
  EXPECT_TRUE(IsPodReady(PluginPod(m, "gpu-a")));
  EXPECT_EQ(Allocatable(m, "gpu-a"), "32");
}

TEST(DevicePluginTest, SkipKeepsTheOldConfig) {
  Settings s;
  s.config_map_sync_delay_ms = 0;
  s.device_plugin_missing_config = "skip";
  ManualSim m(s);
  m.Create(kConfigMaps, ConfigMap({{"ts4", kTs4}}));
  SetConfig(m, "ts4");
  SetConfig(m, "nope");
  json pod = PluginPod(m, "gpu-a");
  EXPECT_TRUE(IsPodReady(pod));
  EXPECT_EQ(pod["status"]["containerStatuses"][0]["restartCount"], 0);
  EXPECT_EQ(Allocatable(m, "gpu-a"), "32");
  EXPECT_NE(m.sim().logs().Text(Uid(pod)).find("keeping the current config"), std::string::npos);
}

TEST(DevicePluginTest, AbsentPodMeansNothingAllocatable) {
  ManualSim m;
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"] = "false"; });
  EXPECT_TRUE(PluginPod(m, "gpu-b").is_null());
  EXPECT_EQ(Allocatable(m, "gpu-b"), "0");
  EXPECT_EQ(Capacity(m, "gpu-b"), "8");
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"] = "true"; });
  EXPECT_EQ(Allocatable(m, "gpu-b"), "8");
}

}  // namespace
}  // namespace kubeon::kubesim
