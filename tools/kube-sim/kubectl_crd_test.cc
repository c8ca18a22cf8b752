// The project's CustomResourceDefinitions (deploy/crd-*.yaml) and custom
// resources through the real kubectl (oldest and newest supported), against
// kube-sim: `kubectl apply -f` of the CRDs (client-side, then again
// --server-side), `kubectl wait --for condition=established`, the example
// GpuPolicies applied and re-applied, `kubectl get` by plural and short
// name (Table output with the CRDs' printer columns), -o yaml, describe,
// `kubectl patch --subresource=status`, deleting a CRD, a bad GpuPolicy
// rejected with its fields named, unknown fields (strict and warn), and
// `kubectl explain` from the published schemas.  A kubectl that is not
// installed is skipped.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_kubectl.h"

namespace kubeon::kubesim {
namespace {

using nlohmann::json;
using testing::RunResult;

const std::string kSource = KUBEON_SOURCE_DIR;

class KubectlCrdTest : public testing::KubectlSimTest<std::string> {
 protected:
  void SetUp() override { StartSim(GetParam()); }

  RunResult Run(std::vector<std::string> args) {
    RunResult r = Kubectl(std::move(args), 60);
    return r;
  }
  void InstallCrds(const std::string& mode = "") {
    std::vector<std::string> args = {"apply", "-f", kSource + "/deploy/crd-gpupolicy.yaml", "-f",
                                     kSource + "/deploy/crd-gpuchange.yaml"};
    if (!mode.empty()) args.push_back(mode);
    RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    RunResult wait = Run({"wait", "--for", "condition=established", "--timeout=30s", "crd/gpupolicies.gpu.kubeon.io",
                          "crd/gpuchanges.gpu.kubeon.io"});
    ASSERT_EQ(wait.exit_code, 0) << wait.err;
  }
};

TEST_P(KubectlCrdTest, PoliciesAndChanges) {
  RunResult crds = Run({"apply", "-f", kSource + "/deploy/crd-gpupolicy.yaml", "-f", kSource + "/deploy/crd-gpuchange.yaml"});
  ASSERT_EQ(crds.exit_code, 0) << crds.err;
  EXPECT_NE(crds.out.find("customresourcedefinition.apiextensions.k8s.io/gpupolicies.gpu.kubeon.io created"),
            std::string::npos)
      << crds.out;
  InstallCrds();  // again: unchanged, and established

  RunResult applied = Run({"apply", "-f", kSource + "/examples/policies/per-pool.yaml", "-f",
                           kSource + "/examples/policies/proposal-only.yaml"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_NE(applied.out.find("gpupolicy.gpu.kubeon.io/inference-eu created"), std::string::npos) << applied.out;

  // Re-applying a changed policy: a merge patch (no strategic merge for CRs).
  RunResult edited = Run({"patch", "gpupolicy", "notebooks", "--type=merge", "-p", R"({"spec":{"mode":"Approve"}})"});
  ASSERT_EQ(edited.exit_code, 0) << edited.err;
  RunResult again = Run({"apply", "-f", kSource + "/examples/policies/per-pool.yaml"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("gpupolicy.gpu.kubeon.io/notebooks configured"), std::string::npos) << again.out;

  RunResult table = Run({"get", "gpupolicies"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("NAME"), std::string::npos);
  EXPECT_NE(table.out.find("MODE"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("WINDOW"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("inference-eu"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Mon-Fri 22:00-04:00 +01:00"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("AGE"), std::string::npos) << table.out;

  RunResult short_name = Run({"get", "gpupol", "notebooks", "-o", "json"});
  ASSERT_EQ(short_name.exit_code, 0) << short_name.err;
  json nb = json::parse(short_name.out);
  EXPECT_EQ(nb["spec"]["mode"], "Auto");  // the applied manifest again
  EXPECT_EQ(nb["metadata"]["generation"], 3);

  RunResult status = Run({"patch", "gpupolicy", "notebooks", "--subresource=status", "--type=merge", "-p",
                          R"({"status":{"observedGeneration":3,"conditions":[{"type":"Ready","status":"True","reason":"Planned","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  RunResult yaml = Run({"get", "gpupolicy", "notebooks", "-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_NE(yaml.out.find("observedGeneration: 3"), std::string::npos) << yaml.out;
  EXPECT_NE(yaml.out.find("generation: 3"), std::string::npos) << yaml.out;
  RunResult described = Run({"describe", "gpupolicy", "notebooks"});
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_NE(described.out.find("Max Replicas:"), std::string::npos) << described.out;

  // A GpuChange, its status set through the subresource; printer columns.
  const std::string change_path = dir_ + "/change.yaml";
  std::ofstream(change_path) << "apiVersion: gpu.kubeon.io/v1\nkind: GpuChange\nmetadata:\n  name: 0a1b2c3d\n"
                                "  labels: {gpu.kubeon.io/policy: notebooks}\nspec:\n  policy: notebooks\n"
                                "  contentHash: " + std::string(64, 'a') + "\n  step: {id: 0a1b2c3d, nodes: [gpu-a]}\n";
  RunResult change = Run({"apply", "--server-side", "-f", change_path});
  ASSERT_EQ(change.exit_code, 0) << change.err;
  RunResult state = Run({"patch", "gpuch", "0a1b2c3d", "--subresource=status", "--type=merge", "-p",
                         R"({"status":{"state":"proposed","revision":1}})"});
  ASSERT_EQ(state.exit_code, 0) << state.err;
  RunResult changes = Run({"get", "gpuchanges", "-l", "gpu.kubeon.io/policy=notebooks"});
  ASSERT_EQ(changes.exit_code, 0) << changes.err;
  EXPECT_NE(changes.out.find("POLICY"), std::string::npos) << changes.out;
  EXPECT_NE(changes.out.find("0a1b2c3d   notebooks   proposed"), std::string::npos) << changes.out;

  // Deleting the CRD deletes its objects.
  RunResult deleted = Run({"delete", "crd", "gpuchanges.gpu.kubeon.io"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_NE(Run({"get", "gpuchanges"}).exit_code, 0);
}

TEST_P(KubectlCrdTest, ServerSideApplyOfTheCrds) {
  InstallCrds("--server-side");
  RunResult crd = Run({"get", "crd", "gpuchanges.gpu.kubeon.io", "-o", "json", "--show-managed-fields"});
  ASSERT_EQ(crd.exit_code, 0) << crd.err;
  json j = json::parse(crd.out);
  EXPECT_EQ(j["metadata"]["managedFields"][0]["operation"], "Apply");
  EXPECT_EQ(j["status"]["acceptedNames"]["shortNames"], json::array({"gpuch"}));
  InstallCrds("--server-side");  // re-applied: unchanged
  RunResult applied = Run({"apply", "--server-side", "-f", kSource + "/examples/policies/weekend-auto.yaml"});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(Run({"get", "gpupolicies", "-o", "name"}).out.empty(), false);
}

TEST_P(KubectlCrdTest, SchemaValidationAndExplain) {
  InstallCrds();
  const std::string path = dir_ + "/bad.yaml";
  const std::string policy = "apiVersion: gpu.kubeon.io/v1\nkind: GpuPolicy\nmetadata:\n  name: bad\nspec:\n  kind: Sharing\n";
  std::ofstream(path) << policy << "  mode: Sometimes\n  timeSlicing: {maxReplicas: 0}\n";
  RunResult bad = Run({"apply", "-f", path});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("The GpuPolicy \"bad\" is invalid"), std::string::npos) << bad.err;  // kubectl rewords the Status
  EXPECT_NE(bad.err.find("spec.mode: Unsupported value: \"Sometimes\": supported values: \"Proposal\", \"Approve\", \"Auto\""),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("spec.timeSlicing.maxReplicas: Invalid value: 0"), std::string::npos) << bad.err;

  // An unknown field: rejected (kubectl's default --validate=strict), dropped with a warning.
  std::ofstream(path) << policy << "  mdoe: Auto\n";
  RunResult typo = Run({"apply", "-f", path});
  EXPECT_NE(typo.exit_code, 0);
  EXPECT_NE(typo.err.find("unknown field \"spec.mdoe\""), std::string::npos) << typo.err;
  RunResult warned = Run({"apply", "-f", path, "--validate=warn"});
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("unknown field \"spec.mdoe\""), std::string::npos) << warned.err;
  RunResult got = Run({"get", "gpupolicy", "bad", "-o", "json"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  json stored = json::parse(got.out);
  EXPECT_FALSE(stored["spec"].contains("mdoe"));
  EXPECT_EQ(stored["spec"]["mode"], "Proposal");  // the schema's default

  RunResult explain = Run({"explain", "gpupolicy.spec"});
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("timeSlicing"), std::string::npos) << explain.out;
  EXPECT_NE(explain.out.find("window"), std::string::npos) << explain.out;
  RunResult explain_status = Run({"explain", "gpuchange.status.state"});
  ASSERT_EQ(explain_status.exit_code, 0) << explain_status.err;
}

INSTANTIATE_TEST_SUITE_P(Kubectl, KubectlCrdTest, ::testing::Values("kubectl.1.27", "kubectl.1.33"),
                         testing::KubectlTestName);

}  // namespace
}  // namespace kubeon::kubesim
