// Tests for curl_easy.h: the CURLcode classification, and the common options
// against an in-process plain-HTTP server (cpp-httplib) on 127.0.0.1: the URL
// and User-Agent reach the server, redirects are not followed, the
// whole-transfer timeout and the error buffer work, other protocols are
// refused, and the CA settings take effect with verification only.  TLS
// against a real certificate is exercised through the callers, by
// kube/curl_transport_test and metrics/prometheus_client_test.
#include "net/curl_easy.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace kubeon::net {
namespace {

// Serves /hello (records the User-Agent), /moved (a redirect to /hello) and
// /slow (answers after 1.5 s) on a free port of 127.0.0.1.
class LocalServer {
 public:
  LocalServer() {
    server_.Get("/hello", [this](const httplib::Request& req, httplib::Response& res) {
      ++hello_hits_;
      {
        std::lock_guard<std::mutex> lock(mu_);
        user_agent_ = req.get_header_value("User-Agent");
      }
      res.set_content("hello", "text/plain");
    });
    server_.Get("/moved", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/hello"); });
    server_.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      res.set_content("late", "text/plain");
    });
    // A TLS ClientHello is not HTTP: give up on it quickly.
    server_.set_read_timeout(0, 300000);
    server_.set_write_timeout(0, 300000);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~LocalServer() { Stop(); }
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  bool running() { return port_ > 0 && server_.is_running(); }
  void Stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string Url(const std::string& scheme, const std::string& path) const {
    return scheme + "://127.0.0.1:" + std::to_string(port_) + path;
  }
  int hello_hits() const { return hello_hits_.load(); }
  std::string user_agent() {
    std::lock_guard<std::mutex> lock(mu_);
    return user_agent_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> hello_hits_{0};
  std::mutex mu_;
  std::string user_agent_;
};

struct Outcome {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::string detail;  // CurlErrorDetail when code != CURLE_OK
  double seconds = 0;
};

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One transfer on a fresh handle with only SetCommonOptions() (plus a body
// sink); the error buffer is supplied here.
Outcome Transfer(EasyOptions options) {
  CurlGlobalInit();
  CURL* curl = curl_easy_init();
  EXPECT_NE(curl, nullptr);
  Outcome out;
  if (curl == nullptr) return out;
  char errbuf[CURL_ERROR_SIZE] = {0};
  options.error_buffer = errbuf;
  SetCommonOptions(curl, options);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  auto t0 = std::chrono::steady_clock::now();
  out.code = curl_easy_perform(curl);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  if (out.code != CURLE_OK) out.detail = CurlErrorDetail(out.code, errbuf);
  curl_easy_cleanup(curl);
  return out;
}

TEST(ClassifyCurlCodeTest, SortsEveryCodeIntoOneClass) {
  const std::map<CURLcode, CurlFailure> listed = {
      {CURLE_COULDNT_RESOLVE_HOST, CurlFailure::kConnection},
      {CURLE_COULDNT_RESOLVE_PROXY, CurlFailure::kConnection},
      {CURLE_COULDNT_CONNECT, CurlFailure::kConnection},
      {CURLE_SEND_ERROR, CurlFailure::kConnection},
      {CURLE_RECV_ERROR, CurlFailure::kConnection},
      {CURLE_GOT_NOTHING, CurlFailure::kConnection},
      {CURLE_PARTIAL_FILE, CurlFailure::kConnection},
      {CURLE_HTTP2, CurlFailure::kConnection},
      {CURLE_HTTP2_STREAM, CurlFailure::kConnection},
      {CURLE_OPERATION_TIMEDOUT, CurlFailure::kTimeout},
      {CURLE_PEER_FAILED_VERIFICATION, CurlFailure::kTls},
      {CURLE_SSL_CONNECT_ERROR, CurlFailure::kTls},
      {CURLE_SSL_CERTPROBLEM, CurlFailure::kTls},
      {CURLE_SSL_CIPHER, CurlFailure::kTls},
      {CURLE_SSL_CACERT_BADFILE, CurlFailure::kTls},
      {CURLE_SSL_ISSUER_ERROR, CurlFailure::kTls},
      {CURLE_SSL_INVALIDCERTSTATUS, CurlFailure::kTls},
      {CURLE_SSL_PINNEDPUBKEYNOTMATCH, CurlFailure::kTls},
      {CURLE_SSL_ENGINE_INITFAILED, CurlFailure::kTls},
      {CURLE_SSL_ENGINE_NOTFOUND, CurlFailure::kTls},
      {CURLE_SSL_ENGINE_SETFAILED, CurlFailure::kTls},
      {CURLE_SSL_CRL_BADFILE, CurlFailure::kTls},
      {CURLE_SSL_SHUTDOWN_FAILED, CurlFailure::kTls},
      {CURLE_USE_SSL_FAILED, CurlFailure::kTls},
      {CURLE_ABORTED_BY_CALLBACK, CurlFailure::kStopped},
      {CURLE_WRITE_ERROR, CurlFailure::kStopped},
  };
  for (int c = 0; c < CURL_LAST; ++c) {
    auto code = static_cast<CURLcode>(c);
    auto it = listed.find(code);
    CurlFailure want = it == listed.end() ? CurlFailure::kOther : it->second;
    EXPECT_EQ(ClassifyCurlCode(code), want) << "CURLcode " << c << " (" << curl_easy_strerror(code) << ")";
  }
}

TEST(CurlErrorDetailTest, PrefersTheErrorBufferOverTheGenericText) {
  EXPECT_EQ(CurlErrorDetail(CURLE_COULDNT_CONNECT, "Failed to connect to x port 1"), "Failed to connect to x port 1");
  const std::string generic = curl_easy_strerror(CURLE_COULDNT_CONNECT);
  EXPECT_FALSE(generic.empty());
  EXPECT_EQ(CurlErrorDetail(CURLE_COULDNT_CONNECT, ""), generic);
  EXPECT_EQ(CurlErrorDetail(CURLE_COULDNT_CONNECT, nullptr), generic);
}

class SetCommonOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.running()); }

