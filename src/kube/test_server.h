// Test-only helpers for the kube tests: a throw-away PKI made with the
// `openssl` command line tool, and an HTTPS server (cpp-httplib) using it.
//
// TestPki::Create() makes, in a fresh temporary directory (removed by the
// destructor): a server CA and a server certificate for 127.0.0.1, localhost
// and kube.test; a separate client CA and a client certificate (CN=admin,
// O=system:masters); and an unrelated CA that signed nothing.
// TestServer serves on 127.0.0.1 (a free port) over TLS, optionally requiring
// a client certificate signed by the client CA; handlers are registered on
// http() before Start().
#pragma once

#include <httplib.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "kube/kubeconfig.h"
#include "kube/test_util.h"
#include "model/status.h"

namespace kubeon::kube::testing {

struct TestPki {
  std::unique_ptr<TempDir> dir;
  std::string ca_file, ca_pem;                 // signs the server certificate
  std::string server_cert_file, server_key_file;
  std::string client_ca_file;                  // signs the client certificate
  std::string client_cert_pem, client_key_pem;
  std::string other_ca_pem;                    // trusted by nobody's server

  static Result<TestPki> Create() {
    TestPki pki;
    pki.dir = std::make_unique<TempDir>();
    const std::string d = pki.dir->path();
    if (d.empty()) return Status::Error("mkdtemp failed");
    const std::string ec = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
    auto run = [&](const std::string& cmd) {
      return std::system(("cd '" + d + "' && " + cmd + " >/dev/null 2>&1").c_str()) == 0;
    };
    auto make_ca = [&](const std::string& name) {
      return run("openssl req -x509" + ec + "-keyout " + name + ".key -out " + name + ".crt -days 2 -subj /CN=" +
                 name + " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign");
    };
    auto make_leaf = [&](const std::string& name, const std::string& ca, const std::string& subj,
                         const std::string& ext) {
      return run("openssl req" + ec + "-keyout " + name + ".key -out " + name + ".csr -subj " + subj + ext) &&
             run("openssl x509 -req -in " + name + ".csr -CA " + ca + ".crt -CAkey " + ca + ".key -CAcreateserial -out " +
                 name + ".crt -days 2 -copy_extensions copyall");
    };
    if (!make_ca("server-ca") || !make_ca("client-ca") || !make_ca("other-ca")) {
      return Status::Error("openssl: cannot create test CAs");
    }
    if (!make_leaf("server", "server-ca", "/CN=kube-test-server",
                   " -addext subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kube.test"
                   " -addext extendedKeyUsage=serverAuth")) {
      return Status::Error("openssl: cannot create the server certificate");
    }
    if (!make_leaf("client", "client-ca", "/O=system:masters/CN=admin", " -addext extendedKeyUsage=clientAuth")) {
      return Status::Error("openssl: cannot create the client certificate");
    }
    pki.ca_file = d + "/server-ca.crt";
    pki.ca_pem = ReadText(pki.ca_file);
    pki.server_cert_file = d + "/server.crt";
    pki.server_key_file = d + "/server.key";
    pki.client_ca_file = d + "/client-ca.crt";
    pki.client_cert_pem = ReadText(d + "/client.crt");
    pki.client_key_pem = ReadText(d + "/client.key");
    pki.other_ca_pem = ReadText(d + "/other-ca.crt");
    return pki;
  }
};

// One TestPki per test process, made on first use (running openssl takes a
// while) and removed at exit; nullptr when it could not be made.
inline const TestPki* SharedTestPki() {
  static const Result<TestPki> pki = TestPki::Create();
  return pki.ok() ? &pki.value() : nullptr;
}

class TestServer {
 public:
  // REQUIRES: pki outlives the constructor call only (files are read here).
  explicit TestServer(const TestPki& pki, bool require_client_cert = false)
      : server_(pki.server_cert_file.c_str(), pki.server_key_file.c_str(),
                require_client_cert ? pki.client_ca_file.c_str() : nullptr) {}
  ~TestServer() { Stop(); }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  httplib::SSLServer& http() { return server_; }

  // Binds a free port and serves on a thread; returns false on failure.
  bool Start() {
    if (!server_.is_valid()) return false;
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) return false;
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 200 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return server_.is_running();
  }
  void Stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }

  // A RestConfig trusting the server CA, with a bearer token.
  RestConfig Config(const TestPki& pki, const std::string& token = "") const {
    RestConfig c;
    c.server = url();
    c.ca_pem = pki.ca_pem;
    c.token = token;
    c.namespace_ = "default";
    return c;
  }

 private:
  httplib::SSLServer server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace kubeon::kube::testing
