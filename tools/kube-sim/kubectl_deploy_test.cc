// The install (deploy/, a kustomize base) against kube-sim with the oldest
// and newest supported kubectl (1.27, 1.33): `kubectl kustomize deploy`
// renders every object, `kubectl apply -f` of the rendered output creates
// them (the CustomResourceDefinitions only when kube-sim serves
// apiextensions.k8s.io), and the kubeon-gpu-approvals
// ValidatingAdmissionPolicy denies a forged approved-by while letting a
// reviewer sign as themself.  A kubectl that is not installed is skipped.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using testing::RunResult;

const std::string kDeploy = std::string(KUBEON_SOURCE_DIR) + "/deploy";

// The YAML documents of `text` without those of kind `kind`.
std::string WithoutKind(const std::string& text, const std::string& kind) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find("\n---\n", start);
    std::string doc = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (doc.find("\nkind: " + kind + "\n") == std::string::npos && doc.rfind("kind: " + kind + "\n", 0) != 0) {
      out += (out.empty() ? "" : "---\n") + doc + "\n";
    }
    if (end == std::string::npos) break;
    start = end + 5;
  }
  return out;
}

class KubectlDeployTest : public testing::KubectlSimTest<std::string> {
 protected:
  void SetUp() override {
    StartSim(GetParam(), {"--user-kubeconfig-dir", "$DIR", "--settings",
                          R"({"users": [{"name": "alice", "groups": ["reviewers"], "token": "alice-token"}]})"});
  }
  RunResult Ok(std::vector<std::string> args) {
    RunResult r = Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    return r;
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
    return dir_ + "/" + name;
  }
};

TEST_P(KubectlDeployTest, KustomizeRendersAndTheOutputApplies) {
  RunResult rendered = Ok({"kustomize", kDeploy});
  for (const char* want : {"kind: Namespace", "kind: ServiceAccount", "kind: ClusterRole\n", "kind: ClusterRoleBinding",
                           "name: kubeon-gpu-reviewer", "kind: ValidatingAdmissionPolicy\n",
                           "name: kubeon-gpu-approvals", "name: kubeon-gpu-owner-patches",
                           "kind: ValidatingAdmissionPolicyBinding", "kind: Deployment", "kind: Service",
                           "kind: CustomResourceDefinition", "replicas: 2", "$(POD_IP):8080"}) {
    EXPECT_NE(rendered.out.find(want), std::string::npos) << want;
  }
  const bool crds = Kubectl({"get", "--raw", "/apis/apiextensions.k8s.io/v1"}).exit_code == 0;
  std::string manifest = crds ? rendered.out : WithoutKind(rendered.out, "CustomResourceDefinition");
  RunResult applied = Ok({"apply", "-f", Write("rendered.yaml", manifest)});
  EXPECT_NE(applied.out.find("deployment.apps/kubeon-gpu created"), std::string::npos) << applied.out;
  EXPECT_NE(applied.out.find("validatingadmissionpolicy.admissionregistration.k8s.io/kubeon-gpu-approvals created"),
            std::string::npos)
      << applied.out;
  // Applying again changes nothing.
  RunResult again = Ok({"apply", "-f", dir_ + "/rendered.yaml"});
  EXPECT_EQ(again.out.find("configured"), std::string::npos) << again.out;
  EXPECT_EQ(Ok({"get", "deployment", "kubeon-gpu", "-n", "kubeon-system", "-o", "jsonpath={.spec.replicas}"}).out, "2");
  EXPECT_EQ(Ok({"get", "clusterrolebinding", "kubeon-gpu", "-o", "jsonpath={.subjects[0].name}"}).out, "kubeon-gpu");
}

// The approvals policy exactly as deploy/ ships it, on a GpuChange.
TEST_P(KubectlDeployTest, ApprovalsPolicyDeniesAForgedApprover) {
  Ok({"apply", "-f", kDeploy + "/crd-gpuchange.yaml", "-f", kDeploy + "/vap-approvals.yaml"});
  Ok({"apply", "-f", Write("role.yaml", R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: change-annotator
rules:
- apiGroups: ["gpu.kubeon.io"]
  resources: ["gpuchanges"]
  verbs: ["get", "patch"]
)")});
  Ok({"apply", "-f", Write("change.yaml", R"(apiVersion: gpu.kubeon.io/v1
kind: GpuChange
metadata:
  name: 0123abcd
  labels:
    gpu.kubeon.io/policy: gpu-sharing
spec:
  policy: gpu-sharing
  contentHash: 0123abcd00112233445566778899aabbccddeeff00112233445566778899aabb
  step: {}
)")});
  Ok({"create", "clusterrolebinding", "reviewers-annotate", "--clusterrole=change-annotator", "--group=reviewers"});
  const std::string alice = dir_ + "/alice.kubeconfig";
  RunResult forged = KubectlWith(alice, {"annotate", "gpuchange", "0123abcd", "gpu.kubeon.io/approve=0123abcd",
                                         "gpu.kubeon.io/approved-by=bob"});
  EXPECT_NE(forged.exit_code, 0);
  EXPECT_NE(forged.err.find("ValidatingAdmissionPolicy 'kubeon-gpu-approvals' with binding 'kubeon-gpu-approvals' "
                            "denied request: gpu.kubeon.io/approve and gpu.kubeon.io/approved-by may only be written "
                            "by the user named in approved-by"),
            std::string::npos)
      << forged.err;
  RunResult self = KubectlWith(alice, {"annotate", "gpuchange", "0123abcd", "gpu.kubeon.io/approve=0123abcd",
                                       "gpu.kubeon.io/approved-by=alice"});
  EXPECT_EQ(self.exit_code, 0) << self.err;
  // The admin may not re-sign alice's approval either (the name is who writes it).
  RunResult admin = Kubectl({"annotate", "gpuchange", "0123abcd", "gpu.kubeon.io/approve=ffff", "--overwrite"});
  EXPECT_NE(admin.exit_code, 0);
  // Other annotations are anyone's with patch rights.
  EXPECT_EQ(KubectlWith(alice, {"annotate", "gpuchange", "0123abcd", "note=hi"}).exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlDeployTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
