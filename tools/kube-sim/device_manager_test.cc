// Tests for the kubelet device manager (device_manager.h) and the node GPU
// state it writes (node_gpus.h), on testdata/small.json.
#include "device_manager.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "workload.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

json GpuPod(const std::string& name, const std::string& node, const std::string& res, const std::string& qty) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec", {{"nodeName", node},
                    {"containers", json::array({{{"name", "c"}, {"image", "i"},
                                                 {"resources", {{"limits", {{res, qty}}}}}}})}}}};
}

// Pods holding each GPU of the node, by index.
std::vector<json> Holders(ManualSim& m, const std::string& node) {
  std::vector<json> out;
  const json view = m.sim().gpus().View();
  for (const auto& g : view["nodes"][node]["gpus"]) out.push_back(g["pods"]);
  return out;
}

TEST(DeviceManagerTest, SnapshotPodsHoldGpusAndNewPodsGetFreeOnes) {
  ManualSim m;
  std::vector<json> a = Holders(m, "gpu-a");
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(a[0].size() + a[1].size(), 2u);  // the two trainers
  EXPECT_TRUE(a[2].empty());
  EXPECT_EQ(Holders(m, "gpu-b")[0], json::array({"serving/infer-0"}));
  m.Create(kPods, GpuPod("two", "gpu-b", "nvidia.com/gpu", "2"));
  std::vector<json> b = Holders(m, "gpu-b");
  EXPECT_EQ(b[1], json::array({"ml/two"}));
  EXPECT_EQ(b[2], json::array({"ml/two"}));
  EXPECT_EQ(PodPhase(m.Get(kPods, "ml", "two")), "Running");
  // Released only when the pod object is gone.
  m.Mutate(kPods, "ml", "two", [](json& p) { p["status"]["phase"] = "Succeeded"; });
  EXPECT_EQ(Holders(m, "gpu-b")[1], json::array({"ml/two"}));
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "two").ok());
  m.sim().AfterWrite();
  EXPECT_TRUE(Holders(m, "gpu-b")[1].empty());
  EXPECT_FALSE(m.sim().gpus().Holds("ml/two"));
}

TEST(DeviceManagerTest, AdmissionFailsWithoutFreeDevices) {
  ManualSim m;
  m.Create(kPods, GpuPod("too-many", "gpu-b", "nvidia.com/gpu", "8"));  // infer-0 holds one
  json p = m.Get(kPods, "ml", "too-many");
  EXPECT_EQ(PodPhase(p), "Failed");
  EXPECT_EQ(Str(p, {"status", "reason"}), "UnexpectedAdmissionError");
  EXPECT_NE(Str(p, {"status", "message"}).find("Requested: 8, Available: 7"), std::string::npos) << p["status"];
  EXPECT_FALSE(m.sim().gpus().Holds("ml/too-many"));
}

TEST(DeviceManagerTest, TimeSlicedGpusAreShared) {
  Settings s;
  s.config_map_sync_delay_ms = 0;
  ManualSim m(s);
  m.Create(kConfigMaps, {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                         {"metadata", {{"name", "kubeon-device-plugin-config"}, {"namespace", "gpu-operator"}}},
                         {"data", {{"ts2", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n"}}}});
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "ts2"; });
  m.Create(kPods, GpuPod("share", "gpu-b", "nvidia.com/gpu", "1"));
  EXPECT_EQ(Holders(m, "gpu-b")[0], json::array({"serving/infer-0", "ml/share"}));
}

TEST(NodeGpusTest, PersistsAndRestores) {
  ManualSim m;
  json saved = m.sim().gpus().ToJson();
  NodeGpus copy;
  ASSERT_TRUE(copy.FromJson(saved).ok());
  EXPECT_EQ(copy.ToJson(), saved);
  EXPECT_TRUE(copy.Holds("serving/infer-0"));
  EXPECT_TRUE(copy.Release("serving/infer-0"));
  EXPECT_FALSE(copy.Holds("serving/infer-0"));
  EXPECT_FALSE(copy.FromJson(json::parse(R"({"nodes": {"x": {"gpus": [{"index": 3}]}}})")).ok());
}

TEST(NodeGpusTest, SnapshotMigDevicesAreDealtAcrossMigGpus) {
  NodeGpus gpus;
  json node = {{"metadata", {{"name", "n"}, {"labels", {{"nvidia.com/gpu.count", "4"}}}}},
               {"status", {{"capacity", {{"nvidia.com/gpu", "2"}, {"nvidia.com/mig-1g.10gb", "3"},
                                         {"nvidia.com/mig-3g.40gb", "1"}}}}}};
  const NodeGpuState& st = gpus.Ensure(node);
  ASSERT_EQ(st.gpus.size(), 4u);
  EXPECT_FALSE(st.gpus[1].mig_enabled);
  EXPECT_TRUE(st.gpus[2].mig_enabled);
  EXPECT_EQ(st.gpus[2].mig.size() + st.gpus[3].mig.size(), 4u);
}

}  // namespace
}  // namespace kubeon::kubesim
