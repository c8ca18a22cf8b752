// End-to-end: the simulated GPU Operator driven with the real kubectl
// (oldest and newest supported: kubectl.1.27 and kubectl.1.33; skipped when
// not installed), kube-sim running as a subprocess on testdata/small.json
// with a 10x clock and a one-hour MIG apply, so that each step is seen and
// the test moves time on with POST /sim/clock (`kubectl create --raw`).
//
// Labelling a busy node fails, advertises nothing and says why in the
// mig-manager pod's log; labelling it again with the same value changes
// nothing; an idle node goes pending (operator pods gone, allocatable 0)
// then success (pods back, MIG devices advertised); `kubectl get nodes -L`
// shows the states.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::KubectlPath;
using testing::RunProcess;
using testing::RunResult;

class OperatorKubectlTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    kubectl_ = KubectlPath(GetParam());
    if (kubectl_.empty()) GTEST_SKIP() << GetParam() << " is not installed";
    dir_ = testing::MakeTempDir("kubesim-operator-");
    ASSERT_FALSE(dir_.empty());
    sim_ = std::make_unique<testing::SimProcess>(
        KUBE_SIM_BINARY, std::string(KUBESIM_TESTDATA) + "/small.json", dir_,
        std::vector<std::string>{"--settings", R"({"timeScale": 10, "migReconfigureDelayMs": 3600000})"});
    ASSERT_TRUE(sim_->ready()) << "kube-sim did not start: " << sim_->Stderr();
  }
  void TearDown() override {
    if (sim_) {
      EXPECT_EQ(sim_->Stop(), 0);
    }
    if (!dir_.empty()) RunProcess({"rm", "-rf", dir_}, 30);
  }

  RunResult Kubectl(std::vector<std::string> args) {
    std::vector<std::string> argv = {kubectl_, "--kubeconfig", sim_->kubeconfig(), "--cache-dir", dir_ + "/cache",
                                     "--request-timeout", "15s"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, 30, {"HOME=" + dir_, "KUBECONFIG="});
  }
  std::string Ok(std::vector<std::string> args) {
    RunResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    return r.out;
  }
  json Node(const std::string& name) { return json::parse(Ok({"get", "node", name, "-o", "json"}), nullptr, false); }
  std::string State(const std::string& node) {
    return Node(node)["metadata"]["labels"].value("nvidia.com/mig.config.state", "");
  }
  // Polls (real time, generous) until the node's MIG state is `want`.
  bool WaitState(const std::string& node, const std::string& want) {
    for (int i = 0; i < 200; ++i) {
      if (State(node) == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  void AdvanceClock(int seconds) {
    std::string file = dir_ + "/advance.json";
    std::ofstream(file) << json{{"advanceSeconds", seconds}}.dump();
    Ok({"create", "--raw", "/sim/clock", "-f", file});
  }
  // Names of the gpu-operator pods on the node.
  std::vector<std::string> OperatorPods(const std::string& node) {
    json pods = json::parse(Ok({"get", "pods", "-n", "gpu-operator", "--field-selector", "spec.nodeName=" + node,
                                "-o", "json"}), nullptr, false);
    std::vector<std::string> out;
    for (const auto& p : pods["items"]) out.push_back(p["metadata"]["name"].get<std::string>());
    return out;
  }
  std::string MigManagerPod(const std::string& node) {
    for (const auto& name : OperatorPods(node)) {
      if (name.rfind("nvidia-mig-manager-", 0) == 0) return name;
    }
    return "";
  }

  std::string kubectl_;
  std::string dir_;
  std::unique_ptr<testing::SimProcess> sim_;
};

TEST_P(OperatorKubectlTest, MigConfigLifecycle) {
  // Posted as JSON: kubectl 1.33's `create configmap` sends protobuf, which kube-sim does not read.
  std::ifstream in(std::string(KUBESIM_TESTDATA) + "/mig-parted-config.yaml");
  std::stringstream yaml;
  yaml << in.rdbuf();
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
             {"metadata", {{"name", "kubeon-mig-parted-config"}, {"namespace", "gpu-operator"}}},
             {"data", {{"config.yaml", yaml.str()}}}};
  std::ofstream(dir_ + "/cm.json") << cm.dump();
  Ok({"create", "--raw", "/api/v1/namespaces/gpu-operator/configmaps", "-f", dir_ + "/cm.json"});
  AdvanceClock(120);  // past the kubelet's ConfigMap sync

  // gpu-a runs the trainers: the MIG mode change fails, nothing is advertised.
  Ok({"label", "node", "gpu-a", "nvidia.com/mig.config=all-1g.10gb", "--overwrite"});
  ASSERT_TRUE(WaitState("gpu-a", "failed")) << State("gpu-a");
  json a = Node("gpu-a");
  EXPECT_FALSE(a["status"]["allocatable"].contains("nvidia.com/mig-1g.10gb")) << a["status"];
  EXPECT_EQ(a["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"], "true");
  const std::string pod = MigManagerPod("gpu-a");
  ASSERT_FALSE(pod.empty());
  const std::string log = Ok({"logs", "-n", "gpu-operator", pod});
  EXPECT_NE(log.find("In use by another client"), std::string::npos) << log;
  // The same value again: no change, no new run.
  Ok({"label", "node", "gpu-a", "nvidia.com/mig.config=all-1g.10gb", "--overwrite"});
  AdvanceClock(3600);
  EXPECT_EQ(State("gpu-a"), "failed");
  EXPECT_EQ(Ok({"logs", "-n", "gpu-operator", pod}), log);

  // gpu-b made idle: pending with the operator's GPU clients gone, then success.
  Ok({"cordon", "gpu-b"});
  Ok({"delete", "pod", "infer-0", "-n", "serving"});
  const size_t before = OperatorPods("gpu-b").size();
  EXPECT_EQ(before, 4u);
  Ok({"label", "node", "gpu-b", "nvidia.com/mig.config=all-1g.10gb"});
  ASSERT_TRUE(WaitState("gpu-b", "pending")) << State("gpu-b");
  std::vector<std::string> during = OperatorPods("gpu-b");
  EXPECT_EQ(during, std::vector<std::string>{MigManagerPod("gpu-b")});
  EXPECT_EQ(Node("gpu-b")["status"]["allocatable"]["nvidia.com/gpu"], "0");
  AdvanceClock(3600);
  ASSERT_TRUE(WaitState("gpu-b", "success")) << State("gpu-b");
  EXPECT_EQ(OperatorPods("gpu-b").size(), before);
  EXPECT_EQ(Node("gpu-b")["status"]["allocatable"]["nvidia.com/mig-1g.10gb"], "56");
  Ok({"uncordon", "gpu-b"});

  const std::string table = Ok({"get", "nodes", "-L", "nvidia.com/mig.config.state"});
  EXPECT_NE(table.find("MIG.CONFIG.STATE"), std::string::npos) << table;
  bool a_failed = false, b_success = false;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    a_failed |= line.rfind("gpu-a ", 0) == 0 && line.find(" failed") != std::string::npos;
    b_success |= line.rfind("gpu-b ", 0) == 0 && line.find(" success") != std::string::npos;
  }
  EXPECT_TRUE(a_failed && b_success) << table;
}

INSTANTIATE_TEST_SUITE_P(Kubectl, OperatorKubectlTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '.') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace kubeon::kubesim
