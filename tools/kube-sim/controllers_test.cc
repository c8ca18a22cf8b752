// Tests for the controllers, run through a Simulator loaded with
// testdata/small.json: replicaset, deployment, statefulset, scheduler,
// kubelet, disruption and the simulated GPU operator.
#include <gtest/gtest.h>

#include "device_plugin.h"
#include "test_util.h"
#include "workload.h"

namespace kubeon::kubesim {
namespace {

using testing::Condition;
using testing::ManualSim;
using testing::ReadTestdata;

std::vector<std::string> Names(const std::vector<json>& objs) {
  std::vector<std::string> out;
  for (const auto& o : objs) out.push_back(Name(o));
  return out;
}

json PodRequesting(const std::string& name, const std::string& resource, const std::string& qty) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}, {"resources", {{"limits", {{resource, qty}}}}}}})}}},
          {"status", {{"phase", "Pending"}}}};
}

TEST(ReplicaSetControllerTest, RecreatesADeletedPod) {
  ManualSim m;
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "trainer-6d4cf56db6-x7k2p").ok());
  m.sim().AfterWrite();
  std::vector<json> pods = m.Pods("ml");
  ASSERT_EQ(pods.size(), 2u);
  const json* fresh = nullptr;
  for (const auto& p : pods) {
    if (Name(p) != "trainer-6d4cf56db6-m9q4z") fresh = &p;
  }
  ASSERT_NE(fresh, nullptr);
  EXPECT_EQ(Name(*fresh).rfind("trainer-6d4cf56db6-", 0), 0u);
  EXPECT_EQ(Name(*fresh).size(), std::string("trainer-6d4cf56db6-").size() + 5);
  EXPECT_EQ((*fresh)["metadata"]["ownerReferences"][0]["uid"], "rs-trainer");
  EXPECT_EQ((*fresh)["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ((*fresh)["metadata"]["labels"]["app"], "trainer");
  EXPECT_FALSE(Str(*fresh, {"spec", "nodeName"}).empty());  // scheduled
  EXPECT_TRUE(IsPodReady(*fresh));                         // started (no delay)
  EXPECT_EQ(m.Get(kReplicaSets, "ml", "trainer-6d4cf56db6")["status"]["readyReplicas"], 2);
}

TEST(ReplicaSetControllerTest, ScalingTheDeploymentRemovesPods) {
  ManualSim m;
  m.Mutate(kDeployments, "ml", "trainer", [](json& d) { d["spec"]["replicas"] = 1; });
  EXPECT_EQ(SpecReplicas(m.Get(kReplicaSets, "ml", "trainer-6d4cf56db6")), 1);
  EXPECT_EQ(m.Get(kDeployments, "ml", "trainer")["status"]["replicas"], 1);
  ASSERT_EQ(m.Pods("ml").size(), 2u);  // one of them Terminating for 30 s
  m.Advance(30000);
  EXPECT_EQ(m.Pods("ml").size(), 1u);
  m.Mutate(kDeployments, "ml", "trainer", [](json& d) { d["spec"]["replicas"] = 4; });
  EXPECT_EQ(m.Pods("ml").size(), 4u);
}

TEST(DeploymentControllerTest, TemplateChangeRollsOutANewReplicaSet) {
  ManualSim m;
  m.Mutate(kDeployments, "ml", "trainer", [](json& d) {
    d["spec"]["template"]["spec"]["containers"][0]["resources"] =
        json::parse(R"({"limits": {"nvidia.com/gpu": "1"}, "requests": {"cpu": "1"}})");
  });
  std::vector<json> rss = m.store().List(kReplicaSets, "ml");
  ASSERT_EQ(rss.size(), 2u);
  const json* fresh = Name(rss[0]) == "trainer-6d4cf56db6" ? &rss[1] : &rss[0];
  const json* old = fresh == &rss[0] ? &rss[1] : &rss[0];
  EXPECT_EQ(SpecReplicas(*fresh), 2);
  EXPECT_EQ(SpecReplicas(*old), 0);
  EXPECT_EQ(Str(*fresh, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "2");
  m.Advance(30000);  // the old pods terminate
  std::string hash = Str(*fresh, {"metadata", "labels", "pod-template-hash"});
  EXPECT_EQ(Name(*fresh), "trainer-" + hash);
  for (const auto& p : m.Pods("ml")) EXPECT_EQ(Str(p, {"metadata", "labels", "pod-template-hash"}), hash);
  json d = m.Get(kDeployments, "ml", "trainer");
  EXPECT_EQ(d["status"]["updatedReplicas"], 2);
  EXPECT_EQ(d["status"]["observedGeneration"], d["metadata"]["generation"]);
}

TEST(StatefulSetControllerTest, RecreatesOrdinalAndRollsTemplate) {
  ManualSim m;
  json before = m.Get(kPods, "serving", "infer-0");
  ASSERT_TRUE(m.store().Delete(kPods, "serving", "infer-0").ok());
  m.sim().AfterWrite();
  json after = m.Get(kPods, "serving", "infer-0");
  ASSERT_FALSE(after.is_null());
  EXPECT_NE(Uid(after), Uid(before));
  EXPECT_EQ(Str(after, {"metadata", "labels", "controller-revision-hash"}), "infer-5b8c9d7f6");
  m.Mutate(kStatefulSets, "serving", "infer", [](json& s) {
    s["spec"]["replicas"] = 2;
    s["spec"]["template"]["metadata"]["labels"]["v"] = "2";
  });
  m.Advance(30000);  // infer-0 is replaced once it has terminated
  json sts = m.Get(kStatefulSets, "serving", "infer");
  std::string rev = Str(sts, {"status", "updateRevision"});
  EXPECT_NE(rev, "infer-5b8c9d7f6");
  EXPECT_EQ(Names(m.Pods("serving")), (std::vector<std::string>{"infer-0", "infer-1"}));
  for (const auto& p : m.Pods("serving")) EXPECT_EQ(Str(p, {"metadata", "labels", "controller-revision-hash"}), rev);
  EXPECT_EQ(sts["status"]["updatedReplicas"], 2);
}

TEST(SchedulerTest, BindsToAFittingSchedulableNode) {
  ManualSim m;
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["spec"]["unschedulable"] = true; });
  m.Create(kPods, PodRequesting("one-gpu", "nvidia.com/gpu", "1"));
  json p = m.Get(kPods, "ml", "one-gpu");
  EXPECT_EQ(Str(p, {"spec", "nodeName"}), "gpu-b");
  EXPECT_EQ(PodPhase(p), "Running");
  EXPECT_FALSE(Str(p, {"status", "podIP"}).empty());
}

