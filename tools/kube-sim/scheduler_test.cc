// Tests for the scheduler's taint rules (scheduler.h) and for the writes the
// executor makes through the API to steer a rollout: a reservation taint and
// annotations on a node, tolerations, node affinity and GPU resources on a
// Deployment's pod template (strategic merge and merge patch), all with
// fieldValidation=Strict; the rollout's new pods then land only on the
// tainted node they tolerate, while other pods stay off it.
#include "scheduler.h"

#include <gtest/gtest.h>

#include "api.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;
using testing::TestRequest;

json PodTolerating(const std::string& tolerations) {
  return {{"spec", {{"tolerations", json::parse(tolerations)}}}};
}

TEST(ToleratesTaintTest, OperatorsKeysValuesAndEffects) {
  const json step = {{"key", "gpu.kubeon.io/step"}, {"value", "abc12345"}, {"effect", "NoSchedule"}};
  struct Case {
    const char* tolerations;
    bool tolerates;
  };
  for (const Case& c : {
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Exists", "effect": "NoSchedule"}])", true},
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Exists"}])", true},  // every effect
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Exists", "effect": "NoExecute"}])", false},
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Equal", "value": "abc12345"}])", true},
           Case{R"([{"key": "gpu.kubeon.io/step", "value": "abc12345", "effect": "NoSchedule"}])", true},  // Equal
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Equal", "value": "other"}])", false},
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Equal"}])", false},  // value "" != abc12345
           Case{R"([{"key": "gpu.kubeon.io/step", "operator": "Gt", "value": "abc12345"}])", false},
           Case{R"([{"key": "other", "operator": "Exists"}])", false},
           Case{R"([{"operator": "Exists"}])", true},  // tolerates everything
           Case{R"([{"operator": "Exists", "effect": "NoExecute"}])", false},
           Case{R"([{"value": "abc12345"}])", false},  // an empty key needs Exists
           Case{R"([])", false},
       }) {
    EXPECT_EQ(ToleratesTaint(PodTolerating(c.tolerations), step), c.tolerates) << c.tolerations;
  }
  EXPECT_FALSE(ToleratesTaint(json::object(), step));
}

class ExecutorWritesTest : public ::testing::Test {
 protected:
  json Write(const std::string& method, const std::string& target, const json& body, const std::string& type,
             int want = 200) {
    ApiResponse r = api.Handle(TestRequest(method, target, body.dump(), type));
    EXPECT_EQ(r.status, want) << method << " " << target << ": " << r.body;
    for (const auto& [name, value] : r.headers) EXPECT_NE(name, "Warning") << value;
    return json::parse(r.body, nullptr, false);
  }
  std::vector<std::string> NodesOf(const std::string& ns, const std::string& app) {
    std::vector<std::string> out;
    for (const auto& p : m.Pods(ns)) {
      if (Str(p, {"metadata", "labels", "app"}) == app && !Find(p, {"metadata", "deletionTimestamp"})) {
        out.push_back(Str(p, {"spec", "nodeName"}));
      }
    }
    return out;
  }
  json Pod(const std::string& name, const json& tolerations) {
    json pod = {{"metadata", {{"name", name}}},
                {"spec", {{"nodeSelector", {{"kubernetes.io/hostname", "gpu-b"}}},
                          {"containers", {{{"name", "c"}, {"image", "i"},
                                           {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}}};
    if (!tolerations.is_null()) pod["spec"]["tolerations"] = tolerations;
    return pod;
  }

  const std::string kStrict = "?fieldValidation=Strict";
  const std::string kSmp = "application/strategic-merge-patch+json";
  const std::string kMerge = "application/merge-patch+json";
  const json kStepToleration = json::parse(R"([{"key": "gpu.kubeon.io/step", "operator": "Exists",
                                                "effect": "NoSchedule"}])");
  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST_F(ExecutorWritesTest, GpuResourcesAndConfigMapDataPassStrictValidation) {
  json mig = Write("PATCH", "/apis/apps/v1/namespaces/ml/deployments/trainer" + kStrict + "&dryRun=All",
                   json::parse(R"({"spec": {"template": {"spec": {"containers": [{"name": "main", "resources": {
                       "requests": {"nvidia.com/gpu": null, "nvidia.com/mig-1g.10gb": "1"},
                       "limits": {"nvidia.com/gpu": null, "nvidia.com/mig-1g.10gb": "1"}}}]}}}})"),
                   kSmp);
  json resources = mig["spec"]["template"]["spec"]["containers"][0]["resources"];
  EXPECT_EQ(resources["limits"], json::parse(R"({"nvidia.com/mig-1g.10gb": "1"})"));
  EXPECT_EQ(resources["requests"]["cpu"], "2");
  json shared = Write("PATCH", "/apis/apps/v1/namespaces/serving/statefulsets/infer" + kStrict + "&dryRun=All",
                      json::parse(R"({"spec": {"template": {"spec": {"containers": [{"name": "server", "image": "x",
                          "resources": {"limits": {"nvidia.com/gpu.shared": "1"}}}]}}}})"),
                      kMerge);
  EXPECT_EQ(shared["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu.shared"], "1");
  json cm = Write("POST", "/api/v1/namespaces/gpu-operator/configmaps" + kStrict,
                  json::parse(R"({"metadata": {"name": "kubeon-mig-parted-config"},
                                  "data": {"config.yaml": "version: v1\nmig-configs: {}\n"}})"),
                  "application/json", 201);
  EXPECT_EQ(cm["data"]["config.yaml"], "version: v1\nmig-configs: {}\n");
}

