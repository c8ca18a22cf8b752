// Tests for the simulated mig-manager (mig_manager.h) on testdata/small.json:
// gpu-a (8x A100-80GB) runs two trainer pods holding a GPU each, gpu-b runs
// infer-0 holding one; cpu-1 has no GPU.
#include "mig_manager.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "workload.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

// GPU 0 alone changes geometry between all-1g and gpu0-3g; GPU 7 alone
// between all-1g and gpu7-3g; gpu7-off turns MIG off on GPU 7 (a mode change).
constexpr const char* kConfig = R"(version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  all-1g:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
  gpu0-3g:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
    - devices: [0]
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
  gpu7-3g:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
    - devices: [7]
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
  gpu7-off:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 7}
    - devices: [7]
      mig-enabled: false
)";

json ConfigMap(const std::string& text) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", "kubeon-mig-parted-config"}, {"namespace", "gpu-operator"}}},
          {"data", {{"config.yaml", text}}}};
}

Settings Fast() {
  Settings s;
  s.config_map_sync_delay_ms = 0;
  return s;
}

std::string Label(ManualSim& m, const std::string& node, const std::string& key) {
  return Str(m.Get(kNodes, "", node), {"metadata", "labels", key.c_str()});
}

std::string Allocatable(ManualSim& m, const std::string& node, const std::string& res) {
  return Str(m.Get(kNodes, "", node), {"status", "allocatable", res.c_str()});
}

void SetConfig(ManualSim& m, const std::string& node, const std::string& value) {
  m.Mutate(kNodes, "", node, [&](json& n) { n["metadata"]["labels"][kMigConfigLabel] = value; });
}

// Operator pods (by DaemonSet) on the node.
std::vector<std::string> OperatorPods(ManualSim& m, const std::string& node) {
  std::vector<std::string> out;
  for (const auto& p : m.store().List(kPods, "gpu-operator")) {
    if (Str(p, {"spec", "nodeName"}) == node) out.push_back((*ControllerRef(p)).value("name", ""));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string MigLog(ManualSim& m, const std::string& node) {
  for (const auto& p : m.store().List(kPods, "gpu-operator")) {
    if (Str(p, {"spec", "nodeName"}) == node && Name(p).rfind("nvidia-mig-manager-", 0) == 0) {
      return m.sim().logs().Text(Uid(p));
    }
  }
  return "";
}

// Moves the pods holding the node's GPUs elsewhere (cordon, delete, uncordon).
void MakeIdle(ManualSim& m, const std::string& node) {
  m.Mutate(kNodes, "", node, [](json& n) { n["spec"]["unschedulable"] = true; });
  for (const auto& p : m.store().List(kPods, "")) {
    if (Str(p, {"spec", "nodeName"}) == node && m.sim().gpus().Holds(Store::Key(Namespace(p), Name(p)))) {
      ASSERT_TRUE(m.store().Delete(kPods, Namespace(p), Name(p)).ok());
    }
  }
  m.sim().AfterWrite();
  m.Mutate(kNodes, "", node, [](json& n) { n["spec"].erase("unschedulable"); });
}

json MigPod(const std::string& name, const std::string& node) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec", {{"nodeSelector", {{"kubernetes.io/hostname", node}}},
                    {"containers", json::array({{{"name", "c"}, {"image", "i"},
                                                 {"resources", {{"limits", {{"nvidia.com/mig-1g.10gb", "1"}}}}}}})}}}};
}

// gpu-b with every GPU split into 7x 1g.10gb, idle.
void SplitGpuB(ManualSim& m) {
  m.Create(kConfigMaps, ConfigMap(kConfig));
  MakeIdle(m, "gpu-b");
  SetConfig(m, "gpu-b", "all-1g");
  m.Advance(300);
  ASSERT_EQ(Label(m, "gpu-b", kMigStateLabel), "success");
  ASSERT_EQ(Allocatable(m, "gpu-b", "nvidia.com/mig-1g.10gb"), "56");
}

