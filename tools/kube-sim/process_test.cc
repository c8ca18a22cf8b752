// The kube-sim executable's contract: startup line and kubeconfig (token and
// client-certificate variants), clean SIGTERM exit, one-line startup
// errors that write nothing, --faults and --settings at startup, and
// --state-dir persistence across restarts.
#include <gtest/gtest.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <regex>

#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include "base64.h"
#include "test_process.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::FileExists;
using testing::MakeTempDir;
using testing::ReadFile;
using testing::RunProcess;
using testing::SimProcess;

const std::string kSnapshot = std::string(KUBESIM_TESTDATA) + "/small.json";

// A client configured from a kubeconfig the simulator wrote.
class KubeconfigClient {
 public:
  explicit KubeconfigClient(const std::string& path) {
    YAML::Node kc = YAML::LoadFile(path);
    std::string server = kc["clusters"][0]["cluster"]["server"].as<std::string>();
    std::smatch m;
    std::regex re("^https://127\\.0\\.0\\.1:([0-9]+)$");
    if (!std::regex_match(server, m, re)) throw std::runtime_error("unexpected server " + server);
    int port = std::stoi(m[1].str());
    std::string ca = *Base64Decode(kc["clusters"][0]["cluster"]["certificate-authority-data"].as<std::string>());
    YAML::Node user = kc["users"][0]["user"];
    if (user["client-certificate-data"]) {
      std::string cert = *Base64Decode(user["client-certificate-data"].as<std::string>());
      std::string key = *Base64Decode(user["client-key-data"].as<std::string>());
      cert_ = ReadPem<X509>(cert, [](BIO* b) { return PEM_read_bio_X509(b, nullptr, nullptr, nullptr); });
      key_ = ReadPem<EVP_PKEY>(key, [](BIO* b) { return PEM_read_bio_PrivateKey(b, nullptr, nullptr, nullptr); });
      client_ = std::make_unique<httplib::SSLClient>("127.0.0.1", port, cert_, key_);
    } else {
      client_ = std::make_unique<httplib::SSLClient>("127.0.0.1", port);
      client_->set_bearer_token_auth(user["token"].as<std::string>());
    }
    X509* ca_cert = ReadPem<X509>(ca, [](BIO* b) { return PEM_read_bio_X509(b, nullptr, nullptr, nullptr); });
    X509_STORE* store = X509_STORE_new();
    X509_STORE_add_cert(store, ca_cert);
    X509_free(ca_cert);
    client_->set_ca_cert_store(store);
    client_->enable_server_certificate_verification(true);
    client_->set_read_timeout(10, 0);
  }
  ~KubeconfigClient() {
    client_.reset();
    if (cert_ != nullptr) X509_free(cert_);
    if (key_ != nullptr) EVP_PKEY_free(key_);
  }
  httplib::SSLClient& operator*() { return *client_; }
  httplib::SSLClient* operator->() { return client_.get(); }

 private:
  template <typename T, typename F>
  static T* ReadPem(const std::string& pem, F read) {
    BIO* b = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    T* out = read(b);
    BIO_free(b);
    return out;
  }
  X509* cert_ = nullptr;
  EVP_PKEY* key_ = nullptr;
  std::unique_ptr<httplib::SSLClient> client_;
};

TEST(ProcessTest, StartsPrintsOneLineAndStopsCleanly) {
  std::string dir = MakeTempDir("kubesim-proc-");
  {
    SimProcess sim(KUBE_SIM_BINARY, kSnapshot, dir, {"--client-cert-kubeconfig-out", dir + "/cert.yaml"});
    ASSERT_TRUE(sim.ready()) << sim.Stderr();
    EXPECT_TRUE(std::regex_match(sim.Stdout(), std::regex("kube-sim listening on https://127\\.0\\.0\\.1:[0-9]+\n")))
        << sim.Stdout();
    KubeconfigClient token(sim.kubeconfig());
    auto r = token->Get("/api/v1/nodes");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    KubeconfigClient cert(dir + "/cert.yaml");
    r = cert->Get("/api/v1/namespaces/ml/pods");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(json::parse(r->body)["items"].size(), 2u);
    EXPECT_EQ(sim.Stop(), 0);
  }
  RunProcess({"rm", "-rf", dir}, 30);
}