  // Options for `path` on the server, with a generous whole-transfer timeout.
  EasyOptions At(const std::string& scheme, const std::string& path) const {
    EasyOptions o;
    o.url = server_.Url(scheme, path);
    o.timeout = std::chrono::seconds(10);
    return o;
  }

  LocalServer server_;
};

TEST_F(SetCommonOptionsTest, SendsTheUrlAndUserAgent) {
  EasyOptions o = At("http", "/hello");
  o.user_agent = "kubeon-test/1";
  Outcome out = Transfer(o);
  ASSERT_EQ(out.code, CURLE_OK) << out.detail;
  EXPECT_EQ(out.status, 200);
  EXPECT_EQ(out.body, "hello");
  EXPECT_EQ(server_.user_agent(), "kubeon-test/1");
  EXPECT_EQ(server_.hello_hits(), 1);
}

TEST_F(SetCommonOptionsTest, DoesNotFollowRedirects) {
  Outcome out = Transfer(At("http", "/moved"));
  ASSERT_EQ(out.code, CURLE_OK) << out.detail;
  EXPECT_EQ(out.status, 302);
  EXPECT_EQ(server_.hello_hits(), 0);
}

TEST_F(SetCommonOptionsTest, WholeTransferTimeoutFillsTheErrorBuffer) {
  EasyOptions o = At("http", "/slow");
  o.timeout = std::chrono::milliseconds(300);
  Outcome out = Transfer(o);
  EXPECT_EQ(out.code, CURLE_OPERATION_TIMEDOUT);
  EXPECT_EQ(ClassifyCurlCode(out.code), CurlFailure::kTimeout);
  EXPECT_LT(out.seconds, 1.4);
  // The buffer's text names the elapsed time; the generic text does not.
  EXPECT_NE(out.detail, curl_easy_strerror(out.code));
  EXPECT_NE(out.detail.find("milliseconds"), std::string::npos) << out.detail;
}

TEST_F(SetCommonOptionsTest, ClosedPortIsAConnectionFailure) {
  server_.Stop();
  Outcome out = Transfer(At("http", "/hello"));
  EXPECT_EQ(out.code, CURLE_COULDNT_CONNECT) << out.detail;
  EXPECT_EQ(ClassifyCurlCode(out.code), CurlFailure::kConnection);
}

TEST(SetCommonOptionsProtocolTest, RefusesProtocolsOtherThanHttpAndHttps) {
  EasyOptions o;
  o.url = "file:///etc/hostname";
  Outcome out = Transfer(o);
  EXPECT_EQ(out.code, CURLE_UNSUPPORTED_PROTOCOL) << out.detail;
  EXPECT_EQ(ClassifyCurlCode(out.code), CurlFailure::kOther);
  EXPECT_TRUE(out.body.empty());
}

// The CA is loaded when the TLS session is set up, before the handshake: an
// unreadable CA file or a CA blob that is not PEM fails there, with
// verification only.  (The server speaks plain HTTP, so a handshake that is
// attempted fails too, differently.)
TEST_F(SetCommonOptionsTest, CaIsLoadedOnlyWithVerification) {
  EasyOptions o = At("https", "/hello");
  o.ca_file = "/nonexistent/kubeon-ca.pem";
  Outcome file = Transfer(o);
  EXPECT_EQ(file.code, CURLE_SSL_CACERT_BADFILE) << file.detail;
  EXPECT_EQ(ClassifyCurlCode(file.code), CurlFailure::kTls);

  o.ca_file.clear();
  const std::string not_pem = "not a certificate";
  o.ca_pem = not_pem;
  Outcome blob = Transfer(o);
  EXPECT_EQ(blob.code, CURLE_SSL_CACERT_BADFILE) << blob.detail;

  o.verify_tls = false;
  o.ca_file = "/nonexistent/kubeon-ca.pem";
  Outcome unverified = Transfer(o);
  EXPECT_NE(unverified.code, CURLE_OK);
  EXPECT_NE(unverified.code, CURLE_SSL_CACERT_BADFILE) << unverified.detail;
  EXPECT_EQ(server_.hello_hits(), 0);
}

}  // namespace
}  // namespace kubeon::net