TEST(MigManagerTest, OperatorPodsArePausedAndComeBack) {
  ManualSim m(Fast());
  const std::vector<std::string> all = {"gpu-feature-discovery", "nvidia-dcgm-exporter", "nvidia-device-plugin-daemonset",
                                        "nvidia-mig-manager"};
  EXPECT_EQ(OperatorPods(m, "gpu-b"), all);
  EXPECT_TRUE(OperatorPods(m, "cpu-1").empty());
  m.Create(kConfigMaps, ConfigMap(kConfig));
  MakeIdle(m, "gpu-b");
  SetConfig(m, "gpu-b", "all-1g");
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "pending");
  for (const char* c : {"device-plugin", "gpu-feature-discovery", "dcgm-exporter"}) {
    EXPECT_EQ(Label(m, "gpu-b", std::string("nvidia.com/gpu.deploy.") + c), kPausedForMigChange) << c;
  }
  EXPECT_EQ(Label(m, "gpu-b", "nvidia.com/gpu.deploy.mig-manager"), "true");
  EXPECT_EQ(OperatorPods(m, "gpu-b"), std::vector<std::string>{"nvidia-mig-manager"});
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/gpu"), "0");
  EXPECT_EQ(Str(m.Get(kNodes, "", "gpu-b"), {"status", "capacity", "nvidia.com/gpu"}), "8");
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "success");
  EXPECT_EQ(OperatorPods(m, "gpu-b"), all);
  EXPECT_EQ(Label(m, "gpu-b", "nvidia.com/gpu.deploy.device-plugin"), "true");
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/mig-1g.10gb"), "56");
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/gpu"), "0");
  EXPECT_NE(MigLog(m, "gpu-b").find("Successfully updated to MIG config: all-1g"), std::string::npos) << MigLog(m, "gpu-b");
}

TEST(MigManagerTest, AlreadyAppliedIsSuccessWithoutPending) {
  ManualSim m(Fast());
  m.Create(kConfigMaps, ConfigMap(kConfig));
  const uint64_t rv = m.store().ResourceVersion();
  SetConfig(m, "gpu-a", "all-disabled");  // busy, but nothing changes
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "success");
  bool paused_or_pending = false;
  m.store().ChangesSince(rv, [&](const std::string& id, const std::string&, const json& obj, const json*) {
    if (id != kNodes || Name(obj) != "gpu-a") return;
    paused_or_pending |= Str(obj, {"metadata", "labels", kMigStateLabel}) == "pending" ||
                         Str(obj, {"metadata", "labels", "nvidia.com/gpu.deploy.device-plugin"}) != "true";
  });
  EXPECT_FALSE(paused_or_pending);
  EXPECT_NE(MigLog(m, "gpu-a").find("already applied"), std::string::npos) << MigLog(m, "gpu-a");
}

TEST(MigManagerTest, BusyGpuFailsAndIsNotRetried) {
  ManualSim m(Fast());
  m.Create(kConfigMaps, ConfigMap(kConfig));
  SetConfig(m, "gpu-a", "all-1g");  // trainers hold two GPUs: the mode change resets all
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "failed");
  EXPECT_EQ(Label(m, "gpu-a", "nvidia.com/gpu.deploy.device-plugin"), "true");  // restored
  EXPECT_EQ(Allocatable(m, "gpu-a", "nvidia.com/gpu"), "8");
  EXPECT_EQ(Allocatable(m, "gpu-a", "nvidia.com/mig-1g.10gb"), "");  // nothing advertised
  std::string log = MigLog(m, "gpu-a");
  EXPECT_NE(log.find("In use by another client"), std::string::npos) << log;
  EXPECT_NE(log.find("ml/trainer-6d4cf56db6-"), std::string::npos) << log;
  // The same value again: no watch event, no run.  Nor on the pods leaving.
  SetConfig(m, "gpu-a", "all-1g");
  MakeIdle(m, "gpu-a");
  m.Advance(600000);
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "failed");
  EXPECT_EQ(MigLog(m, "gpu-a"), log);
  // Only a new value runs again.
  SetConfig(m, "gpu-a", "");
  EXPECT_EQ(MigLog(m, "gpu-a"), log);  // an empty label does nothing
  SetConfig(m, "gpu-a", "all-1g");
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "success");
}

TEST(MigManagerTest, GeometryChangeFailsOnlyOnTheBusyGpu) {
  ManualSim m(Fast());
  SplitGpuB(m);
  m.Create(kPods, MigPod("slice", "gpu-b"));
  const json view = m.sim().gpus().View();
  ASSERT_EQ(view["nodes"]["gpu-b"]["gpus"][0]["migDevices"][0]["pods"], json::array({"ml/slice"}));
  SetConfig(m, "gpu-b", "gpu0-3g");  // GPU 0 holds the slice
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "failed");
  EXPECT_NE(MigLog(m, "gpu-b").find("GPU 0 held by pod ml/slice"), std::string::npos) << MigLog(m, "gpu-b");
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/mig-1g.10gb"), "56");
  SetConfig(m, "gpu-b", "gpu7-3g");  // another GPU, same mode: fine
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "success");
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/mig-3g.40gb"), "2");
  EXPECT_EQ(m.sim().gpus().View()["nodes"]["gpu-b"]["gpus"][0]["migDevices"][0]["pods"], json::array({"ml/slice"}));
}