TEST_F(ExecutorWritesTest, RolloutLandsOnlyOnTheReservedNode) {
  // Reserve gpu-b for the step (merge patch), as the executor does.
  json node = Write("PATCH", "/api/v1/nodes/gpu-b" + kStrict, json::parse(R"({"metadata": {"annotations": {
      "karpenter.sh/do-not-disrupt": "true", "cluster-autoscaler.kubernetes.io/scale-down-disabled": "true"}},
      "spec": {"taints": [{"key": "gpu.kubeon.io/step", "value": "abc12345", "effect": "NoSchedule"}]}})"), kMerge);
  EXPECT_EQ(node["spec"]["taints"][0]["value"], "abc12345");
  EXPECT_EQ(node["metadata"]["annotations"]["karpenter.sh/do-not-disrupt"], "true");

  // A pod that does not tolerate the reservation stays off gpu-b.
  Write("POST", "/api/v1/namespaces/ml/pods" + kStrict, Pod("intruder", nullptr), "application/json", 201);
  json intruder = m.Get(kPods, "ml", "intruder");
  EXPECT_EQ(Str(intruder, {"spec", "nodeName"}), "");
  const json* cond = testing::Condition(intruder, "PodScheduled");
  ASSERT_NE(cond, nullptr);
  EXPECT_NE((*cond)["message"].get<std::string>().find("untolerated taint {gpu.kubeon.io/step: abc12345}"),
            std::string::npos) << (*cond)["message"];

  // Move the owner (strategic merge patch): tolerate the reservation, require gpu-b.
  json dep = Write("PATCH", "/apis/apps/v1/namespaces/ml/deployments/trainer" + kStrict, json::parse(R"({
      "metadata": {"annotations": {"gpu.kubeon.io/change": "abc12345"}},
      "spec": {"template": {"spec": {
        "tolerations": [{"key": "gpu.kubeon.io/step", "operator": "Exists", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-b"]}]}]}}},
        "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}}})"), kSmp);
  EXPECT_EQ(dep["spec"]["template"]["spec"]["tolerations"], kStepToleration);
  EXPECT_EQ(dep["metadata"]["annotations"]["gpu.kubeon.io/change"], "abc12345");
  // ... and its resources by merge patch (the whole containers list).
  json containers = dep["spec"]["template"]["spec"]["containers"];
  containers[0]["resources"]["requests"]["cpu"] = "1";
  Write("PATCH", "/apis/apps/v1/namespaces/ml/deployments/trainer" + kStrict,
        {{"spec", {{"template", {{"spec", {{"containers", containers}}}}}}}}, kMerge);

  for (int i = 0; i < 20 && NodesOf("ml", "trainer") != std::vector<std::string>{"gpu-b", "gpu-b"}; ++i) {
    m.Advance(31000);  // past the old pods' 30 s grace period
  }
  EXPECT_EQ(NodesOf("ml", "trainer"), (std::vector<std::string>{"gpu-b", "gpu-b"}));
  for (const auto& p : m.Pods("ml")) {
    if (Str(p, {"metadata", "labels", "app"}) != "trainer" || Find(p, {"metadata", "deletionTimestamp"})) continue;
    EXPECT_EQ(p["spec"]["tolerations"], kStepToleration);
    EXPECT_EQ(p["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1");
  }
  EXPECT_EQ(Str(m.Get(kPods, "ml", "intruder"), {"spec", "nodeName"}), "");

  // Cordoned, gpu-b takes only pods that also tolerate node.kubernetes.io/unschedulable.
  Write("PATCH", "/api/v1/nodes/gpu-b", json::parse(R"({"spec": {"unschedulable": true}})"), kSmp);
  Write("POST", "/api/v1/namespaces/ml/pods", Pod("reserved", kStepToleration), "application/json", 201);
  json both = kStepToleration;
  both.push_back({{"key", "node.kubernetes.io/unschedulable"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
  Write("POST", "/api/v1/namespaces/ml/pods", Pod("reserved-cordoned", both), "application/json", 201);
  m.Advance(100);
  EXPECT_EQ(Str(m.Get(kPods, "ml", "reserved"), {"spec", "nodeName"}), "");
  EXPECT_EQ(Str(m.Get(kPods, "ml", "reserved-cordoned"), {"spec", "nodeName"}), "gpu-b");
  EXPECT_EQ(Str(m.Get(kPods, "ml", "intruder"), {"spec", "nodeName"}), "");
}

}  // namespace
}  // namespace kubeon::kubesim
