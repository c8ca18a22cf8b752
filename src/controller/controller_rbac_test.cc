// Least privilege, exactly: the real `kubeon-gpu controller` runs on kube-sim
// AS the kubeon-gpu ServiceAccount bound to deploy/clusterrole.yaml and
// nothing else (kube-sim enforces RBAC, tools/kube-sim/rbac.h), with its
// defaults in a cluster: GpuPolicy objects, the GpuChange audit store, the
// approvals admission policy from deploy/.  It plans the demo with spare
// nodes, runs the two clean steps (Auto), a reviewer approves the flagged
// one on the reviewer page (TokenReview + SubjectAccessReview made by the
// controller) and the controller runs it.  Then every (group, resource,
// verb) the ServiceAccount used, from kube-sim's audit log, is compared with
// what deploy's ClusterRole grants, both ways: a call it lacks fails the run
// with a 403 and the test; a grant no call used fails the test unless it is
// listed below with the code path that needs it (exercised by
// src/cli/apply_rbac_test.cc or not reached by this scenario).
// CTest label "long".
#include <gtest/gtest.h>

#if defined(KUBE_SIM_BINARY) && defined(KUBEON_GPU_BINARY)

#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>


#include "apply/apply_e2e_support.h"
#include "kube/rbac_test_support.h"
#include "kube/sim_process.h"
#include "metrics/prometheus_process.h"

