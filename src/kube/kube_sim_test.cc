// Integration tests: the client against the kube-sim executable (tools/kube-sim)
// over TLS with the kubeconfigs it writes (token and client certificate),
// cross-checked with the real kubectl (the installed one and the oldest and
// newest kubectl.1.NN beside it).
//
// The cluster is testing::MakeSimCluster (sim_process.h): GPU nodes,
// Deployments with their ReplicaSets and pods, a StatefulSet and
// PodDisruptionBudgets, more than 500 pods so that the pod list paginates.
#include <gtest/gtest.h>

#ifdef KUBE_SIM_BINARY

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "kube/client.h"
#include "kube/identity.h"
#include "kube/sim_process.h"
#include "kube/snapshot.h"
#include "model/snapshot_json.h"

namespace kubeon::kube {
namespace {

using json = nlohmann::json;
using testing::ReadText;
using testing::RunCommand;
using testing::SimClusterShape;
using testing::SimProcess;

const SimClusterShape kShape;  // 20 nodes, 603 pods: every pod list takes two pages

// kubectl on PATH plus the oldest and newest kubectl.1.NN installed beside it.
std::vector<std::string> Kubectls() {
  auto [code, path] = RunCommand("command -v kubectl");
  if (code != 0 || path.empty()) return {};
  while (!path.empty() && path.back() == '\n') path.pop_back();
  std::vector<std::string> out = {path};
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::canonical(path, ec).parent_path();
  std::set<std::pair<int, std::string>> versioned;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("kubectl.1.", 0) == 0) versioned.insert({std::atoi(name.c_str() + 10), e.path().string()});
  }
  if (!versioned.empty()) {
    out.push_back(versioned.begin()->second);
    if (versioned.size() > 1) out.push_back(versioned.rbegin()->second);
  }
  return out;
}

// One kube-sim process for the whole suite.
class KubeSimTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sim_ = new SimProcess();
    // kube-sim enforces RBAC: the reviewers may read (ClusterIdOf reads namespace kube-system).
    Status s = sim_->Start(KUBE_SIM_BINARY,
                           testing::WithClusterRoleBinding(testing::MakeSimCluster(kShape), "reviewers-view", "view",
                                                           "Group", "reviewers"),
                           120000,
                           {{"users", {{{"name", "alice"}, {"groups", {"reviewers"}}, {"token", "alice-token"}},
                                       {{"name", "bob"}, {"groups", {"reviewers"}}}}}});
    ASSERT_TRUE(s.ok()) << s.message();
  }
  static void TearDownTestSuite() {
    delete sim_;  // stops the process
    sim_ = nullptr;
  }

  static std::unique_ptr<KubeClient> Connect(const std::string& kubeconfig) {
    LoadOptions o;
    o.kubeconfig_path = kubeconfig;
    auto cfg = LoadRestConfig(o);
    EXPECT_TRUE(cfg.ok()) << cfg.status().message();
    if (!cfg.ok()) return nullptr;
    ClientOptions co;
    co.retry_deadline = std::chrono::seconds(10);
    co.initial_backoff = std::chrono::milliseconds(20);
    auto c = KubeClient::Connect(*cfg, co);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  static std::string Kubectl(const std::string& kubectl, const std::string& args) {
    auto [code, out] = RunCommand(kubectl + " --kubeconfig " + sim_->token_kubeconfig() + " " + args + " 2>&1");
    EXPECT_EQ(code, 0) << kubectl << " " << args << ": " << out;
    return out;
  }

  static SimProcess* sim_;
};

SimProcess* KubeSimTest::sim_ = nullptr;

using ItemKey = std::tuple<std::string, std::string, std::string, std::string>;

std::multiset<ItemKey> Keys(const json& list) {
  std::multiset<ItemKey> keys;
  for (const auto& item : list["items"]) {
    keys.insert({item.value("apiVersion", ""), item.value("kind", ""), item["metadata"].value("namespace", ""),
                 item["metadata"].value("name", "")});
  }
  return keys;
}

