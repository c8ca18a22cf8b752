// What the executor (src/apply/) needs from kube-sim, driven with the oldest
// and newest supported kubectl (1.27, 1.33): coordination.k8s.io/v1 Leases
// (`kubectl apply -f`, `kubectl get leases -A`).  A kubectl that is not
// installed is skipped.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::RunResult;

const char* kLease = R"(apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: kubeon-policy-default
  namespace: kube-system
spec:
  holderIdentity: host-1_4711
  leaseDurationSeconds: 30
  acquireTime: "2026-12-03T12:00:00.123456Z"
  renewTime: "2026-12-03T12:00:10.654321Z"
  leaseTransitions: 0
)";

class KubectlExecutorTest : public testing::KubectlSimTest<std::string> {
 protected:
  void SetUp() override { StartSim(GetParam()); }

  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_P(KubectlExecutorTest, Leases) {
  RunResult created = Kubectl({"apply", "-f", WriteFile("lease.yaml", kLease)});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_NE(created.out.find("lease.coordination.k8s.io/kubeon-policy-default created"), std::string::npos)
      << created.out;
  std::string renewed = kLease;
  renewed.replace(renewed.find("12:00:10.654321Z"), 16, "12:00:20.000001Z");
  RunResult again = Kubectl({"apply", "-f", WriteFile("lease.yaml", renewed)});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("configured"), std::string::npos) << again.out;

  RunResult table = Kubectl({"get", "leases", "-A"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("HOLDER"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("kube-system   kubeon-policy-default   host-1_4711"), std::string::npos) << table.out;
  RunResult got = Kubectl({"get", "lease", "-n", "kube-system", "kubeon-policy-default", "-o", "json"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  json lease = json::parse(got.out, nullptr, false);
  ASSERT_TRUE(lease.is_object()) << got.out;
  EXPECT_EQ(lease["spec"]["renewTime"], "2026-12-03T12:00:20.000001Z");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 30);
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlExecutorTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
