// Tests for curl_transport.h against an in-process HTTPS server with a
// generated PKI: TLS verification (right CA, wrong CA, system store,
// insecure-skip-tls-verify, tls-server-name), client-certificate
// authentication, connection reuse, request bodies, streaming.
#include "kube/curl_transport.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <atomic>
#include <string>

#include "kube/test_server.h"

namespace kubeon::kube {
namespace {

using testing::TestPki;
using testing::TestServer;

class CurlTransportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = testing::SharedTestPki();
    ASSERT_TRUE(pki_) << "openssl: cannot create the test PKI";
  }

  // Serves GET /hello, echoing the Authorization header presence and the
  // client certificate's CN.
  void StartServer(bool require_client_cert) {
    server_ = std::make_unique<TestServer>(*pki_, require_client_cert);
    server_->http().Get("/hello", [](const httplib::Request& req, httplib::Response& res) {
      std::string cn = "none";
      if (req.ssl != nullptr) {
        X509* peer = SSL_get1_peer_certificate(req.ssl);
        if (peer != nullptr) {
          char buf[256] = {0};
          X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, buf, sizeof(buf));
          cn = buf;
          X509_free(peer);
        }
      }
      res.set_content("hello auth=" + req.get_header_value("Authorization") + " cn=" + cn, "text/plain");
    });
    ASSERT_TRUE(server_->Start());
  }

  std::unique_ptr<CurlTransport> Transport(const RestConfig& cfg) {
    auto t = CurlTransport::Create(cfg);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? std::move(t).value() : nullptr;
  }

  static HttpRequest Get(const std::string& path) {
    HttpRequest r;
    r.path = path;
    r.timeout = std::chrono::seconds(10);
    return r;
  }

  static const TestPki* pki_;
  std::unique_ptr<TestServer> server_;
};

const TestPki* CurlTransportTest::pki_ = nullptr;

TEST_F(CurlTransportTest, VerifiesServerWithKubeconfigCa) {
  StartServer(false);
  auto t = Transport(server_->Config(*pki_));
  HttpRequest req = Get("/hello");
  req.headers.emplace_back("Authorization", "Bearer abc");
  HttpResult r = t->Send(req);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.response().status, 200);
  EXPECT_EQ(r.response().body, "hello auth=Bearer abc cn=none");
  EXPECT_EQ(r.response().Header("content-type"), "text/plain");
}