TEST_F(KubeSimTest, KubeconfigsOfOtherUsers) {
  std::vector<std::string> kubectls = Kubectls();
  if (kubectls.empty()) GTEST_SKIP() << "kubectl is not installed";
  for (const auto& [kubeconfig, user] : {std::pair{sim_->token_kubeconfig(), "kube-sim-admin"},
                                         std::pair{sim_->cert_kubeconfig(), "kube-sim-admin"},
                                         std::pair{sim_->user_kubeconfig("alice"), "alice"},
                                         std::pair{sim_->user_kubeconfig("bob"), "bob"}}) {
    auto [code, out] = RunCommand(kubectls[0] + " --kubeconfig " + kubeconfig + " auth whoami -o json 2>&1");
    ASSERT_EQ(code, 0) << out;
    EXPECT_EQ(json::parse(out)["status"]["userInfo"]["username"], user) << kubeconfig;
  }
}

// identity.h against the simulator: each kubeconfig's user as the API server
// reports it (as `kubectl auth whoami` does), one cluster identity for all.
TEST_F(KubeSimTest, WhoAmIAndClusterIdForEachUser) {
  std::string uid;
  for (const auto& [kubeconfig, user] : {std::pair{sim_->token_kubeconfig(), "kube-sim-admin"},
                                         std::pair{sim_->cert_kubeconfig(), "kube-sim-admin"},
                                         std::pair{sim_->user_kubeconfig("alice"), "alice"},
                                         std::pair{sim_->user_kubeconfig("bob"), "bob"}}) {
    auto client = Connect(kubeconfig);
    ASSERT_TRUE(client);
    auto who = WhoAmI(*client);
    ASSERT_TRUE(who.ok()) << who.status().message();
    EXPECT_EQ(who->username, user) << kubeconfig;
    EXPECT_NE(std::find(who->groups.begin(), who->groups.end(), "system:authenticated"), who->groups.end());
    auto id = ClusterIdOf(*client);
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_EQ(id->server, sim_->url());
    ASSERT_FALSE(id->kube_system_uid.empty());
    if (uid.empty()) uid = id->kube_system_uid;
    EXPECT_EQ(id->kube_system_uid, uid) << kubeconfig;
  }
  const auto kubectls = Kubectls();
  if (kubectls.empty()) return;
  auto [code, out] = RunCommand(kubectls[0] + " --kubeconfig " + sim_->token_kubeconfig() +
                                " get namespace kube-system -o jsonpath='{.metadata.uid}' 2>&1");
  ASSERT_EQ(code, 0) << out;
  EXPECT_EQ(out, uid);
}

// A ServiceAccount's token (SimProcess::ServiceAccountKubeconfig): the API
// server names it, and without a role binding it may read nothing.
TEST_F(KubeSimTest, ServiceAccountKubeconfigAuthenticatesUnderRbac) {
  auto kubeconfig = sim_->ServiceAccountKubeconfig("kubeon-system", "kubeon-gpu");
  ASSERT_TRUE(kubeconfig.ok()) << kubeconfig.status().message();
  auto client = Connect(*kubeconfig);
  ASSERT_TRUE(client);
  auto who = WhoAmI(*client);
  ASSERT_TRUE(who.ok()) << who.status().message();
  EXPECT_EQ(who->username, "system:serviceaccount:kubeon-system:kubeon-gpu");
  EXPECT_EQ(who->groups, (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:kubeon-system",
                                                   "system:authenticated"}));
  auto id = ClusterIdOf(*client);
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("User \"system:serviceaccount:kubeon-system:kubeon-gpu\" cannot get resource "
                                       "\"namespaces\""),
            std::string::npos)
      << id.status().message();
  // The same name twice: the ServiceAccount is reused, a new token is issued.
  auto again = sim_->ServiceAccountKubeconfig("kubeon-system", "kubeon-gpu");
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto second = Connect(*again);
  ASSERT_TRUE(second);
  EXPECT_TRUE(WhoAmI(*second).ok());
}