TEST(SchedulerTest, ReportsWhyNothingFits) {
  ManualSim m;
  m.Create(kPods, PodRequesting("nine-gpus", "nvidia.com/gpu", "9"));
  json p = m.Get(kPods, "ml", "nine-gpus");
  EXPECT_TRUE(Str(p, {"spec", "nodeName"}).empty());
  const json* c = Condition(p, "PodScheduled");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["status"], "False");
  EXPECT_EQ((*c)["reason"], "Unschedulable");
  EXPECT_NE((*c)["message"].get<std::string>().find("0/3 nodes are available: 3 Insufficient nvidia.com/gpu"),
            std::string::npos) << (*c)["message"];
}

TEST(SchedulerTest, CountsGpusAlreadyInUse) {
  ManualSim m;  // gpu-a runs 2 trainer pods, gpu-b runs infer-0: 6 and 7 free
  m.Create(kPods, PodRequesting("seven", "nvidia.com/gpu", "7"));
  EXPECT_EQ(Str(m.Get(kPods, "ml", "seven"), {"spec", "nodeName"}), "gpu-b");
  m.Create(kPods, PodRequesting("seven-more", "nvidia.com/gpu", "7"));
  EXPECT_TRUE(Str(m.Get(kPods, "ml", "seven-more"), {"spec", "nodeName"}).empty());
}

TEST(SchedulerTest, RetriesWhenCapacityAppears) {
  ManualSim m;
  m.Create(kPods, PodRequesting("seven", "nvidia.com/gpu", "7"));
  m.Create(kPods, PodRequesting("seven-more", "nvidia.com/gpu", "7"));
  ASSERT_TRUE(Str(m.Get(kPods, "ml", "seven-more"), {"spec", "nodeName"}).empty());
  m.Mutate(kNodes, "", "cpu-1", [](json& n) { n["metadata"]["labels"]["unrelated"] = "change"; });
  EXPECT_TRUE(Str(m.Get(kPods, "ml", "seven-more"), {"spec", "nodeName"}).empty());
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "seven").ok());
  m.sim().AfterWrite();
  EXPECT_EQ(Str(m.Get(kPods, "ml", "seven-more"), {"spec", "nodeName"}), "gpu-b");
  // A cordoned-away pod lands once the node is uncordoned.
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["spec"]["unschedulable"] = true; });
  m.Create(kPods, PodRequesting("two", "nvidia.com/gpu", "2"));
  EXPECT_TRUE(Str(m.Get(kPods, "ml", "two"), {"spec", "nodeName"}).empty());
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["spec"].erase("unschedulable"); });
  EXPECT_EQ(Str(m.Get(kPods, "ml", "two"), {"spec", "nodeName"}), "gpu-a");
}

