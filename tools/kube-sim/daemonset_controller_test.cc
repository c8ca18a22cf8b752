// Tests for the DaemonSet controller (daemonset_controller.h) on
// testdata/small.json, whose snapshot holds one device-plugin pod on gpu-a.
#include "daemonset_controller.h"

#include <gtest/gtest.h>

#include "scheduler.h"
#include "test_util.h"
#include "workload.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

json DaemonSet(const std::string& name, const json& pod_spec) {
  json labels = {{"app", name}};
  return {{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"},
          {"metadata", {{"name", name}, {"namespace", "kube-system"}}},
          {"spec", {{"selector", {{"matchLabels", labels}}},
                    {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec}}}}}};
}

// Nodes running a pod of the DaemonSet, sorted.
std::vector<std::string> NodesOf(ManualSim& m, const std::string& ns, const std::string& ds) {
  std::vector<std::string> out;
  for (const auto& p : m.store().List(kPods, ns)) {
    const json* ref = ControllerRef(p);
    if (ref != nullptr && ref->value("name", "") == ds) out.push_back(Str(p, {"spec", "nodeName"}));
  }
  std::sort(out.begin(), out.end());
  return out;
}

const json kContainers = json::array({{{"name", "c"}, {"image", "i"}}});

TEST(DaemonSetControllerTest, OnePodPerMatchingNode) {
  ManualSim m;
  m.Create(kDaemonSets, DaemonSet("agent", {{"containers", kContainers}}));
  EXPECT_EQ(NodesOf(m, "kube-system", "agent"), (std::vector<std::string>{"cpu-1", "gpu-a", "gpu-b"}));
  json ds = m.Get(kDaemonSets, "kube-system", "agent");
  EXPECT_EQ(ds["status"]["desiredNumberScheduled"], 3);
  EXPECT_EQ(ds["status"]["numberReady"], 3);
  // Pods are placed by the controller and tolerate what DaemonSet pods tolerate.
  for (const auto& p : m.store().List(kPods, "kube-system")) {
    EXPECT_EQ(PodPhase(p), "Running");
    EXPECT_TRUE(ToleratesTaint(p, {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}}));
    EXPECT_TRUE(ToleratesTaint(p, {{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoExecute"}}));
  }
  // A deleted pod comes back; a cordoned node keeps its pod.
  std::string victim = Name(m.store().List(kPods, "kube-system")[0]);
  ASSERT_TRUE(m.store().Delete(kPods, "kube-system", victim).ok());
  m.Mutate(kNodes, "", "cpu-1", [](json& n) { n["spec"]["unschedulable"] = true; });
  EXPECT_EQ(NodesOf(m, "kube-system", "agent"), (std::vector<std::string>{"cpu-1", "gpu-a", "gpu-b"}));
  EXPECT_TRUE(m.Get(kPods, "kube-system", victim).is_null());
}

TEST(DaemonSetControllerTest, NodeSelectorAndTaints) {
  ManualSim m;
  m.Create(kDaemonSets, DaemonSet("gpu-agent", {{"containers", kContainers}, {"nodeSelector", {{"role", "gpu"}}}}));
  EXPECT_TRUE(NodesOf(m, "kube-system", "gpu-agent").empty());
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"]["role"] = "gpu"; });
  m.Mutate(kNodes, "", "gpu-b", [](json& n) {
    n["metadata"]["labels"]["role"] = "gpu";
    n["spec"]["taints"] = json::parse(R"([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}])");
  });
  EXPECT_EQ(NodesOf(m, "kube-system", "gpu-agent"), std::vector<std::string>{"gpu-a"});
  m.Mutate(kNodes, "", "gpu-a", [](json& n) { n["metadata"]["labels"]["role"] = "cpu"; });
  EXPECT_TRUE(NodesOf(m, "kube-system", "gpu-agent").empty());
  EXPECT_EQ(m.Get(kDaemonSets, "kube-system", "gpu-agent")["status"].value("desiredNumberScheduled", -1), -1);
}

TEST(DaemonSetControllerTest, NewNoScheduleTaintsKeepRunningPodsNoExecuteRemovesThem) {
  ManualSim m;
  m.Create(kDaemonSets, DaemonSet("agent", {{"containers", kContainers}}));
  ASSERT_EQ(NodesOf(m, "kube-system", "agent"), (std::vector<std::string>{"cpu-1", "gpu-a", "gpu-b"}));
  // A reservation taint (NoSchedule) added to a node keeps its pod ...
  m.Mutate(kNodes, "", "gpu-b", [](json& n) {
    n["spec"]["taints"] = json::parse(R"([{"key": "gpu.kubeon.io/step", "value": "s1", "effect": "NoSchedule"}])");
  });
  EXPECT_EQ(NodesOf(m, "kube-system", "agent"), (std::vector<std::string>{"cpu-1", "gpu-a", "gpu-b"}));
  json status = m.Get(kDaemonSets, "kube-system", "agent")["status"];
  EXPECT_EQ(status["desiredNumberScheduled"], 2);
  EXPECT_EQ(status["numberMisscheduled"], 1);
  // ... but a deleted one is not recreated there.
  for (const auto& p : m.store().List(kPods, "kube-system")) {
    if (Str(p, {"spec", "nodeName"}) == "gpu-b") {
      ASSERT_TRUE(m.store().Delete(kPods, "kube-system", Name(p)).ok());
    }
  }
  m.sim().AfterWrite();
  EXPECT_EQ(NodesOf(m, "kube-system", "agent"), (std::vector<std::string>{"cpu-1", "gpu-a"}));
  // An untolerated NoExecute taint removes the running pod.
  m.Mutate(kNodes, "", "gpu-a", [](json& n) {
    n["spec"]["taints"] = json::parse(R"([{"key": "evict", "value": "x", "effect": "NoExecute"}])");
  });
  EXPECT_EQ(NodesOf(m, "kube-system", "agent"), std::vector<std::string>{"cpu-1"});
}

TEST(DaemonSetControllerTest, OperatorDaemonSetsAdoptTheSnapshotPod) {
  ManualSim m;
  // The snapshot's pod (owner uid ds-dp) is the device plugin pod of gpu-a:
  // the operator took its synthesised DaemonSet over rather than adding one.
  json ds = m.Get(kDaemonSets, "gpu-operator", "nvidia-device-plugin-daemonset");
  EXPECT_EQ(Uid(ds), "ds-dp");
  EXPECT_EQ(Str(ds, {"spec", "template", "spec", "nodeSelector", "nvidia.com/gpu.deploy.device-plugin"}), "true");
  EXPECT_FALSE(m.Get(kPods, "gpu-operator", "nvidia-device-plugin-daemonset-4qv8s").is_null());
  EXPECT_EQ(NodesOf(m, "gpu-operator", "nvidia-device-plugin-daemonset"), (std::vector<std::string>{"gpu-a", "gpu-b"}));
  for (const char* ds_name : {"gpu-feature-discovery", "nvidia-dcgm-exporter", "nvidia-mig-manager"}) {
    EXPECT_EQ(NodesOf(m, "gpu-operator", ds_name), (std::vector<std::string>{"gpu-a", "gpu-b"})) << ds_name;
  }
  // A value already set is kept: false means no pod.
  m.Mutate(kNodes, "", "gpu-b", [](json& n) { n["metadata"]["labels"]["nvidia.com/gpu.deploy.dcgm-exporter"] = "false"; });
  EXPECT_EQ(NodesOf(m, "gpu-operator", "nvidia-dcgm-exporter"), std::vector<std::string>{"gpu-a"});
  EXPECT_EQ(Str(m.Get(kNodes, "", "gpu-b"), {"metadata", "labels", "nvidia.com/gpu.deploy.dcgm-exporter"}), "false");
  EXPECT_EQ(Str(m.Get(kNodes, "", "cpu-1"), {"metadata", "labels", "nvidia.com/gpu.deploy.device-plugin"}), "");
}

TEST(DaemonSetControllerTest, SynthesizedDaemonSetsAreLeftAlone) {
  ManualSim m;
  json ds = DaemonSet("from-snapshot", {{"containers", kContainers}});
  ds["metadata"]["annotations"][kSynthesizedAnnotation] = "true";
  m.Create(kDaemonSets, ds);
  EXPECT_TRUE(NodesOf(m, "kube-system", "from-snapshot").empty());
  EXPECT_EQ(m.Get(kDaemonSets, "kube-system", "from-snapshot")["status"].value("desiredNumberScheduled", -1), -1);  // 0
}

}  // namespace
}  // namespace kubeon::kubesim