namespace kubeon::controller {
namespace {

using json = nlohmann::json;

const std::string kSource = KUBEON_SOURCE_DIR;
const std::string kDemo = kSource + "/examples/demo/";
const std::string kSa = "system:serviceaccount:kubeon-system:kubeon-gpu";

using kube::testing::Grant;

// Grants this scenario does not reach, each with the code that needs it.
const std::map<Grant, std::string>& NotReachedHere() {
  static const std::map<Grant, std::string> m = {
      {{"apps", "statefulsets", "update"}, "step_runner: StatefulSet owners (the demo's are not moved)"},
      {{"gpu.kubeon.io", "gpuchanges", "update"}, "kube_store: a change whose step JSON changed (same id)"},
  };
  return m;
}

using kube::testing::ReadText;
using kube::testing::WaitFor;

TEST(ControllerRbacTest, ControllerRunsAsTheServiceAccountAndUsesExactlyDeploysClusterRole) {
  if (kube::testing::RunCommand("kubectl version --client >/dev/null 2>&1").first != 0) {
    GTEST_SKIP() << "kubectl is not installed";
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("controller_rbac_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  kube::testing::SimProcess sim;
  ASSERT_TRUE(sim.Start(KUBE_SIM_BINARY, apply::testing::DemoWithSpare(kDemo), 120000,
                        {{"timeScale", 20}, {"configMapSyncDelayMs", 0}}, sim.AuditLogArgs())
                  .ok());
  // deploy/ as an operator installs it, but the controller runs here, not in
  // a pod (the Deployment and Service are left out).
  std::string policy = ReadText(kDemo + "policy.yaml");
  policy = std::regex_replace(policy, std::regex("mode: Proposal"), "mode: Auto");
  policy = std::regex_replace(policy, std::regex("window: \"[^\"]*\""), "window: \"Daily 00:00-24:00 UTC\"");
  std::ofstream(dir / "policy.yaml") << policy;
  const std::string kubectl = "kubectl --kubeconfig " + sim.token_kubeconfig() + " apply";
  std::string crds = kubectl + " -f " + kSource + "/deploy/crd-gpupolicy.yaml -f " + kSource + "/deploy/crd-gpuchange.yaml";
  std::string rest = kubectl;
  for (const char* f : {"namespace.yaml", "serviceaccount.yaml", "clusterrole.yaml", "clusterrolebinding.yaml",
                        "clusterrole-reviewer.yaml", "vap-approvals.yaml"}) {
    rest += std::string(" -f ") + kSource + "/deploy/" + f;
  }
  for (const std::string& cmd : {crds, rest, kubectl + " -f " + (dir / "policy.yaml").string()}) {
    auto [code, out] = kube::testing::RunCommand(cmd + " 2>&1");
    ASSERT_EQ(code, 0) << cmd << "\n" << out;
  }
  auto kubeconfig = sim.ServiceAccountKubeconfig("kubeon-system", "kubeon-gpu");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status().message();
  auto admin = sim.AdminClient();
  ASSERT_TRUE(admin.ok());

  const int port = metrics::testing_support::FreePort();
  const pid_t pid = apply::testing::SpawnGpu(
      KUBEON_GPU_BINARY,
      {"controller", "--kubeconfig", *kubeconfig, "--history", kDemo + "history.om", "--prices", kDemo + "prices.yaml",
       "--listen", "127.0.0.1:" + std::to_string(port), "--identity", "solo", "--namespace", "kubeon-system",
       "--leader-lease-seconds", "6", "--policy-lease-seconds", "15", "--resync", "2s", "--configmap-sync-seconds",
       "0"},
      0, dir, "solo");
  ASSERT_GT(pid, 0);
  auto states = [&] {
    std::map<std::string, std::string> out;
    auto list = (*admin)->List("/apis/gpu.kubeon.io/v1/gpuchanges");
    if (list.ok()) {
      for (const auto& c : list->items) {
        out[c["metadata"].value("name", "")] = c.value("status", json::object()).value("state", "");
      }
    }
    return out;
  };
  auto count = [&](const std::string& state) {
    int n = 0;
    for (const auto& [id, s] : states()) n += s == state;
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return count("done") == 2 && count("proposed") == 1; }, std::chrono::seconds(120)))
      << ReadText(dir / "solo.stderr");
  std::string flagged, hash;
  for (const auto& [id, s] : states()) {
    if (s == "proposed") flagged = id;
  }
  auto change = (*admin)->Get("/apis/gpu.kubeon.io/v1/gpuchanges/" + flagged);
  ASSERT_TRUE(change.ok());
  hash = (*change)["spec"].value("contentHash", "");
  // The reviewer approves on the page with their own token (the admin's).
  httplib::Client page("127.0.0.1", port);
  page.set_read_timeout(30, 0);
  auto res = page.Post("/api/changes/" + flagged + "/approve",
                       {{"Authorization", "Bearer " + (*admin)->config().token}}, json{{"hash", hash}}.dump(),
                       "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  ASSERT_TRUE(WaitFor([&] { return count("done") == 3; }, std::chrono::seconds(120))) << ReadText(dir / "solo.stderr");
  kill(pid, SIGTERM);
  EXPECT_EQ(apply::testing::WaitGpu(pid, dir, "solo").exit_code, 0);

  const std::set<Grant> granted = kube::testing::DeployGrants(kSource);
  std::vector<std::string> forbidden;
  const std::set<Grant> used = kube::testing::UsedGrants(sim.audit_log(), kSa, &forbidden);
  for (const auto& line : forbidden) ADD_FAILURE() << "forbidden: " << line;
  for (const auto& g : used) {
    if (!granted.count(g)) {
      ADD_FAILURE() << "used but not in deploy/clusterrole.yaml: " << std::get<2>(g) << " " << std::get<1>(g)
                    << " (group \"" << std::get<0>(g) << "\")";
    }
  }
  for (const auto& g : granted) {
    if (!used.count(g) && !NotReachedHere().count(g)) {
      ADD_FAILURE() << "granted by deploy/clusterrole.yaml but never called: " << std::get<2>(g) << " "
                    << std::get<1>(g) << " (group \"" << std::get<0>(g) << "\")";
    }
  }
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kubeon::controller

#else
TEST(ControllerRbacTest, RequiresTheSimulatorAndTheBinary) { GTEST_SKIP() << "kube-sim or kubeon-gpu is not built"; }
#endif
