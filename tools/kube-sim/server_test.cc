// Integration test: the HTTPS server in-process on a free port, spoken to
// with cpp-httplib's client over TLS verified against the generated CA:
// authentication (token, client certificate, wrong CA), lists, eviction
// 429, and watch streaming (uncompressed, and cut by an injected fault).
#include "server.h"

#include <gtest/gtest.h>

#include <openssl/x509.h>

#include <atomic>
#include <thread>

#include <httplib.h>

#include "test_util.h"

namespace kubeon::kubesim {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = GenerateTlsBundle();
    ASSERT_TRUE(t.ok()) << t.error().message;
    tls = std::move(t).value();
    sim = std::make_unique<Simulator>(Settings());
    {
      std::lock_guard<std::mutex> lock(sim->mutex());
      ASSERT_TRUE(sim->LoadSnapshot(testing::TestdataJson("small.json"), "small.json").ok());
    }
    ServerOptions o;
    o.token = "tok";
    server = std::make_unique<Server>(*sim, o, tls);
    auto port = server->Bind();
    ASSERT_TRUE(port.ok()) << port.error().message;
    server->Start();
    ASSERT_TRUE(server->WaitRunning(5000));
  }
  void TearDown() override {
    if (server) server->Stop();
  }

  X509_STORE* CaStore(const CertKey& ca) {
    X509_STORE* s = X509_STORE_new();
    X509_STORE_add_cert(s, ca.cert.get());
    return s;
  }
  std::unique_ptr<httplib::SSLClient> Client(bool with_token = true) {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", server->port());
    c->set_ca_cert_store(CaStore(tls.ca));
    c->enable_server_certificate_verification(true);
    c->set_read_timeout(10, 0);
    c->set_connection_timeout(5, 0);
    if (with_token) c->set_bearer_token_auth("tok");
    return c;
  }

  TlsBundle tls;
  std::unique_ptr<Simulator> sim;
  std::unique_ptr<Server> server;
};

TEST_F(ServerTest, ListsOverVerifiedTls) {
  auto c = Client();
  auto r = c->Get("/api/v1/pods");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  json body = json::parse(r->body);
  EXPECT_EQ(body["kind"], "PodList");
  EXPECT_EQ(body["items"].size(), 11u);  // with the GPU operator's DaemonSet pods
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
}

TEST_F(ServerTest, RejectsRequestsWithoutCredentials) {
  auto c = Client(false);
  auto r = c->Get("/api/v1/nodes");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(json::parse(r->body)["reason"], "Unauthorized");
}

TEST_F(ServerTest, AcceptsClientCertificatesFromItsCa) {
  httplib::SSLClient c("127.0.0.1", server->port(), tls.client.cert.get(), tls.client.key.get());
  c.set_ca_cert_store(CaStore(tls.ca));
  c.enable_server_certificate_verification(true);
  auto r = c.Get("/api/v1/nodes/gpu-a");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
}

TEST_F(ServerTest, UntrustedOrExpiredClientCertificatesDoNotAuthenticate) {
  auto other = GenerateTlsBundle();
  ASSERT_TRUE(other.ok());
  CertRequest expired_req{"late", {"system:masters"}, false, false, {}, {}, -60};
  auto expired = IssueCertificate(expired_req, &tls.ca);
  ASSERT_TRUE(expired.ok());
  for (const CertKey* cert : {&other.value().client, &expired.value()}) {
    httplib::SSLClient c("127.0.0.1", server->port(), cert->cert.get(), cert->key.get());
    c.set_ca_cert_store(CaStore(tls.ca));
    c.enable_server_certificate_verification(true);
    auto r = c.Get("/api/v1/nodes");
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 401);
  }
}

TEST_F(ServerTest, ClientWithAnotherCaCannotConnect) {
  auto other = GenerateTlsBundle();
  ASSERT_TRUE(other.ok());
  httplib::SSLClient c("127.0.0.1", server->port());
  c.set_ca_cert_store(CaStore(other.value().ca));
  c.enable_server_certificate_verification(true);
  c.set_bearer_token_auth("tok");
  auto r = c.Get("/api/v1/nodes");
  EXPECT_FALSE(r);
}

TEST_F(ServerTest, EvictionBlockedByBudgetIs429) {
  auto c = Client();
  auto r = c->Post("/api/v1/namespaces/ml/pods/trainer-6d4cf56db6-x7k2p/eviction",
                   R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"trainer-6d4cf56db6-x7k2p"}})",
                   "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(json::parse(r->body)["message"], "Cannot evict pod as it would violate the pod's disruption budget.");
}

TEST_F(ServerTest, WatchStreamsEventsPromptlyEvenWhenGzipIsAccepted) {
  auto c = Client();
  std::string rv = json::parse(c->Get("/api/v1/nodes")->body)["metadata"]["resourceVersion"];
  std::atomic<bool> got{false};
  std::string seen;
  std::thread watcher([&] {
    auto w = Client();
    httplib::Headers h = {{"Accept-Encoding", "gzip"}};
    w->Get("/api/v1/nodes?watch=true&resourceVersion=" + rv, h, [&](const char* data, size_t len) {
      seen.append(data, len);
      if (seen.find('\n') != std::string::npos) {
        got = true;
        return false;
      }
      return true;
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto p = c->Patch("/api/v1/nodes/gpu-b", R"({"metadata":{"labels":{"watched":"yes"}}})", "application/merge-patch+json");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 200);
  for (int i = 0; i < 50 && !got; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  watcher.join();
  ASSERT_TRUE(got);
  json event = json::parse(seen.substr(0, seen.find('\n')));
  EXPECT_EQ(event["type"], "MODIFIED");
  EXPECT_EQ(event["object"]["metadata"]["labels"]["watched"], "yes");
}

TEST_F(ServerTest, InjectedWatchDropCutsTheConnection) {
  auto c = Client();
  ASSERT_EQ(c->Post("/sim/faults", R"({"dropWatchAfterEvents":[{"path":"/pods","events":2}]})", "application/json")->status, 200);
  std::string seen;
  auto r = Client()->Get("/api/v1/pods?watch=1", [&](const char* data, size_t len) {
    seen.append(data, len);
    return true;
  });
  EXPECT_FALSE(r);  // no terminating chunk: the client sees a broken stream
  EXPECT_EQ(std::count(seen.begin(), seen.end(), '\n'), 2);
}

}  // namespace
}  // namespace kubeon::kubesim
