// What the executor (src/apply/) needs from kube-sim, driven with the oldest
// and newest supported kubectl (1.27, 1.33): coordination.k8s.io/v1 Leases
// (`kubectl apply -f`, `kubectl get leases -A`, the managedFields kubectl's
// writes leave, `--show-managed-fields`) and the identity of each
// kubeconfig kube-sim writes (`kubectl auth whoami -o json`: the admin
// token, the admin client certificate, a `users` token and a `users` client
// certificate), and the uid of namespace kube-system (the cluster's
// identity).  A kubectl that is not installed is skipped.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "sim.h"
#include "test_kubectl.h"
#include "test_util.h"

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
  void SetUp() override {
    StartSim(GetParam(), {"--client-cert-kubeconfig-out", "$DIR/cert.kubeconfig", "--user-kubeconfig-dir", "$DIR",
                          "--settings", R"({"users": [{"name": "alice", "uid": "u-alice", "groups": ["reviewers"],
                                                       "token": "alice-token"},
                                                      {"name": "bob", "groups": ["reviewers", "ops"]}]})"});
  }

  // status.userInfo of `kubectl auth whoami -o json` with `kubeconfig`.
  json WhoAmI(const std::string& kubeconfig) {
    RunResult r = KubectlWith(kubeconfig, {"auth", "whoami", "-o", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json review = json::parse(r.out, nullptr, false);
    return review.is_object() ? review["status"]["userInfo"] : json();
  }

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
  EXPECT_FALSE(lease["metadata"].contains("managedFields")) << "kubectl hides them by default";

  // managedFields name kubectl's field managers; a third apply round-trips.
  ASSERT_EQ(Kubectl({"label", "lease", "-n", "kube-system", "kubeon-policy-default", "owner=kubeon"}).exit_code, 0);
  RunResult shown = Kubectl({"get", "lease", "-n", "kube-system", "kubeon-policy-default", "-o", "json",
                             "--show-managed-fields"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::vector<std::string> managers;
  const json entries = json::parse(shown.out)["metadata"]["managedFields"];
  for (const auto& e : entries) {
    managers.push_back(e["manager"].get<std::string>() + "/" + e["operation"].get<std::string>());
  }
  EXPECT_EQ(managers, (std::vector<std::string>{"kubectl-client-side-apply/Update", "kubectl-label/Update"}));
  RunResult third = Kubectl({"apply", "-f", dir_ + "/lease.yaml"});
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_NE(third.out.find("unchanged"), std::string::npos) << third.out;
}

TEST_P(KubectlExecutorTest, WhoAmI) {
  EXPECT_EQ(WhoAmI(sim_->kubeconfig()),
            json::parse(R"({"username": "kube-sim-admin", "groups": ["system:masters", "system:authenticated"]})"));
  EXPECT_EQ(WhoAmI(dir_ + "/cert.kubeconfig"),
            json::parse(R"({"username": "kube-sim-admin", "groups": ["system:masters", "system:authenticated"]})"));
  EXPECT_EQ(WhoAmI(dir_ + "/alice.kubeconfig"),
            json::parse(R"({"username": "alice", "uid": "u-alice", "groups": ["reviewers", "system:authenticated"]})"));
  EXPECT_EQ(WhoAmI(dir_ + "/bob.kubeconfig"),
            json::parse(R"({"username": "bob", "groups": ["reviewers", "ops", "system:authenticated"]})"));
}

TEST_P(KubectlExecutorTest, KubeSystemUidIsTheClusterIdentity) {
  RunResult r = Kubectl({"get", "ns", "kube-system", "-o", "jsonpath={.metadata.uid}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, KubeSystemUid(testing::TestdataJson("small.json").dump()));
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlExecutorTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