TEST(ProcessTest, StartupErrorsAreOneLineAndWriteNothing) {
  std::string dir = MakeTempDir("kubesim-proc-");
  std::string kc = dir + "/kubeconfig.yaml";
  auto bad_json = RunProcess({KUBE_SIM_BINARY, "--listen", "127.0.0.1:0", "--snapshot", std::string(KUBESIM_TESTDATA) + "/mig-parted-config.yaml",
                              "--kubeconfig-out", kc}, 30);
  EXPECT_EQ(bad_json.exit_code, 1);
  EXPECT_EQ(std::count(bad_json.err.begin(), bad_json.err.end(), '\n'), 1) << bad_json.err;
  EXPECT_NE(bad_json.err.find("mig-parted-config.yaml: invalid JSON"), std::string::npos) << bad_json.err;
  auto bad_kind = RunProcess({KUBE_SIM_BINARY, "--snapshot", R"({"kind":"List","items":[{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"s"}}]})",
                              "--kubeconfig-out", kc}, 30);
  EXPECT_EQ(bad_kind.exit_code, 1);
  EXPECT_NE(bad_kind.err.find("items[0]: kind \"PersistentVolume\""), std::string::npos) << bad_kind.err;
  auto bad_faults = RunProcess({KUBE_SIM_BINARY, "--snapshot", kSnapshot, "--kubeconfig-out", kc, "--faults", R"({"latency": 5})"}, 30);
  EXPECT_EQ(bad_faults.exit_code, 1);
  EXPECT_NE(bad_faults.err.find("faults: latency"), std::string::npos) << bad_faults.err;
  auto bad_listen = RunProcess({KUBE_SIM_BINARY, "--listen", "localhost", "--kubeconfig-out", kc}, 30);
  EXPECT_EQ(bad_listen.exit_code, 1);
  auto missing = RunProcess({KUBE_SIM_BINARY, "--snapshot", dir + "/none.json", "--kubeconfig-out", kc}, 30);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot read file"), std::string::npos) << missing.err;
  EXPECT_FALSE(FileExists(kc));
  RunProcess({"rm", "-rf", dir}, 30);
}

TEST(ProcessTest, FaultsAndSettingsAtStartup) {
  std::string dir = MakeTempDir("kubesim-proc-");
  {
    SimProcess sim(KUBE_SIM_BINARY, kSnapshot, dir,
                   {"--faults", R"({"failRequests": [{"path": "^/api/v1/nodes$", "count": 1}]})",
                    "--settings", R"({"serverVersion": "v1.29.4"})", "--token", "fixed-token"});
    ASSERT_TRUE(sim.ready()) << sim.Stderr();
    EXPECT_NE(ReadFile(sim.kubeconfig()).find("token: \"fixed-token\""), std::string::npos);
    KubeconfigClient c(sim.kubeconfig());
    EXPECT_EQ(c->Get("/api/v1/nodes")->status, 500);
    EXPECT_EQ(c->Get("/api/v1/nodes")->status, 200);
    EXPECT_EQ(json::parse(c->Get("/version")->body)["minor"], "29");
  }
  RunProcess({"rm", "-rf", dir}, 30);
}

TEST(ProcessTest, StateDirSurvivesRestart) {
  std::string dir = MakeTempDir("kubesim-proc-");
  std::string state = dir + "/state";
  std::string rv_before;
  {
    SimProcess sim(KUBE_SIM_BINARY, kSnapshot, dir, {"--state-dir", state});
    ASSERT_TRUE(sim.ready()) << sim.Stderr();
    KubeconfigClient c(sim.kubeconfig());
    auto p = c->Patch("/api/v1/nodes/gpu-a", R"({"metadata":{"labels":{"persisted":"yes"}}})", "application/merge-patch+json");
    ASSERT_TRUE(p);
    ASSERT_EQ(p->status, 200);
    rv_before = json::parse(p->body)["metadata"]["resourceVersion"];
    auto d = c->Delete("/apis/apps/v1/namespaces/serving/statefulsets/infer?propagationPolicy=Orphan");
    ASSERT_EQ(d->status, 200);
    EXPECT_EQ(sim.Stop(), 0);
  }
  ASSERT_TRUE(FileExists(state + "/state.json"));
  {
    // No snapshot this time: everything comes from the state directory.
    SimProcess sim(KUBE_SIM_BINARY, R"({"kind":"List","items":[]})", dir, {"--state-dir", state});
    ASSERT_TRUE(sim.ready()) << sim.Stderr();
    KubeconfigClient c(sim.kubeconfig());
    json node = json::parse(c->Get("/api/v1/nodes/gpu-a")->body);
    EXPECT_EQ(node["metadata"]["labels"]["persisted"], "yes");
    EXPECT_EQ(node["metadata"]["resourceVersion"], rv_before);
    EXPECT_EQ(node["metadata"]["uid"], "node-gpu-a");
    EXPECT_EQ(c->Get("/apis/apps/v1/namespaces/serving/statefulsets/infer")->status, 404);
    EXPECT_EQ(c->Get("/api/v1/namespaces/serving/pods/infer-0")->status, 200);  // orphaned, kept
    std::string rv = json::parse(c->Get("/api/v1/pods")->body)["metadata"]["resourceVersion"];
    EXPECT_GE(std::stoull(rv), std::stoull(rv_before));
  }
  RunProcess({"rm", "-rf", dir}, 30);
}

}  // namespace
}  // namespace kubeon::kubesim