TEST_F(KubeSimTest, SnapshotMatchesKubectlAndParses) {
  SnapshotOptions o;
  o.kubeconfig = sim_->token_kubeconfig();
  o.output = sim_->dir().File("snapshot.json");
  o.environment = LoadOptions{};
  std::ostringstream out, err;
  ASSERT_EQ(RunSnapshotCommand(o, out, err), 0) << err.str();
  json ours = json::parse(ReadText(o.output));
  auto cluster = model::LoadClusterFile(o.output);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->nodes.size(), static_cast<size_t>(kShape.nodes));
  EXPECT_GE(cluster->pods.size(), static_cast<size_t>(kShape.pods()));
  EXPECT_EQ(cluster->pdbs.size(), 2u);

  const auto kubectls = Kubectls();
  ASSERT_FALSE(kubectls.empty()) << "kubectl is not installed";
  for (const auto& kubectl : kubectls) {
    json theirs = json::parse(
        Kubectl(kubectl, "get nodes,pods,poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json"),
        nullptr, false);
    ASSERT_TRUE(theirs.is_object()) << kubectl;
    EXPECT_EQ(theirs["kind"], "List");
    EXPECT_EQ(theirs["items"].size(), ours["items"].size()) << kubectl;
    EXPECT_EQ(Keys(theirs), Keys(ours)) << kubectl;
  }
}

TEST_F(KubeSimTest, ClientCertificateKubeconfigAndBadToken) {
  auto cert_client = Connect(sim_->cert_kubeconfig());
  ASSERT_NE(cert_client, nullptr);
  EXPECT_TRUE(cert_client->config().token.empty());
  auto nodes = cert_client->List("/api/v1/nodes");
  ASSERT_TRUE(nodes.ok()) << nodes.error().ToString();
  EXPECT_EQ(nodes->items.size(), static_cast<size_t>(kShape.nodes));

  RestConfig bad = Connect(sim_->token_kubeconfig())->config();
  const std::string wrong = "wrong-token-0000000000000000";
  bad.token = wrong;
  auto client = KubeClient::Connect(bad);
  ASSERT_TRUE(client.ok());
  auto denied = (*client)->List("/api/v1/nodes");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().ToString(), "unauthorized: list nodes: check credentials");
  EXPECT_EQ(denied.error().ToString().find(wrong), std::string::npos);
}

TEST_F(KubeSimTest, NodePatchesAreWhatKubectlSees) {
  auto client = Connect(sim_->token_kubeconfig());
  ASSERT_NE(client, nullptr);
  const std::string kubectl = Kubectls().front();
  ASSERT_TRUE(client->Cordon("gpu-node-5").ok());
  ASSERT_TRUE(client->LabelNode("gpu-node-5", {{"nvidia.com/mig.config", "all-1g.5gb"}, {"nvidia.com/gpu.count", std::nullopt}}).ok());
  json node = json::parse(Kubectl(kubectl, "get node gpu-node-5 -o json"));
  EXPECT_EQ(node["spec"].value("unschedulable", false), true);
  EXPECT_EQ(node["metadata"]["labels"]["nvidia.com/mig.config"], "all-1g.5gb");
  EXPECT_FALSE(node["metadata"]["labels"].contains("nvidia.com/gpu.count"));
  auto uncordoned = client->Uncordon("gpu-node-5");
  ASSERT_TRUE(uncordoned.ok()) << uncordoned.error().ToString();
  node = json::parse(Kubectl(kubectl, "get node gpu-node-5 -o json"));
  EXPECT_EQ(node["spec"].value("unschedulable", false), false);
}

TEST_F(KubeSimTest, EvictionHonoursDisruptionBudgets) {
  auto client = Connect(sim_->token_kubeconfig());
  ASSERT_NE(client, nullptr);
  auto blocked = client->Evict("ml", "svc-0-7d9f8c6b5-p0");
  ASSERT_TRUE(blocked.ok()) << blocked.error().ToString();
  EXPECT_EQ(blocked->outcome, EvictionOutcome::kBlocked);
  EXPECT_NE(blocked->message.find("disruption budget"), std::string::npos) << blocked->message;

  auto evicted = client->Evict("ml", "svc-1-7d9f8c6b5-p0");
  ASSERT_TRUE(evicted.ok()) << evicted.error().ToString();
  EXPECT_EQ(evicted->outcome, EvictionOutcome::kEvicted) << evicted->message;

  auto missing = client->Evict("ml", "no-such-pod");
  ASSERT_TRUE(missing.ok()) << missing.error().ToString();
  EXPECT_EQ(missing->outcome, EvictionOutcome::kPodNotFound);

  auto get = client->Get("/api/v1/namespaces/ml/pods/no-such-pod");
  ASSERT_FALSE(get.ok());
  EXPECT_EQ(get.error().ToString(),
            "get pods \"no-such-pod\" in namespace ml: 404 NotFound: pods \"no-such-pod\" not found");
}