TEST(ControllersTest, FullResyncAfterHistoryIsCompacted) {
  Settings s;
  s.history_limit = 2;  // every controller falls behind the history
  ManualSim m(s);
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "trainer-6d4cf56db6-x7k2p").ok());
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "trainer-6d4cf56db6-m9q4z").ok());
  ASSERT_TRUE(m.store().Delete(kPods, "serving", "infer-0").ok());
  m.sim().AfterWrite();
  EXPECT_EQ(m.Pods("ml").size(), 2u);
  for (const auto& p : m.Pods("ml")) EXPECT_TRUE(IsPodReady(p));
  EXPECT_FALSE(m.Get(kPods, "serving", "infer-0").is_null());
  EXPECT_EQ(m.Get(kPdbs, "ml", "trainer-pdb")["status"]["currentHealthy"], 2);
}

TEST(SchedulerTest, TaintsTolerationsAndNodeSelectors) {
  ManualSim m;
  for (const char* n : {"gpu-a", "gpu-b"}) {
    m.Mutate(kNodes, "", n, [](json& node) {
      node["spec"]["taints"] = json::parse(R"([{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}])");
    });
  }
  m.Create(kPods, PodRequesting("intolerant", "nvidia.com/gpu", "1"));
  EXPECT_TRUE(Str(m.Get(kPods, "ml", "intolerant"), {"spec", "nodeName"}).empty());
  json tolerant = PodRequesting("tolerant", "nvidia.com/gpu", "1");
  tolerant["spec"]["tolerations"] = json::parse(R"([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])");
  tolerant["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "gpu-b"}};
  m.Create(kPods, tolerant);
  EXPECT_EQ(Str(m.Get(kPods, "ml", "tolerant"), {"spec", "nodeName"}), "gpu-b");
  json affine = PodRequesting("affine", "cpu", "1");
  affine["spec"]["affinity"] = json::parse(R"({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "DoesNotExist"}]}]}}})");
  m.Create(kPods, affine);
  EXPECT_EQ(Str(m.Get(kPods, "ml", "affine"), {"spec", "nodeName"}), "cpu-1");
}

TEST(KubeletTest, StartupDelay) {
  Settings s;
  s.pod_startup_delay_ms = 1000;
  ManualSim m(s);
  m.Create(kPods, PodRequesting("slow", "nvidia.com/gpu", "1"));
  json p = m.Get(kPods, "ml", "slow");
  EXPECT_FALSE(Str(p, {"spec", "nodeName"}).empty());
  EXPECT_EQ(PodPhase(p), "Pending");
  m.Advance(999);
  EXPECT_EQ(PodPhase(m.Get(kPods, "ml", "slow")), "Pending");
  m.Advance(1);
  EXPECT_EQ(PodPhase(m.Get(kPods, "ml", "slow")), "Running");
  EXPECT_TRUE(IsPodReady(m.Get(kPods, "ml", "slow")));
}

TEST(DisruptionControllerTest, StatusFollowsPods) {
  Settings s;
  s.pod_startup_delay_ms = 5000;
  ManualSim m(s);
  json pdb = m.Get(kPdbs, "ml", "trainer-pdb");
  EXPECT_EQ(pdb["status"]["currentHealthy"], 2);
  EXPECT_EQ(pdb["status"]["disruptionsAllowed"], 0);
  m.Mutate(kPdbs, "ml", "trainer-pdb", [](json& p) { p["spec"]["minAvailable"] = 1; });
  EXPECT_EQ(m.Get(kPdbs, "ml", "trainer-pdb")["status"]["disruptionsAllowed"], 1);
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "trainer-6d4cf56db6-x7k2p").ok());
  m.sim().AfterWrite();  // the replacement is not ready for 5s
  EXPECT_EQ(m.Get(kPdbs, "ml", "trainer-pdb")["status"]["currentHealthy"], 1);
  EXPECT_EQ(m.Get(kPdbs, "ml", "trainer-pdb")["status"]["disruptionsAllowed"], 0);
  m.Advance(5000);
  EXPECT_EQ(m.Get(kPdbs, "ml", "trainer-pdb")["status"]["disruptionsAllowed"], 1);
}

