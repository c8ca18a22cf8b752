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

class KubeSimAudit {
 public:
  static std::unique_ptr<KubeSimAudit> Start(const std::string& binary, const nlohmann::json& settings = nullptr) {
    const std::string crd = std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpuchange.yaml";
    if (!std::filesystem::exists(crd)) return nullptr;
    if (kube::testing::RunCommand("command -v kubectl >/dev/null 2>&1").first != 0) return nullptr;
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
    auto [rc, out] = sim->Kubectl("apply -f " + crd);
    if (rc != 0) {
      ADD_FAILURE() << "kubectl apply -f " << crd << ": " << out;
      return nullptr;
    }
    auto client = sim->Connect();
    if (!client) return nullptr;
    auto ns = client->Create("/api/v1/namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"},
                                                     {"metadata", {{"name", "kubeon-system"}}}});
    if (!ns.ok() && ns.error().http_status != 409) {
      ADD_FAILURE() << ns.error().ToString();
      return nullptr;
    }
    for (int i = 0;; ++i) {
      auto served = client->Get(kGpuChangesPath);
      if (served.ok()) break;
      if (i == 300) {
        ADD_FAILURE() << "gpuchanges not served: " << served.error().ToString();
        return nullptr;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
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