TEST(MigManagerTest, ModeChangeFailsForAPodOnAnotherGpu) {
  ManualSim m(Fast());
  SplitGpuB(m);
  m.Create(kPods, MigPod("slice", "gpu-b"));  // on GPU 0
  SetConfig(m, "gpu-b", "gpu7-off");          // MIG off on GPU 7: every GPU is reset
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "failed");
  EXPECT_NE(MigLog(m, "gpu-b").find("resets every GPU"), std::string::npos) << MigLog(m, "gpu-b");
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "slice").ok());
  m.sim().AfterWrite();
  SetConfig(m, "gpu-b", "all-1g");
  SetConfig(m, "gpu-b", "gpu7-off");
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "success");
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/gpu"), "1");
}

TEST(MigManagerTest, WithRebootAFailedModeChangeRebootsTheNode) {
  Settings s = Fast();
  s.mig_manager_with_reboot = true;
  s.node_reboot_delay_ms = 60000;
  ManualSim m(s);
  m.Create(kConfigMaps, ConfigMap(kConfig));
  SetConfig(m, "gpu-a", "all-1g");  // the trainers hold GPUs
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "rebooting");
  EXPECT_FALSE(IsNodeReady(m.Get(kNodes, "", "gpu-a")));
  for (const auto& p : m.store().List(kPods, "")) {
    if (Str(p, {"spec", "nodeName"}) == "gpu-a") {
      EXPECT_EQ(PodPhase(p), "Pending") << Name(p);  // only new DaemonSet pods
    }
  }
  for (const auto& p : m.Pods("ml")) EXPECT_EQ(Str(p, {"spec", "nodeName"}), "gpu-b");  // the trainers moved
  m.Advance(59999);
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "rebooting");
  m.Advance(1);  // back: the new mig-manager pod starts and runs again
  EXPECT_TRUE(IsNodeReady(m.Get(kNodes, "", "gpu-a")));
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "pending");
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-a", kMigStateLabel), "success");
  EXPECT_EQ(Allocatable(m, "gpu-a", "nvidia.com/mig-1g.10gb"), "56");
}

TEST(MigManagerTest, StuckPendingFaultLeavesClientsPaused) {
  ManualSim m(Fast());
  m.Create(kConfigMaps, ConfigMap(kConfig));
  MakeIdle(m, "gpu-b");
  ASSERT_TRUE(m.sim().faults().Configure(json::parse(R"({"stuckMigPending": [{"node": "gpu-b", "count": 1}]})")).ok());
  SetConfig(m, "gpu-b", "all-1g");
  m.Advance(5 * 60 * 1000);
  m.Advance(60 * 60 * 1000);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "pending");
  EXPECT_EQ(Label(m, "gpu-b", "nvidia.com/gpu.deploy.device-plugin"), kPausedForMigChange);
  EXPECT_EQ(Allocatable(m, "gpu-b", "nvidia.com/gpu"), "0");
  EXPECT_NE(MigLog(m, "gpu-b").find("Timed out waiting"), std::string::npos) << MigLog(m, "gpu-b");
  SetConfig(m, "gpu-b", "gpu7-3g");  // a new value runs again (the fault fired once)
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "success");
}

TEST(MigManagerTest, ConfigReachesTheNodeAfterTheSyncDelay) {
  ManualSim m;  // default: 60 s kubelet sync
  MakeIdle(m, "gpu-b");
  m.Create(kConfigMaps, ConfigMap(kConfig));
  SetConfig(m, "gpu-b", "all-1g");  // the mounted file does not have it yet
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "failed");
  EXPECT_NE(MigLog(m, "gpu-b").find("not found"), std::string::npos) << MigLog(m, "gpu-b");
  m.Advance(59999);
  SetConfig(m, "gpu-b", "gpu7-3g");
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "failed");
  m.Advance(1);
  SetConfig(m, "gpu-b", "all-1g");
  m.Advance(300);
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "success");
  // An edit is seen 60 s late too: a new config name is missing until then.
  m.Mutate(kConfigMaps, "gpu-operator", "kubeon-mig-parted-config", [](json& cm) {
    cm["data"]["config.yaml"] = std::string(kConfig) + "  fresh:\n    - devices: all\n      mig-enabled: false\n";
  });
  SetConfig(m, "gpu-b", "fresh");
  EXPECT_EQ(Label(m, "gpu-b", kMigStateLabel), "failed");
}

}  // namespace
}  // namespace kubeon::kubesim