json MigConfigMap() {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", "kubeon-mig-parted-config"}, {"namespace", "gpu-operator"}}},
          {"data", {{"config.yaml", ReadTestdata("mig-parted-config.yaml")}}}};
}

std::string NodeLabel(ManualSim& m, const std::string& node, const std::string& key) {
  return Str(m.Get(kNodes, "", node), {"metadata", "labels", key.c_str()});
}

std::string Capacity(ManualSim& m, const std::string& node, const std::string& res) {
  return Str(m.Get(kNodes, "", node), {"status", "capacity", res.c_str()});
}

// ConfigMap edits reach the node at once (configmap_sync is tested on its own).
Settings NoSyncDelay() {
  Settings s;
  s.config_map_sync_delay_ms = 0;
  return s;
}

// Cordons the node and deletes the pods holding its GPUs (their
// controllers recreate them elsewhere): mig-manager's precondition.
void MakeIdle(ManualSim& m, const std::string& node) {
  m.Mutate(kNodes, "", node, [](json& n) { n["spec"]["unschedulable"] = true; });
  for (const auto& p : m.store().List(kPods, "")) {
    if (Str(p, {"spec", "nodeName"}) == node && ControllerRef(p) != nullptr &&
        (*ControllerRef(p)).value("kind", "") != "DaemonSet") {
      ASSERT_TRUE(m.store().Delete(kPods, Namespace(p), Name(p)).ok());
    }
  }
  m.sim().AfterWrite();
  m.Mutate(kNodes, "", node, [](json& n) { n["spec"].erase("unschedulable"); });
}

// The log of the node's mig-manager pod.
std::string MigLog(ManualSim& m, const std::string& node) {
  for (const auto& p : m.store().List(kPods, "gpu-operator")) {
    if (Str(p, {"spec", "nodeName"}) == node && Name(p).rfind("nvidia-mig-manager-", 0) == 0) {
      return m.sim().logs().Text(Uid(p));
    }
  }
  return "";
}

TEST(GpuOperatorTest, MigReconfigurationSucceeds) {
  ManualSim m(NoSyncDelay());
  m.Create(kConfigMaps, MigConfigMap());
  MakeIdle(m, "gpu-b");
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "half-balanced"; });
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "pending");
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/gpu.deploy.device-plugin"), "paused-for-mig-change");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/gpu"), "8");
  EXPECT_EQ(Str(m.Get(kNodes, "", "gpu-b"), {"status", "allocatable", "nvidia.com/gpu"}), "0");
  m.Advance(299);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "pending");
  m.Advance(1);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/gpu.deploy.device-plugin"), "true");
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.strategy"), "mixed");
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig-1g.10gb.count"), "8");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/gpu"), "4");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/mig-1g.10gb"), "8");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/mig-2g.20gb"), "4");
  EXPECT_EQ(Str(m.Get(kNodes, "", "gpu-b"), {"status", "allocatable", "nvidia.com/mig-3g.40gb"}), "4");
  // A pod asking for a MIG slice now schedules there.
  m.Create(kPods, PodRequesting("sliced", "nvidia.com/mig-1g.10gb", "1"));
  EXPECT_EQ(Str(m.Get(kPods, "ml", "sliced"), {"spec", "nodeName"}), "gpu-b");
  // Back to whole GPUs once it is gone.
  ASSERT_TRUE(m.store().Delete(kPods, "ml", "sliced").ok());
  MakeIdle(m, "gpu-b");
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-disabled"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/gpu"), "8");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/mig-1g.10gb"), "0");  // stale names stay at 0
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig-1g.10gb.count"), "");
}

TEST(GpuOperatorTest, InvalidLayoutFails) {
  ManualSim m(NoSyncDelay());
  m.Create(kConfigMaps, MigConfigMap());
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "overlapping"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "failed");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/gpu"), "8");
  EXPECT_NE(MigLog(m, "gpu-b").find("level=error"), std::string::npos) << MigLog(m, "gpu-b");
  EXPECT_TRUE(m.store().List(kEvents, "").empty());  // like the real one: no Event
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "no-such-config"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "failed");
  EXPECT_NE(MigLog(m, "gpu-b").find("no config named \\\"no-such-config\\\""), std::string::npos) << MigLog(m, "gpu-b");
}

