// Least privilege end to end: the real `kubeon-gpu` binary applies the demo
// with spare nodes (apply/apply_e2e_support.h) on kube-sim AS the kubeon-gpu
// ServiceAccount, bound to deploy/clusterrole.yaml and nothing else (kube-sim
// enforces RBAC, tools/kube-sim/rbac.h): the plan is recorded (`--mode
// Proposal`), step 1 approved with `kubeon-gpu approve`, and `--mode Approve`
// runs step 1 (steps 2 and 3 wait: exit 3).  A grant missing from the
// ClusterRole fails the run with a 403.  Then the rules derived from
// kube-sim's audit log (every resource request the ServiceAccount made) must
// be a subset of deploy's ClusterRole (the controller's test later makes
// this an exact comparison).  Needs kubectl to apply deploy/ (skipped
// without).  30x real time; CTest label "long".
#include <gtest/gtest.h>

#if defined(KUBE_SIM_BINARY) && defined(KUBEON_GPU_BINARY)

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>


#include "audit/sqlite_store.h"
#include "apply/apply_e2e_support.h"
#include "kube/rbac_test_support.h"
#include "kube/sim_process.h"

namespace kubeon::cli {
namespace {

using json = nlohmann::json;

const std::string kSource = KUBEON_SOURCE_DIR;
const std::string kDemo = kSource + "/examples/demo/";
const char *kStep1Time = "2026-12-05T02:10:00Z";  // Saturday: the demo's window is open
const std::string kSa = "system:serviceaccount:kubeon-system:kubeon-gpu";

TEST(ApplyRbacTest, ExecutorRunsAsTheServiceAccountWithDeploysClusterRole) {
  if (kube::testing::RunCommand("kubectl version --client >/dev/null 2>&1").first != 0) {
    GTEST_SKIP() << "kubectl is not installed";
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("apply_rbac_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  kube::testing::SimProcess sim;
  ASSERT_TRUE(sim.Start(KUBE_SIM_BINARY, apply::testing::DemoWithSpare(kDemo), 120000,
                        {{"timeScale", 30}, {"configMapSyncDelayMs", 0}}, sim.AuditLogArgs())
                  .ok());
  std::string apply = "kubectl --kubeconfig " + sim.token_kubeconfig() + " apply";
  for (const char *f : {"namespace.yaml", "serviceaccount.yaml", "clusterrole.yaml", "clusterrolebinding.yaml"}) {
    apply += std::string(" -f ") + kSource + "/deploy/" + f;
  }
  auto [code, out] = kube::testing::RunCommand(apply + " 2>&1");
  ASSERT_EQ(code, 0) << out;
  auto kubeconfig = sim.ServiceAccountKubeconfig("kubeon-system", "kubeon-gpu");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status().message();

  const std::string db = (dir / "audit.db").string();
  const apply::testing::ChildResult proposed = apply::testing::RunGpu(
      KUBEON_GPU_BINARY, apply::testing::DemoApplyArgs(kDemo, *kubeconfig, db, "Proposal", kStep1Time), 0, dir);
  ASSERT_EQ(proposed.exit_code, 0) << proposed.err;
  std::string step1;
  {
    auto store = audit::SqliteAuditStore::Open(db);
    ASSERT_TRUE(store.ok());
    auto changes = (*store)->ListChanges();
    ASSERT_TRUE(changes.ok());
    for (const auto &ch : *changes) {
      if (json::parse(ch.step_json).value("index", 0) == 1) step1 = ch.id;
    }
  }
  ASSERT_FALSE(step1.empty());
  const apply::testing::ChildResult approved = apply::testing::RunGpu(
      KUBEON_GPU_BINARY, {"approve", step1, "--kubeconfig", *kubeconfig, "--audit-db", db, "--ttl", "1000h"}, 0, dir);
  ASSERT_EQ(approved.exit_code, 0) << approved.err;
  const apply::testing::ChildResult applied = apply::testing::RunGpu(
      KUBEON_GPU_BINARY, apply::testing::DemoApplyArgs(kDemo, *kubeconfig, db, "Approve", kStep1Time), 0, dir);
  EXPECT_EQ(applied.exit_code, 3) << applied.err;  // step 1 done, steps 2 and 3 wait for approval

  const std::set<kube::testing::Grant> granted = kube::testing::DeployGrants(kSource);
  std::vector<std::string> forbidden;
  const std::set<kube::testing::Grant> used = kube::testing::UsedGrants(sim.audit_log(), kSa, &forbidden);
  for (const auto &line : forbidden) ADD_FAILURE() << "forbidden: " << line;
  std::set<kube::testing::Grant> missing;
  for (const auto &g : used) {
    if (!granted.count(g)) missing.insert(g);
  }
  EXPECT_GT(used.size(), 10u);
  for (const auto &[group, resource, verb] : missing) {
    ADD_FAILURE() << "used but not in deploy/clusterrole.yaml: " << verb << " " << resource << " (group \"" << group
                  << "\")";
  }
  for (const auto &[group, resource, verb] : used) {
    std::cout << "used: " << verb << " " << resource << " (group \"" << group << "\")\n";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kubeon::cli

#else
TEST(ApplyRbacTest, RequiresTheSimulatorAndTheBinary) { GTEST_SKIP() << "kube-sim or kubeon-gpu is not built"; }
#endif
