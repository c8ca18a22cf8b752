// Tests for snapshot.h: the List shape kubectl prints (parsed back with
// model::ParseClusterJson), pagination with limit=500, and the command's
// atomic write with one error line and nothing written on failure.
#include "kube/snapshot.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "kube/test_server.h"
#include "model/snapshot_json.h"

namespace kubeon::kube {
namespace {

using json = nlohmann::json;
using testing::ReadText;
using testing::TempDir;
using testing::TestPki;
using testing::TestServer;
using testing::WriteText;

constexpr const char* kToken = "snapshot-test-T0KEN-fedcba9876543210";

json Meta(const std::string& ns, const std::string& name) {
  json md = {{"name", name}, {"uid", "uid-" + name}, {"resourceVersion", "1"}};
  if (!ns.empty()) md["namespace"] = ns;
  return md;
}

json OwnedBy(json md, const std::string& api_version, const std::string& kind, const std::string& name) {
  md["ownerReferences"] = json::array(
      {{{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", "uid-" + name}, {"controller", true}}});
  return md;
}

json GpuNode(const std::string& name) {
  return {{"metadata", {{"name", name},
                        {"uid", "uid-" + name},
                        {"labels", {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
                                    {"nvidia.com/gpu.count", "8"},
                                    {"nvidia.com/gpu.memory", "81920"},
                                    {"nvidia.com/mig.capable", "true"},
                                    {"node.kubernetes.io/instance-type", "p4de.24xlarge"}}}}},
          {"status", {{"capacity", {{"nvidia.com/gpu", "8"}}}, {"allocatable", {{"nvidia.com/gpu", "8"}}}}}};
}

json GpuPod(const std::string& name, const std::string& rs, const std::string& node) {
  return {{"metadata", OwnedBy(Meta("ml", name), "apps/v1", "ReplicaSet", rs)},
          {"spec", {{"nodeName", node},
                    {"containers", {{{"name", "main"},
                                     {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}},
                                                    {"requests", {{"nvidia.com/gpu", "1"}}}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

// The fake API: each collection serves its items in pages of `limit`.
class SnapshotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = testing::SharedTestPki();
    ASSERT_TRUE(pki_) << "openssl: cannot create the test PKI";
  }

  void SetUp() override {
    server_ = std::make_unique<TestServer>(*pki_);
    for (int i = 0; i < 3; ++i) nodes_.push_back(GpuNode("gpu-" + std::to_string(i)));
    for (int i = 0; i < 5; ++i) pods_.push_back(GpuPod("train-abc-" + std::to_string(i), "train-abc", "gpu-0"));
    pdbs_.push_back({{"metadata", Meta("ml", "train-pdb")},
                     {"spec", {{"maxUnavailable", 1}, {"selector", {{"matchLabels", {{"app", "train"}}}}}}},
                     {"status", {{"disruptionsAllowed", 1}, {"expectedPods", 5}}}});
    deployments_.push_back({{"metadata", Meta("ml", "train")}, {"spec", {{"replicas", 5}}}});
    replicasets_.push_back({{"metadata", OwnedBy(Meta("ml", "train-abc"), "apps/v1", "Deployment", "train")},
                            {"spec", {{"replicas", 5}}}});
  }

  void Serve(const std::string& path, const std::string& list_kind, const std::vector<json>* items,
             int forbid_status = 0) {
    server_->http().Get(path, [=, this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(req.target);
      }
      if (forbid_status != 0) {
        res.status = forbid_status;
        res.set_content(json{{"kind", "Status"}, {"code", forbid_status}, {"reason", "Forbidden"},
                             {"message", "poddisruptionbudgets.policy is forbidden: User \"viewer\" cannot list "
                                         "resource \"poddisruptionbudgets\" in API group \"policy\" at the cluster "
                                         "scope\nsecond line"}}
                            .dump(),
                        "application/json");
        return;
      }
      size_t start = req.has_param("continue") ? std::stoul(req.get_param_value("continue")) : 0;
      size_t limit = req.has_param("limit") ? std::stoul(req.get_param_value("limit")) : items->size();
      json page = json::array();
      for (size_t i = start; i < items->size() && i < start + limit; ++i) page.push_back((*items)[i]);
      json md = {{"resourceVersion", "42"}};
      if (start + limit < items->size()) md["continue"] = std::to_string(start + limit);
      res.set_content(json{{"kind", list_kind}, {"apiVersion", "v1"}, {"metadata", md}, {"items", page}}.dump(),
                      "application/json");
    });
  }

  // Serves all six collections; `forbid_pdbs` makes the PDB list fail with 403.
  void ServeAll(bool forbid_pdbs = false) {
    Serve("/api/v1/nodes", "NodeList", &nodes_);
    Serve("/api/v1/pods", "PodList", &pods_);
    Serve("/apis/policy/v1/poddisruptionbudgets", "PodDisruptionBudgetList", &pdbs_, forbid_pdbs ? 403 : 0);
    Serve("/apis/apps/v1/deployments", "DeploymentList", &deployments_);
    Serve("/apis/apps/v1/statefulsets", "StatefulSetList", &statefulsets_);
    Serve("/apis/apps/v1/replicasets", "ReplicaSetList", &replicasets_);
    ASSERT_TRUE(server_->Start());
  }

  // A kubeconfig for the server in `dir`, trusting `ca_pem`.
  std::string Kubeconfig(const TempDir& dir, const std::string& ca_pem, const std::string& server = "") {
    std::string path = dir.File("kubeconfig");
    WriteText(path, "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                    "clusters:\n- name: sim\n  cluster:\n    server: " + (server.empty() ? server_->url() : server) +
                        "\n    certificate-authority-data: " + testing::Base64(ca_pem) +
                        "\ncontexts:\n- name: sim\n  context: {cluster: sim, user: admin}\n"
                        "users:\n- name: admin\n  user:\n    token: " + kToken + "\n");
    return path;
  }

  SnapshotOptions Options(const std::string& kubeconfig, const std::string& output) {
    SnapshotOptions o;
    o.kubeconfig = kubeconfig;
    o.output = output;
    o.environment = LoadOptions{};  // nothing from the test's own environment
    o.client.retry_deadline = std::chrono::milliseconds(300);
    o.client.initial_backoff = std::chrono::milliseconds(5);
    return o;
  }

  static const TestPki* pki_;
  std::unique_ptr<TestServer> server_;
  std::vector<json> nodes_, pods_, pdbs_, deployments_, statefulsets_, replicasets_;
  std::mutex mu_;
  std::vector<std::string> requests_;
};

const TestPki* SnapshotTest::pki_ = nullptr;

TEST_F(SnapshotTest, ProducesTheKubectlListShapeThePlannerReads) {
  ServeAll();
  auto client = KubeClient::Connect(server_->Config(*pki_, kToken));
  ASSERT_TRUE(client.ok()) << client.status().message();
  std::vector<std::string> done;
  auto snap = FetchSnapshot(**client, [&](const SnapshotProgress& p) {
    if (p.done) done.push_back(p.resource + "=" + std::to_string(p.items));
  }, /*page_size=*/2);
  ASSERT_TRUE(snap.ok()) << snap.status().message();

  EXPECT_EQ((*snap)["apiVersion"], "v1");
  EXPECT_EQ((*snap)["kind"], "List");
  EXPECT_EQ((*snap)["metadata"], (json{{"resourceVersion", ""}}));
  const json& items = (*snap)["items"];
  ASSERT_EQ(items.size(), 3u + 5u + 1u + 1u + 0u + 1u);
  std::vector<std::string> kinds;
  for (const auto& item : items) kinds.push_back(item["apiVersion"].get<std::string>() + " " + item["kind"].get<std::string>());
  EXPECT_EQ(kinds.front(), "v1 Node");
  EXPECT_EQ(kinds[3], "v1 Pod");
  EXPECT_EQ(kinds[8], "policy/v1 PodDisruptionBudget");
  EXPECT_EQ(kinds[9], "apps/v1 Deployment");
  EXPECT_EQ(kinds[10], "apps/v1 ReplicaSet");
  EXPECT_EQ(items[4]["metadata"]["name"], "train-abc-1");  // server order kept across pages
  // No GPU Operator on this server (404): its ClusterPolicy and ConfigMaps are left out.
  EXPECT_EQ(done, (std::vector<std::string>{"nodes=3", "pods=5", "poddisruptionbudgets=1", "deployments=1",
                                            "statefulsets=0", "replicasets=1", "clusterpolicies=0", "configmaps=0"}));
  // Paginated: 2 + 3 + 1 + 1 + 1 + 1 requests.
  EXPECT_EQ(requests_.size(), 9u);
  EXPECT_EQ(requests_[0], "/api/v1/nodes?limit=2");

  const std::string text = FormatSnapshot(*snap);
  EXPECT_EQ(text.substr(0, 28), "{\n    \"apiVersion\": \"v1\",\n  ");
  EXPECT_EQ(text.back(), '\n');
  auto cluster = model::ParseClusterJson(text, "snapshot");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->nodes.size(), 3u);
  EXPECT_EQ(cluster->nodes[0].gpu_count, 8);
  ASSERT_EQ(cluster->pods.size(), 5u);
  EXPECT_EQ(cluster->pods[0].gpus, 1);
  EXPECT_EQ(cluster->pods[0].workload, (model::WorkloadRef{"ml", "Deployment", "train"}));
  EXPECT_EQ(cluster->pdbs.size(), 1u);
}

TEST_F(SnapshotTest, IncludesTheGpuOperatorsClusterPolicyAndConfigMaps) {
  std::vector<json> policies = {{{"metadata", {{"name", "cluster-policy"}}},
                                 {"spec", {{"mig", {{"strategy", "mixed"}}}}},
                                 {"status", {{"namespace", "nvidia-gpu-operator"}}}}};
  std::vector<json> config_maps = {{{"metadata", Meta("nvidia-gpu-operator", "default-mig-parted-config")},
                                    {"data", {{"config.yaml", "version: v1\n"}}}}};
  std::vector<json> elsewhere = {{{"metadata", Meta("gpu-operator", "x")}}};
  Serve("/apis/nvidia.com/v1/clusterpolicies", "ClusterPolicyList", &policies);
  Serve("/api/v1/namespaces/nvidia-gpu-operator/configmaps", "ConfigMapList", &config_maps);
  Serve("/api/v1/namespaces/gpu-operator/configmaps", "ConfigMapList", &elsewhere);
  ServeAll();
  auto client = KubeClient::Connect(server_->Config(*pki_, kToken));
  ASSERT_TRUE(client.ok());
  auto snap = FetchSnapshot(**client);
  ASSERT_TRUE(snap.ok()) << snap.status().message();
  auto cluster = model::ParseClusterJson(FormatSnapshot(*snap), "snapshot");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  ASSERT_TRUE(cluster->gpu_operator.has_value());
  EXPECT_EQ(cluster->gpu_operator->namespace_, "nvidia-gpu-operator");
  EXPECT_NE(cluster->FindConfigMap("nvidia-gpu-operator", "default-mig-parted-config"), nullptr);
  EXPECT_EQ(cluster->FindConfigMap("gpu-operator", "x"), nullptr);
  // --operator-namespace wins over the ClusterPolicy.
  snap = FetchSnapshot(**client, nullptr, 500, "gpu-operator");
  ASSERT_TRUE(snap.ok());
  cluster = model::ParseClusterJson(FormatSnapshot(*snap), "snapshot");
  ASSERT_TRUE(cluster.ok());
  EXPECT_NE(cluster->FindConfigMap("gpu-operator", "x"), nullptr);
}

TEST_F(SnapshotTest, OperatorPartsThatMayNotBeReadAreLeftOutOthersFail) {
  std::vector<json> none;
  Serve("/apis/nvidia.com/v1/clusterpolicies", "ClusterPolicyList", &none, 403);
  Serve("/api/v1/namespaces/gpu-operator/configmaps", "ConfigMapList", &none, 500);
  ServeAll();
  ClientOptions quick;
  quick.retry_deadline = std::chrono::milliseconds(300);
  quick.initial_backoff = std::chrono::milliseconds(5);
  auto client = KubeClient::Connect(server_->Config(*pki_, kToken), quick);
  ASSERT_TRUE(client.ok());
  auto snap = FetchSnapshot(**client);
  ASSERT_FALSE(snap.ok());
  EXPECT_NE(snap.status().message().find("configmaps"), std::string::npos) << snap.status().message();
}

TEST_F(SnapshotTest, DefaultPageSizeIs500) {
  ServeAll();
  auto client = KubeClient::Connect(server_->Config(*pki_, kToken));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE(FetchSnapshot(**client).ok());
  ASSERT_EQ(requests_.size(), 6u);
  for (const auto& r : requests_) EXPECT_EQ(r.substr(r.size() - 10), "?limit=500") << r;
}

TEST_F(SnapshotTest, CommandWritesTheFileAtomically) {
  ServeAll();
  TempDir dir;
  std::string out = dir.File("cluster.json");
  std::ostringstream stdout_text, stderr_text;
  int code = RunSnapshotCommand(Options(Kubeconfig(dir, pki_->ca_pem), out), stdout_text, stderr_text);
  ASSERT_EQ(code, 0) << stderr_text.str();
  EXPECT_EQ(stderr_text.str(), "");
  EXPECT_EQ(stdout_text.str(), "");
  auto cluster = model::LoadClusterFile(out);
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  EXPECT_EQ(cluster->pods.size(), 5u);
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2u);  // kubeconfig + cluster.json: no temporary left behind
  EXPECT_EQ(std::filesystem::status(out).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);  // pod specs may hold secrets

  std::ostringstream to_stdout;
  ASSERT_EQ(RunSnapshotCommand(Options(Kubeconfig(dir, pki_->ca_pem), "-"), to_stdout, stderr_text), 0);
  EXPECT_EQ(to_stdout.str(), ReadText(out));
}

TEST_F(SnapshotTest, FailuresPrintOneLineAndWriteNothing) {
  ServeAll(/*forbid_pdbs=*/true);
  TempDir dir;
  const std::string out = dir.File("cluster.json");
  WriteText(out, "previous contents\n");

  struct Case {
    std::string name;
    SnapshotOptions options;
    std::string expected_prefix;
  };
  const std::string good = Kubeconfig(dir, pki_->ca_pem);
  std::vector<Case> cases;
  cases.push_back({"forbidden list", Options(good, out),
                   "kubeon-gpu snapshot: forbidden: cannot list poddisruptionbudgets.policy at cluster scope: "
                   "poddisruptionbudgets.policy is forbidden: User \"viewer\" cannot list resource "
                   "\"poddisruptionbudgets\" in API group \"policy\" at the cluster scope second line"});
  TempDir other;
  cases.push_back({"wrong CA", Options(Kubeconfig(other, pki_->other_ca_pem), out),
                   "kubeon-gpu snapshot: list nodes: TLS handshake with " + server_->url() + " failed: "});
  TempDir down;
  cases.push_back({"unreachable", Options(Kubeconfig(down, pki_->ca_pem, "https://127.0.0.1:1"), out),
                   "kubeon-gpu snapshot: list nodes: cannot reach https://127.0.0.1:1: "});
  TempDir bad;
  WriteText(bad.File("kubeconfig"), "current-context: [\n");
  cases.push_back({"malformed kubeconfig", Options(bad.File("kubeconfig"), out),
                   "kubeon-gpu snapshot: kubeconfig " + bad.File("kubeconfig") + ":"});
  cases.push_back({"unknown context", Options(good, out),
                   "kubeon-gpu snapshot: kubeconfig " + good + ": context \"prod\" not found"});
  cases.back().options.context = "prod";

  for (const auto& c : cases) {
    std::ostringstream o, e;
    EXPECT_EQ(RunSnapshotCommand(c.options, o, e), 1) << c.name;
    const std::string err = e.str();
    EXPECT_EQ(err.rfind(c.expected_prefix, 0), 0u) << c.name << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << c.name << ": " << err;
    EXPECT_EQ(err.find(kToken), std::string::npos) << c.name;
    EXPECT_EQ(o.str(), "") << c.name;
    EXPECT_EQ(ReadText(out), "previous contents\n") << c.name;
  }
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

TEST_F(SnapshotTest, TextIsTheServedItemsCompactAndLaidOutAsKubectlLaysItOut) {
  // A custom-resource-style item with its own apiVersion and kind is kept as
  // served; one with only a kind gets the collection's two.
  nodes_[1]["kind"] = "Node";
  nodes_[1]["apiVersion"] = "v1";
  nodes_[2]["kind"] = "Node";
  ServeAll();
  auto client = KubeClient::Connect(server_->Config(*pki_, kToken));
  ASSERT_TRUE(client.ok());
  auto text = FetchSnapshotText(**client, nullptr, 2);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(text->find('\n'), std::string::npos);
  EXPECT_EQ(text->rfind("{\"apiVersion\":\"v1\",\"items\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{", 0),
            0u)
      << text->substr(0, 200);
  EXPECT_EQ(text->substr(text->size() - 51), "}],\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"}}");
  auto tree = FetchSnapshot(**client, nullptr, 2);
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(json::parse(*text), *tree);
  ASSERT_EQ((*tree)["items"].size(), 11u);
  for (const auto& item : (*tree)["items"]) EXPECT_TRUE(item.contains("kind") && item.contains("apiVersion")) << item;
  // The served items have sorted keys (nlohmann), so the laid-out text is
  // byte for byte what a tree dump(4) prints.
  EXPECT_EQ(FormatSnapshotText(*text), FormatSnapshot(*tree));
}

TEST(FormatSnapshotTextTest, IndentsWithoutParsing) {
  EXPECT_EQ(FormatSnapshotText(R"({"a":[1,{"b":"x,{:}\"y"}],"e":{},"f":[ ],"g":null})"),
            "{\n"
            "    \"a\": [\n"
            "        1,\n"
            "        {\n"
            "            \"b\": \"x,{:}\\\"y\"\n"
            "        }\n"
            "    ],\n"
            "    \"e\": {},\n"
            "    \"f\": [],\n"
            "    \"g\": null\n"
            "}\n");
  // Whitespace the server put in is replaced by the layout.
  EXPECT_EQ(FormatSnapshotText("{ \"a\" :\n [ 1 , 2 ] }"), "{\n    \"a\": [\n        1,\n        2\n    ]\n}\n");
}

TEST_F(SnapshotTest, DeeplyNestedItemsFailTheSnapshotWithOneLine) {
  json deep = json::array();
  for (int i = 0; i < 100; ++i) deep = json::array({deep});
  pods_[3]["spec"]["x"] = deep;
  ServeAll();
  TempDir dir;
  std::ostringstream o, e;
  EXPECT_EQ(RunSnapshotCommand(Options(Kubeconfig(dir, pki_->ca_pem), dir.File("cluster.json")), o, e), 1);
  EXPECT_EQ(e.str(), "kubeon-gpu snapshot: list pods: 200 BadResponse: page 1: items[3]: nested deeper than 64 "
                     "levels\n");
  EXPECT_FALSE(std::filesystem::exists(dir.File("cluster.json")));
}

TEST(WriteFileAtomicallyTest, TheFileIsTheOwnersOnly) {
  TempDir dir;
  const mode_t old = umask(022);
  Status s = WriteFileAtomically(dir.File("cluster.json"), "{}");
  umask(old);
  ASSERT_TRUE(s.ok()) << s.message();
  struct stat st {};
  ASSERT_EQ(stat(dir.File("cluster.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(WriteFileAtomicallyTest, MissingDirectoryIsAnErrorNamingThePath) {
  Status s = WriteFileAtomically("/nonexistent-dir/cluster.json", "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("/nonexistent-dir/cluster.json: cannot create a temporary file in /nonexistent-dir: ", 0),
            0u)
      << s.message();
}

}  // namespace
}  // namespace kubeon::kube
