// `kubectl apply -f` (client-side apply) against kube-sim with the oldest
// and newest supported kubectl, without --validate=false: kubectl 1.27
// downloads /openapi/v2 as protobuf and /openapi/v3, kubectl 1.33 only
// /openapi/v3; both then send fieldValidation=Strict.  Covered: create
// (with the last-applied-configuration annotation), a second apply with
// changes (a three-way strategic merge patch) for a ConfigMap, a Deployment
// (replicas and one container's resources) and a labelled Node, mistyped
// fields rejected on create (400) and on update (422) with the server's
// messages, --validate=warn, and `kubectl explain`.  A kubectl that is not
// installed is skipped.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::RunProcess;
using testing::RunResult;

const char* kConfigMap = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: demo
  namespace: default
data:
  a: "1"
)";

const char* kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  namespace: default
spec:
  REPLICAS
  selector:
    matchLabels: {app: web}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1
        env:
        - {name: MODE, value: fast}
        resources:
          requests: {cpu: CPU}
          limits: {nvidia.com/gpu: "1"}
      - name: sidecar
        image: busybox
      nodeSelector: {nvidia.com/gpu.present: "true"}
      tolerations:
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
)";

const char* kNode = R"(apiVersion: v1
kind: Node
metadata:
  name: gpu-c
  labels:
    nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB
    tier: TIER
spec:
  taints:
  - {key: nvidia.com/gpu, value: "true", effect: NoSchedule}
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class KubectlApplyTest : public testing::KubectlSimTest<std::string> {
 protected:
  void SetUp() override { StartSim(GetParam()); }

  // Writes `yaml` to a file and runs `kubectl apply -f` on it.
  RunResult Apply(const std::string& yaml, std::vector<std::string> extra = {}) {
    std::string path = dir_ + "/manifest-" + std::to_string(files_++) + ".yaml";
    std::ofstream(path) << yaml;
    std::vector<std::string> args = {"apply", "-f", path};
    args.insert(args.end(), extra.begin(), extra.end());
    return Kubectl(args, 60);
  }
  json Get(const std::string& what, const std::string& name, const std::string& ns = "") {
    std::vector<std::string> args = {"get", what, name, "-o", "json"};
    if (!ns.empty()) args.insert(args.end(), {"-n", ns});
    RunResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  static std::string Deployment(const std::string& name, int replicas, const std::string& cpu,
                                const std::string& replicas_field = "replicas") {
    return Replace(Replace(Replace(kDeployment, "NAME", name), "REPLICAS", replicas_field + ": " + std::to_string(replicas)),
                   "CPU", cpu);
  }

  int files_ = 0;
};

TEST_P(KubectlApplyTest, ConfigMap) {
  RunResult created = Apply(kConfigMap);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_NE(created.out.find("configmap/demo created"), std::string::npos) << created.out;
  json cm = Get("configmap", "demo", "default");
  std::string last = cm["metadata"]["annotations"].value("kubectl.kubernetes.io/last-applied-configuration", "");
  ASSERT_FALSE(last.empty());
  EXPECT_EQ(json::parse(last)["data"], json({{"a", "1"}}));

  RunResult updated = Apply(Replace(kConfigMap, "a: \"1\"", "a: \"2\"\n  b: x"));
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_NE(updated.out.find("configmap/demo configured"), std::string::npos) << updated.out;
  EXPECT_EQ(Get("configmap", "demo", "default")["data"], json({{"a", "2"}, {"b", "x"}}));

  RunResult typo = Apply(Replace(kConfigMap, "\ndata:", "\ndta:"));
  EXPECT_NE(typo.exit_code, 0);
  EXPECT_NE(typo.err.find("The request is invalid: patch: Invalid value:"), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("strict decoding error: unknown field \"dta\""), std::string::npos) << typo.err;
  EXPECT_EQ(Get("configmap", "demo", "default")["data"], json({{"a", "2"}, {"b", "x"}}));
}

TEST_P(KubectlApplyTest, Deployment) {
  RunResult created = Apply(Deployment("web", 2, "100m"));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_NE(created.out.find("deployment.apps/web created"), std::string::npos) << created.out;
  // A change made outside the manifest survives the next apply (three-way merge).
  ASSERT_EQ(Kubectl({"annotate", "deployment", "web", "-n", "default", "team=ml"}).exit_code, 0);

  RunResult updated = Apply(Deployment("web", 3, "200m"));
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_NE(updated.out.find("deployment.apps/web configured"), std::string::npos) << updated.out;
  json d = Get("deployment", "web", "default");
  EXPECT_EQ(d["spec"]["replicas"], 3);
  EXPECT_EQ(d["metadata"]["annotations"]["team"], "ml");
  const json& containers = d["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u) << containers.dump();
  EXPECT_EQ(containers[0]["name"], "app");
  EXPECT_EQ(containers[0]["resources"], json({{"requests", {{"cpu", "200m"}}}, {"limits", {{"nvidia.com/gpu", "1"}}}}));
  EXPECT_EQ(containers[0]["env"], json::parse(R"([{"name":"MODE","value":"fast"}])"));
  EXPECT_EQ(containers[1]["name"], "sidecar");
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], 1);
  EXPECT_EQ(d["spec"]["template"]["spec"]["tolerations"].size(), 1u);

  // Mistyped on create: 400 from the decoder, nothing stored.
  RunResult bad_create = Apply(Deployment("web2", 1, "100m", "replcas"));
  EXPECT_NE(bad_create.exit_code, 0);
  EXPECT_NE(bad_create.err.find("Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
                                "unknown field \"spec.replcas\""),
            std::string::npos)
      << bad_create.err;
  EXPECT_NE(Kubectl({"get", "deployment", "web2", "-n", "default"}).exit_code, 0);

  // Mistyped on update: the patch is rejected, the object unchanged.
  RunResult bad_update = Apply(Deployment("web", 4, "300m", "replcas"));
  EXPECT_NE(bad_update.exit_code, 0);
  EXPECT_NE(bad_update.err.find("strict decoding error: unknown field \"spec.replcas\""), std::string::npos)
      << bad_update.err;
  EXPECT_EQ(Get("deployment", "web", "default")["spec"]["replicas"], 3);

  // --validate=warn: the unknown field is dropped with a warning.
  RunResult warned = Apply(Deployment("web3", 1, "100m", "replcas"), {"--validate=warn"});
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("Warning: unknown field \"spec.replcas\""), std::string::npos) << warned.err;
  EXPECT_FALSE(Get("deployment", "web3", "default")["spec"].contains("replcas"));

  RunResult explain = Kubectl({"explain", "deployment.spec.strategy"});
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("rollingUpdate"), std::string::npos) << explain.out;
}

TEST_P(KubectlApplyTest, LabelledNode) {
  RunResult created = Apply(Replace(kNode, "TIER", "a"));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_NE(created.out.find("node/gpu-c created"), std::string::npos) << created.out;
  RunResult updated = Apply(Replace(kNode, "TIER", "b"));
  ASSERT_EQ(updated.exit_code, 0) << updated.err;
  json n = Get("node", "gpu-c");
  EXPECT_EQ(n["metadata"]["labels"]["tier"], "b");
  EXPECT_EQ(n["metadata"]["labels"]["nvidia.com/gpu.product"], "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(n["spec"]["taints"][0]["key"], "nvidia.com/gpu");
  RunResult typo = Apply(Replace(Replace(kNode, "TIER", "b"), "spec:", "spce:"));
  EXPECT_NE(typo.exit_code, 0);
  EXPECT_NE(typo.err.find("unknown field \"spce\""), std::string::npos) << typo.err;
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlApplyTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