TEST(GpuOperatorTest, MissingConfigMapAndInjectedFaultFail) {
  ManualSim m(NoSyncDelay());
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/mig.config.state"), "failed");
  m.Create(kConfigMaps, MigConfigMap());
  MakeIdle(m, "gpu-b");
  ASSERT_TRUE(m.sim().faults().Configure(json::parse(R"({"failMigConfig": [{"node": "gpu-b", "count": 1}]})")).ok());
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "failed");
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/gpu.deploy.device-plugin"), "true");  // restored
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-disabled"; });
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "success");  // already applied: at once
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "success");  // the fault fired once
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/mig-1g.10gb"), "56");
}

TEST(GpuOperatorTest, GpusOutsideTheCatalogFail) {
  ManualSim m(NoSyncDelay());
  m.Create(kConfigMaps, MigConfigMap());
  m.Mutate(kNodes, "", "gpu-b", [](json& n) {
    n["metadata"]["labels"]["nvidia.com/gpu.product"] = "NVIDIA-FOO";
    n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb";
  });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "failed");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/gpu"), "8");
  EXPECT_NE(MigLog(m, "gpu-b").find("GPU model \\\"NVIDIA-FOO\\\" is not in the MIG catalog"), std::string::npos)
      << MigLog(m, "gpu-b");
  // A catalog model without MIG, with no mig.capable label: the catalog says no.
  m.Mutate(kNodes, "", "gpu-a", [](json& n) {
    n["metadata"]["labels"]["nvidia.com/gpu.product"] = "NVIDIA-L4";
    n["metadata"]["labels"]["nvidia.com/gpu.memory"] = "23034";
    n["metadata"]["labels"].erase("nvidia.com/mig.capable");
    n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb";
  });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/mig.config.state"), "failed");
  EXPECT_NE(MigLog(m, "gpu-a").find("is not MIG capable"), std::string::npos) << MigLog(m, "gpu-a");
  // Disabling MIG works on any GPU (here: already applied).
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/mig.config"] = "all-disabled"; });
  m.Advance(300);
  EXPECT_EQ(NodeLabel(m, "gpu-b", "nvidia.com/mig.config.state"), "success");
  EXPECT_EQ(Capacity(m, "gpu-b", "nvidia.com/gpu"), "8");
}

json DevicePluginConfigMap() {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", "kubeon-device-plugin-config"}, {"namespace", "gpu-operator"}}},
          {"data", {{"ts4", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"},
                    {"ts3-renamed", "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 3\n"},
                    {"broken", "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 0\n"}}}};
}

TEST(GpuOperatorTest, DevicePluginTimeSlicing) {
  ManualSim m(NoSyncDelay());
  m.Create(kConfigMaps, DevicePluginConfigMap());
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "ts4"; });
  EXPECT_EQ(Capacity(m, "gpu-a", "nvidia.com/gpu"), "32");
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/gpu.replicas"), "4");
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/gpu.sharing-strategy"), "time-slicing");
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB-SHARED");
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "ts3-renamed"; });
  EXPECT_EQ(Capacity(m, "gpu-a", "nvidia.com/gpu"), "0");  // the old name stays at 0
  EXPECT_EQ(Capacity(m, "gpu-a", "nvidia.com/gpu.shared"), "24");
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"]["nvidia.com/device-plugin.config"] = "broken"; });
  // A bad config crash-loops the plugin: nothing allocatable, capacity kept.
  EXPECT_EQ(Capacity(m, "gpu-a", "nvidia.com/gpu.shared"), "24");
  EXPECT_EQ(Str(m.Get(kNodes, "", "gpu-a"), {"status", "allocatable", "nvidia.com/gpu.shared"}), "0");
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"].erase("nvidia.com/device-plugin.config"); });
  EXPECT_EQ(Capacity(m, "gpu-a", "nvidia.com/gpu"), "8");
  EXPECT_EQ(NodeLabel(m, "gpu-a", "nvidia.com/gpu.sharing-strategy"), "none");
}

TEST(GpuOperatorTest, DevicePluginConfigParsing) {
  auto ok = ParseDevicePluginConfig("version: v1\nflags:\n  migStrategy: mixed\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n", "x");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok.value().rename_by_default);
  EXPECT_EQ(ok.value().replicas.at("nvidia.com/gpu"), 10);
  EXPECT_FALSE(ParseDevicePluginConfig("version: v2\n", "x").ok());
  EXPECT_FALSE(ParseDevicePluginConfig("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: amd.com/gpu\n      replicas: 2\n", "x").ok());
  auto bad = ParseDevicePluginConfig("version: v1\nextra: 1\n", "cm/x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("cm/x: extra"), std::string::npos);
}

}  // namespace
}  // namespace kubeon::kubesim
