// Test-only: kube-sim ready to hold the cluster's audit store, for
// kube_store_test, kube_approvals_test and the CLI tests of
// `--audit-db kubernetes`.
//
// KubeSimAudit::Start runs kube-sim (a small generated cluster), installs
// deploy/crd-gpuchange.yaml with the real `kubectl apply` (as the admin
// user), creates namespace kubeon-system and waits (polling, generous
// bound) until gpuchanges are served.  Returns nullptr and skips the calling
// test when kubectl or the CRD file is missing; any other failure is a test
// failure (ADD_FAILURE) and nullptr.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "audit/kube_store.h"
#include "kube/sim_process.h"
#include "kube/snapshot.h"

namespace kubeon::audit::testing {

// Installs the audit store's prerequisites in the cluster `kubeconfig`
// reaches (as that user): deploy/crd-gpuchange.yaml with `kubectl apply`,
// namespace kubeon-system, then waits until gpuchanges are served.
inline Status InstallAuditStore(const std::string& kubeconfig, const std::string& cache_dir) {
  const std::string crd = std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpuchange.yaml";
  auto [rc, out] = kube::testing::RunCommand("kubectl --kubeconfig '" + kubeconfig + "' --cache-dir '" + cache_dir +
                                             "' apply -f " + crd + " 2>&1");
  if (rc != 0) return Status::Error("kubectl apply -f " + crd + ": " + out);
  kube::SnapshotOptions o;
  o.kubeconfig = kubeconfig;
  auto client = kube::ConnectWithOptions(o);
  if (!client.ok()) return client.status();
  auto ns = (*client)->Create("/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"},
                                                      {"metadata", {{"name", "kubeon-system"}}}});
  if (!ns.ok() && ns.error().http_status != 409) return ns.error().ToStatus();
  for (int i = 0;; ++i) {
    auto served = (*client)->Get(kGpuChangesPath);
    if (served.ok()) return Status::Ok();
    if (i == 300) return served.error().ToStatus().WithPrefix("gpuchanges not served");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// True when the CRD file and kubectl are there (else tests skip).
inline bool CanInstallAuditStore() {
  return std::filesystem::exists(std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpuchange.yaml") &&
         kube::testing::RunCommand("command -v kubectl >/dev/null 2>&1").first == 0;
}

class KubeSimAudit {
 public:
  static std::unique_ptr<KubeSimAudit> Start(const std::string& binary, const nlohmann::json& settings = nullptr) {
    if (!CanInstallAuditStore()) return nullptr;
    auto sim = std::unique_ptr<KubeSimAudit>(new KubeSimAudit());
    kube::testing::SimClusterShape shape;
    shape.nodes = 2;
    shape.deployments = 2;
    shape.pods_per_deployment = 1;
    Status started = sim->process.Start(binary, kube::testing::MakeSimCluster(shape), 120000, settings);
    if (!started.ok()) {
      ADD_FAILURE() << started.message();
      return nullptr;
    }
    Status installed = InstallAuditStore(sim->process.token_kubeconfig(), sim->process.dir().File("kubectl-cache"));
    if (!installed.ok()) {
      ADD_FAILURE() << installed.message();
      return nullptr;
    }
    return sim;
  }

  // A new client as the admin (or as `user` of the settings' users).
  std::unique_ptr<kube::KubeClient> Connect(const std::string& user = "") {
    kube::SnapshotOptions o;
    o.kubeconfig = Kubeconfig(user);
    auto c = kube::ConnectWithOptions(o);
    if (!c.ok()) {
      ADD_FAILURE() << c.status().message();
      return nullptr;
    }
    return std::move(c).value();
  }
  std::string Kubeconfig(const std::string& user = "") const {
    return user.empty() ? process.token_kubeconfig() : process.user_kubeconfig(user);
  }

  // `kubectl ARGS` as the admin: exit status and stdout+stderr.
  std::pair<int, std::string> Kubectl(const std::string& args) const {
    return kube::testing::RunCommand("kubectl --kubeconfig '" + process.token_kubeconfig() + "' --cache-dir '" +
                                     process.dir().File("kubectl-cache") + "' " + args + " 2>&1");
  }

  kube::testing::SimProcess process;
};

}  // namespace kubeon::audit::testing