TEST_F(KubeSimTest, ConfigMapUpsertAndConflictRetry) {
  auto client = Connect(sim_->token_kubeconfig());
  ASSERT_NE(client, nullptr);
  const std::string collection = "/api/v1/namespaces/default/configmaps";
  json skeleton = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"namespace", "default"}}}};
  auto created = client->Upsert(collection, "kubeon-time-slicing", skeleton, [](json& cm) {
    cm["data"]["a100"] = "version: v1\n";
    return Status::Ok();
  });
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  // A stale write conflicts...
  json stale = *created;
  auto bumped = client->Patch(collection + "/kubeon-time-slicing", PatchType::kMerge, {{"data", {{"other", "x"}}}});
  ASSERT_TRUE(bumped.ok()) << bumped.error().ToString();
  stale["data"]["l4"] = "y";
  auto conflict = client->Update(collection + "/kubeon-time-slicing", stale);
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().http_status, 409);
  // ...and the read-modify-write keeps both changes.
  auto updated = client->UpdateWithRetry(collection + "/kubeon-time-slicing", [](json& cm) {
    cm["data"]["l4"] = "y";
    return Status::Ok();
  });
  ASSERT_TRUE(updated.ok()) << updated.error().ToString();
  EXPECT_EQ((*updated)["data"], (json{{"a100", "version: v1\n"}, {"other", "x"}, {"l4", "y"}}));
}

TEST_F(KubeSimTest, RetriesInjectedFailuresAndResumesDroppedWatches) {
  auto client = Connect(sim_->token_kubeconfig());
  ASSERT_NE(client, nullptr);
  auto faults = client->Create("/sim/faults",
                               {{"failRequests", {{{"path", "^/api/v1/nodes$"}, {"method", "GET"}, {"count", 2},
                                                   {"code", 500}}}},
                                {"dropWatchAfterEvents", {{{"path", "^/api/v1/nodes$"}, {"events", 1}, {"count", 2}}}}});
  ASSERT_TRUE(faults.ok()) << faults.error().ToString();
  uint64_t before = client->requests();
  auto nodes = client->List("/api/v1/nodes");
  ASSERT_TRUE(nodes.ok()) << nodes.error().ToString();
  EXPECT_EQ(client->requests() - before, 3u);  // two injected 500s, then the answer

  // Three label changes on a node, watched through two dropped connections.
  std::atomic<bool> cancel{false};
  std::vector<std::string> seen;
  std::thread writer([&] {
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      auto r = client->LabelNode("gpu-node-7", {{"kubeon.io/step", std::to_string(i)}});
      EXPECT_TRUE(r.ok()) << r.error().ToString();
    }
  });
  WatchOptions wo;
  wo.field_selector = "metadata.name=gpu-node-7";
  wo.cancel = &cancel;
  auto rv = client->Watch("/api/v1/nodes", nodes->resource_version, wo, [&](const WatchEvent& e) {
    if (e.type == WatchEventType::kModified) {
      seen.push_back(e.object["metadata"]["labels"].value("kubeon.io/step", ""));
    }
    return seen.size() < 3;
  });
  writer.join();
  ASSERT_TRUE(rv.ok()) << rv.error().ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"0", "1", "2"}));
  ASSERT_TRUE(client->Create("/sim/faults", json::object()).ok());
}

}  // namespace
}  // namespace kubeon::kube

#else

TEST(KubeSimTest, RequiresTheSimulator) {
  GTEST_SKIP() << "tools/kube-sim is not part of this build (KUBE_SIM_BINARY undefined)";
}

#endif