TEST_F(CurlTransportTest, WrongCaFailsWithClearPermanentError) {
  StartServer(false);
  RestConfig cfg = server_->Config(*pki_);
  cfg.ca_pem = pki_->other_ca_pem;
  HttpResult r = Transport(cfg)->Send(Get("/hello"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, TransportErrorKind::kTls);
  EXPECT_FALSE(r.error().retryable());
  EXPECT_NE(r.error().message.find("TLS handshake with " + server_->url() + " failed"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("not trusted"), std::string::npos) << r.error().message;
}

TEST_F(CurlTransportTest, SystemTrustStoreDoesNotTrustTestCa) {
  StartServer(false);
  RestConfig cfg = server_->Config(*pki_);
  cfg.ca_pem.clear();
  HttpResult r = Transport(cfg)->Send(Get("/hello"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, TransportErrorKind::kTls);
}

TEST_F(CurlTransportTest, InsecureSkipVerifyOnlyWhenSet) {
  StartServer(false);
  RestConfig cfg = server_->Config(*pki_);
  cfg.ca_pem.clear();
  cfg.insecure_skip_tls_verify = true;
  HttpResult r = Transport(cfg)->Send(Get("/hello"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.response().status, 200);
}

TEST_F(CurlTransportTest, TlsServerNameIsVerifiedInsteadOfTheAddress) {
  StartServer(false);
  RestConfig cfg = server_->Config(*pki_);
  cfg.tls_server_name = "kube.test";  // in the certificate's SANs
  HttpResult good = Transport(cfg)->Send(Get("/hello"));
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good.response().status, 200);
  cfg.tls_server_name = "other.test";  // not in the SANs
  HttpResult bad = Transport(cfg)->Send(Get("/hello"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, TransportErrorKind::kTls) << bad.error().message;
}

TEST_F(CurlTransportTest, ClientCertificateAuthentication) {
  StartServer(/*require_client_cert=*/true);
  RestConfig cfg = server_->Config(*pki_);
  HttpResult without = Transport(cfg)->Send(Get("/hello"));
  ASSERT_FALSE(without.ok());
  // With TLS 1.3 the refusal is an alert sent after the handshake; depending
  // on timing the client reads the alert or only sees the connection close.
  if (without.error().kind == TransportErrorKind::kTls) {
    EXPECT_NE(without.error().message.find("client certificate"), std::string::npos) << without.error().message;
  } else {
    EXPECT_EQ(without.error().kind, TransportErrorKind::kConnection) << without.error().message;
  }

  cfg.client_cert_pem = pki_->client_cert_pem;
  cfg.client_key_pem = pki_->client_key_pem;
  HttpResult with = Transport(cfg)->Send(Get("/hello"));
  ASSERT_TRUE(with.ok()) << with.error().message;
  EXPECT_EQ(with.response().body, "hello auth= cn=admin");
}

TEST_F(CurlTransportTest, UnreachableServerIsARetryableConnectionError) {
  StartServer(false);
  RestConfig cfg = server_->Config(*pki_);
  server_->Stop();
  HttpResult r = Transport(cfg)->Send(Get("/hello"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, TransportErrorKind::kConnection);
  EXPECT_TRUE(r.error().retryable());
  EXPECT_EQ(r.error().message.rfind("cannot reach " + cfg.server + ": ", 0), 0u) << r.error().message;
}

TEST_F(CurlTransportTest, ReusesConnections) {
  StartServer(false);
  auto t = Transport(server_->Config(*pki_));
  for (int i = 0; i < 4; ++i) {
    HttpResult r = t->Send(Get("/hello"));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  EXPECT_EQ(t->requests(), 4u);
  EXPECT_EQ(t->connections_opened(), 1u);
}

TEST_F(CurlTransportTest, SendsMethodHeadersAndBody) {
  server_ = std::make_unique<TestServer>(*pki_);
  auto echo = [](const httplib::Request& req, httplib::Response& res) {
    res.status = 201;
    res.set_content(req.method + " " + req.target + " " + req.get_header_value("Content-Type") + " " + req.body,
                    "text/plain");
  };
  server_->http().Post("/obj", echo).Put("/obj", echo).Patch("/obj", echo);
  ASSERT_TRUE(server_->Start());
  auto t = Transport(server_->Config(*pki_));
  for (const std::string method : {"POST", "PUT", "PATCH"}) {
    HttpRequest req = Get("/obj?x=1");
    req.method = method;
    req.headers.emplace_back("Content-Type", "application/merge-patch+json");
    req.body = R"({"a":1})";
    HttpResult r = t->Send(req);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r.response().status, 201);
    EXPECT_EQ(r.response().body, method + R"( /obj?x=1 application/merge-patch+json {"a":1})");
  }
}

TEST_F(CurlTransportTest, StreamDeliversChunksAndReportsDropsAndCancellation) {
  server_ = std::make_unique<TestServer>(*pki_);
  // /stream sends three lines then ends; /drop sends one line then breaks the
  // connection; /forever keeps sending until the client goes away.
  server_->http().Get("/stream", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      for (int i = 0; i < 3; ++i) {
        std::string line = "line" + std::to_string(i) + "\n";
        sink.write(line.data(), line.size());
      }
      sink.done();
      return true;
    });
  });
  server_->http().Get("/drop", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t offset, httplib::DataSink& sink) {
      if (offset > 0) return false;  // abort: no terminating chunk
      sink.write("first\n", 6);
      return true;
    });
  });
  server_->http().Get("/forever", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return sink.write("tick\n", 5);
    });
  });
  server_->http().Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content(R"({"kind":"Status","message":"nope"})", "application/json");
  });
  ASSERT_TRUE(server_->Start());
  auto t = Transport(server_->Config(*pki_));

  std::string got;
  StreamHandler collect;
  collect.on_data = [&](std::string_view chunk) {
    got.append(chunk);
    return true;
  };
  HttpResult done = t->Stream(Get("/stream"), collect);
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done.response().status, 200);
  EXPECT_EQ(got, "line0\nline1\nline2\n");
  EXPECT_EQ(done.response().body, "");

  got.clear();
  HttpResult dropped = t->Stream(Get("/drop"), collect);
  ASSERT_FALSE(dropped.ok());
  EXPECT_EQ(got, "first\n");
  EXPECT_EQ(dropped.error().kind, TransportErrorKind::kConnection) << dropped.error().message;

  int ticks = 0;
  StreamHandler stop_after_three;
  stop_after_three.on_data = [&](std::string_view) { return ++ticks < 3; };
  HttpResult stopped = t->Stream(Get("/forever"), stop_after_three);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().kind, TransportErrorKind::kCancelled);
  EXPECT_EQ(ticks, 3);

  std::atomic<bool> cancel{false};
  StreamHandler cancellable;
  cancellable.cancel = &cancel;
  cancellable.on_data = [&](std::string_view) {
    cancel = true;  // as another thread would
    return true;
  };
  HttpResult cancelled = t->Stream(Get("/forever"), cancellable);
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.error().kind, TransportErrorKind::kCancelled);

  got.clear();
  HttpResult missing = t->Stream(Get("/missing"), collect);
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_EQ(missing.response().status, 404);
  EXPECT_EQ(missing.response().body, R"({"kind":"Status","message":"nope"})");
  EXPECT_EQ(got, "");
}

TEST(CurlTransportCreateTest, RejectsUnusableServerUrl) {
  RestConfig cfg;
  cfg.server = "ftp://example";
  auto t = CurlTransport::Create(cfg);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "server \"ftp://example\" is not a valid http(s) URL");
}

}  // namespace
}  // namespace kubeon::kube
