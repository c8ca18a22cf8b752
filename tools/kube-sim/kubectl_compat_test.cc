// kubectl compatibility: runs kube-sim as a subprocess (port 0), waits for
// its kubeconfig, and drives it with the real kubectl binaries installed on
// the machine (`kubectl` on PATH and the kubectl.1.27 ... kubectl.1.33 next
// to the binary it resolves to): get -o json, label, cordon/uncordon, and
// drain, which must block on a PodDisruptionBudget with disruptionsAllowed
// 0 until its --timeout and succeed once the budget allows evictions.
// A kubectl that is not installed is skipped, not failed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::RunProcess;
using testing::KubectlPath;
using testing::RunResult;

struct Case {
  std::string binary;
  int drain_timeout_sec;  // how long the blocked drain waits
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.binary; }

class KubectlCompatTest : public testing::KubectlSimTest<Case> {
 protected:
  // Evicted pods terminate within 0.5 s instead of their 30 s grace
  // period, so the drains below finish quickly.
  void SetUp() override { StartSim(GetParam().binary, {"--settings", R"({"podShutdownMs": 500})"}); }

  json KubectlJson(std::vector<std::string> args) {
    args.push_back("-o");
    args.push_back("json");
    RunResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
};

TEST_P(KubectlCompatTest, GetLabelCordonDrain) {
  // get nodes,pods -A -o json
  json all = KubectlJson({"get", "nodes,pods", "-A"});
  ASSERT_TRUE(all.is_object()) << "unparsable kubectl output";
  EXPECT_EQ(all["kind"], "List");
  std::vector<std::string> kinds;
  size_t operator_pods = 0;  // the GPU operator's DaemonSet pods: 4 per GPU node
  for (const auto& item : all["items"]) {
    if (item["metadata"].value("namespace", "") == "gpu-operator") {
      ++operator_pods;
      continue;
    }
    kinds.push_back(item["kind"].get<std::string>() + "/" + item["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(operator_pods, 8u);
  EXPECT_EQ(kinds, (std::vector<std::string>{"Node/cpu-1", "Node/gpu-a", "Node/gpu-b", "Pod/trainer-6d4cf56db6-m9q4z",
                                             "Pod/trainer-6d4cf56db6-x7k2p", "Pod/infer-0"}));

  // label
  RunResult label = Kubectl({"label", "node", "gpu-a", "foo=bar"});
  EXPECT_EQ(label.exit_code, 0) << label.err;
  EXPECT_EQ(KubectlJson({"get", "node", "gpu-a"})["metadata"]["labels"]["foo"], "bar");
  RunResult relabel = Kubectl({"label", "node", "gpu-a", "foo=baz"});
  EXPECT_NE(relabel.exit_code, 0) << "relabelling without --overwrite must fail";
  EXPECT_EQ(Kubectl({"label", "node", "gpu-a", "foo=baz", "--overwrite"}).exit_code, 0);
  EXPECT_EQ(Kubectl({"label", "node", "gpu-a", "foo-"}).exit_code, 0);
  EXPECT_FALSE(KubectlJson({"get", "node", "gpu-a"})["metadata"]["labels"].contains("foo"));

  // cordon / uncordon
  EXPECT_EQ(Kubectl({"cordon", "gpu-b"}).exit_code, 0);
  EXPECT_EQ(KubectlJson({"get", "node", "gpu-b"})["spec"]["unschedulable"], true);
  EXPECT_EQ(Kubectl({"uncordon", "gpu-b"}).exit_code, 0);
  EXPECT_FALSE(KubectlJson({"get", "node", "gpu-b"})["spec"].contains("unschedulable"));

  // drain blocked by the PDB (minAvailable 2 of 2 healthy): times out
  const int t = GetParam().drain_timeout_sec;
  auto start = std::chrono::steady_clock::now();
  RunResult blocked = Kubectl({"drain", "gpu-a", "--ignore-daemonsets", "--pod-selector=app=trainer",
                               "--timeout=" + std::to_string(t) + "s"}, t + 40);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(blocked.timed_out);
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_GE(took, t - 1.0);
  EXPECT_NE(blocked.err.find("Cannot evict pod as it would violate the pod's disruption budget"), std::string::npos)
      << blocked.err;
  json trainers = KubectlJson({"get", "pods", "-n", "ml", "-l", "app=trainer"});
  ASSERT_EQ(trainers["items"].size(), 2u);
  for (const auto& p : trainers["items"]) EXPECT_EQ(p["spec"]["nodeName"], "gpu-a");
  EXPECT_EQ(KubectlJson({"get", "node", "gpu-a"})["spec"]["unschedulable"], true);

  // the budget allows one disruption: the drain evicts both, one at a time
  RunResult patched = Kubectl({"patch", "pdb", "trainer-pdb", "-n", "ml", "--type=merge", "-p", R"({"spec":{"minAvailable":1}})"});
  EXPECT_EQ(patched.exit_code, 0) << patched.err;
  RunResult drained = Kubectl({"drain", "gpu-a", "--ignore-daemonsets", "--pod-selector=app=trainer", "--timeout=30s"}, 70);
  EXPECT_EQ(drained.exit_code, 0) << drained.err;
  EXPECT_NE(drained.out.find("evicted"), std::string::npos) << drained.out;
  trainers = KubectlJson({"get", "pods", "-n", "ml", "-l", "app=trainer"});
  ASSERT_EQ(trainers["items"].size(), 2u);
  for (const auto& p : trainers["items"]) {
    EXPECT_EQ(p["spec"]["nodeName"], "gpu-b");
    EXPECT_EQ(p["status"]["phase"], "Running");
  }

  // the whole node: the DaemonSet pod is ignored, nothing else is left
  RunResult whole = Kubectl({"drain", "gpu-a", "--ignore-daemonsets", "--timeout=20s"}, 60);
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_NE(whole.err.find("DaemonSet"), std::string::npos) << whole.err;
  EXPECT_EQ(Kubectl({"uncordon", "gpu-a"}).exit_code, 0);
}

TEST_P(KubectlCompatTest, ErrorsAreReadable) {
  RunResult missing = Kubectl({"get", "pod", "nope", "-n", "ml"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("pods \"nope\" not found"), std::string::npos) << missing.err;
  RunResult bad_selector = Kubectl({"get", "pods", "-A", "--field-selector", "spec.bogus=1"});
  EXPECT_NE(bad_selector.exit_code, 0);
  EXPECT_NE(bad_selector.err.find("field label not supported"), std::string::npos) << bad_selector.err;
}

INSTANTIATE_TEST_SUITE_P(
    Kubectl, KubectlCompatTest,
    ::testing::Values(Case{"kubectl", 20}, Case{"kubectl.1.27", 20}, Case{"kubectl.1.33", 20}, Case{"kubectl.1.28", 6},
                      Case{"kubectl.1.29", 6}, Case{"kubectl.1.30", 6}, Case{"kubectl.1.31", 6}, Case{"kubectl.1.32", 6}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string n = info.param.binary;
      for (char& c : n) {
        if (c == '.') c = '_';
      }
      return n;
    });

}  // namespace
}  // namespace kubeon::kubesim
