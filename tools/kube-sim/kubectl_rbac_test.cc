// Identities and RBAC of kube-sim driven with the oldest and newest
// supported kubectl (1.27, 1.33): `kubectl create serviceaccount|secret|
// clusterrolebinding|rolebinding` (protobuf bodies, protobuf_json.h),
// `kubectl create token` and that token's identity, a forbidden request
// naming the user, `kubectl auth can-i` with a custom verb before and after
// a binding, `kubectl auth can-i --list`, and the audit log lines of it all.
// A kubectl that is not installed is skipped.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "audit_log.h"
#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::RunResult;

const char* kReviewerRole = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kubeon-gpu-reviewer
rules:
- apiGroups: ["gpu.kubeon.io"]
  resources: ["gpuchanges"]
  verbs: ["get", "list", "watch", "patch", "approve", "revert"]
)";

class KubectlRbacTest : public testing::KubectlSimTest<std::string> {
 protected:
  void SetUp() override {
    StartSim(GetParam(), {"--user-kubeconfig-dir", "$DIR", "--audit-log", "$DIR/audit.jsonl", "--settings",
                          R"({"users": [{"name": "alice", "groups": ["reviewers"], "token": "alice-token"}]})"});
  }
  RunResult Ok(std::vector<std::string> args) {
    RunResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << (args.size() > 1 ? args[1] : "") << ": " << r.err;
    return r;
  }
  RunResult Alice(std::vector<std::string> args) { return KubectlWith(dir_ + "/alice.kubeconfig", std::move(args)); }
  // As the bearer token `token` (kubectl --token overrides the kubeconfig's).
  RunResult As(const std::string& token, std::vector<std::string> args) {
    args.insert(args.begin(), {"--token", token});
    return Kubectl(args);
  }
};

TEST_P(KubectlRbacTest, ServiceAccountTokensAndEnforcedRbac) {
  Ok({"create", "namespace", "kubeon-system"});
  Ok({"create", "serviceaccount", "kubeon-gpu", "-n", "kubeon-system"});
  RunResult token = Ok({"create", "token", "kubeon-gpu", "-n", "kubeon-system", "--duration", "1h"});
  std::string t = token.out.substr(0, token.out.find('\n'));
  ASSERT_FALSE(t.empty());
  RunResult who = As(t, {"auth", "whoami", "-o", "json"});
  ASSERT_EQ(who.exit_code, 0) << who.err;
  EXPECT_EQ(json::parse(who.out)["status"]["userInfo"]["username"], "system:serviceaccount:kubeon-system:kubeon-gpu");

  // Nothing is granted yet.
  RunResult denied = As(t, {"get", "pods", "-n", "kubeon-system"});
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.err.find("Error from server (Forbidden): pods is forbidden: User "
                            "\"system:serviceaccount:kubeon-system:kubeon-gpu\" cannot list resource \"pods\" in API "
                            "group \"\" in the namespace \"kubeon-system\""),
            std::string::npos)
      << denied.err;
  Ok({"create", "rolebinding", "gpu-view", "-n", "kubeon-system", "--clusterrole=view",
      "--serviceaccount=kubeon-system:kubeon-gpu"});
  RunResult allowed = As(t, {"get", "pods", "-n", "kubeon-system"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  RunResult elsewhere = As(t, {"get", "pods", "-n", "default"});
  EXPECT_NE(elsewhere.exit_code, 0);
  EXPECT_NE(elsewhere.err.find("cannot list resource \"pods\" in API group \"\" in the namespace \"default\""),
            std::string::npos)
      << elsewhere.err;
  RunResult list = As(t, {"auth", "can-i", "--list", "-n", "kubeon-system"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("selfsubjectaccessreviews.authorization.k8s.io"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("deployments.apps"), std::string::npos) << list.out;

  // Secrets keep base64 data, as the real API.
  Ok({"create", "secret", "generic", "gpu-secret", "-n", "kubeon-system", "--from-literal=k=v"});
  EXPECT_EQ(Ok({"get", "secret", "gpu-secret", "-n", "kubeon-system", "-o", "jsonpath={.data.k}"}).out, "dg==");
  EXPECT_NE(Ok({"get", "clusterroles"}).out.find("system:auth-delegator"), std::string::npos);
}

// kubectl resolves the resource through discovery first (an unserved one is
// sent as the literal "<plural>.<group>" in group "", which no rule names),
// so the GpuChange CRD is installed first.
TEST_P(KubectlRbacTest, CanIWithCustomVerbsFollowsBindings) {
  Ok({"apply", "-f", std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpuchange.yaml"});
  RunResult no = Alice({"auth", "can-i", "approve", "gpuchanges.gpu.kubeon.io"});
  EXPECT_EQ(no.exit_code, 1) << no.err;
  EXPECT_EQ(no.out, "no\n");
  std::ofstream(dir_ + "/role.yaml") << kReviewerRole;
  Ok({"apply", "-f", dir_ + "/role.yaml"});
  Ok({"create", "clusterrolebinding", "reviewers", "--clusterrole=kubeon-gpu-reviewer", "--group=reviewers"});
  RunResult yes = Alice({"auth", "can-i", "approve", "gpuchanges.gpu.kubeon.io"});
  EXPECT_EQ(yes.exit_code, 0) << yes.err;
  EXPECT_EQ(yes.out, "yes\n");
  EXPECT_EQ(Alice({"auth", "can-i", "revert", "gpuchanges.gpu.kubeon.io/p1"}).out, "yes\n");
  EXPECT_EQ(Alice({"auth", "can-i", "delete", "gpuchanges.gpu.kubeon.io"}).out, "no\n");
  EXPECT_EQ(Alice({"auth", "can-i", "get", "/healthz"}).out, "yes\n");
  RunResult forbidden = Alice({"get", "nodes"});
  EXPECT_NE(forbidden.err.find("nodes is forbidden: User \"alice\" cannot list resource \"nodes\" in API group \"\" "
                               "at the cluster scope"),
            std::string::npos)
      << forbidden.err;

  auto log = ReadAuditLog(dir_ + "/audit.jsonl");
  ASSERT_TRUE(log.ok()) << log.error().message;
  bool denied_nodes = false, bound = false;
  for (const json& e : log.value()) {
    denied_nodes = denied_nodes || (e["user"] == "alice" && e["verb"] == "list" && e["resource"] == "nodes" &&
                                    e["code"] == 403);
    bound = bound || (e["user"] == "kube-sim-admin" && e["verb"] == "create" &&
                      e["resource"] == "clusterrolebindings" && e["code"] == 201);
  }
  EXPECT_TRUE(denied_nodes);
  EXPECT_TRUE(bound);
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlRbacTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
