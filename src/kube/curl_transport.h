// HttpTransport over libcurl, configured from a RestConfig's TLS settings.
//
// Contract:
//  - TLS: the server certificate is verified against RestConfig::ca_pem when
//    set (and then only against it), else against the system trust store;
//    verification is off only when RestConfig::insecure_skip_tls_verify.
//    tls_server_name, when set, is the name verified and sent as SNI.
//  - The client certificate and key are handed to libcurl from memory
//    (CURLOPT_*_BLOB): no key material is written to disk.
//  - Connections are reused: finished easy handles go back to a pool and keep
//    their connection cache; HTTP/2 is negotiated over TLS when libcurl
//    supports it, else HTTP/1.1.  Send() accepts gzip-compressed
//    bodies (as kubectl does) and decodes them; Stream() asks for none.
//  - Send() stops reading a body at HttpRequest::max_body_bytes (decoded
//    size; a larger Content-Length is refused before reading) and returns
//    kTooLarge: a hostile or broken server cannot make it buffer gigabytes.
//  - The transport adds no credentials: the caller sets Authorization.
//  - Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/http_transport.h"
#include "kube/kubeconfig.h"
#include "model/status.h"

namespace kubeon::kube {

struct CurlTransportOptions {
  std::chrono::milliseconds connect_timeout{10000};
  bool http2 = true;  // offer h2 via ALPN when libcurl has it
  std::string user_agent = "kubeon-gpu";
};

class CurlTransport : public HttpTransport {
 public:
  // Fails when the server URL cannot be used (names the problem).
  static Result<std::unique_ptr<CurlTransport>> Create(const RestConfig& config,
                                                        const CurlTransportOptions& options = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  HttpResult Send(const HttpRequest& request) override;
  HttpResult Stream(const HttpRequest& request, const StreamHandler& handler) override;

  // Counters since creation (for tests and benchmarks).
  uint64_t requests() const { return requests_.load(); }
  uint64_t connections_opened() const { return connections_.load(); }

 private:
  struct Exchange;
  CurlTransport(const RestConfig& config, const CurlTransportOptions& options);
  void* Acquire();
  void Release(void* handle);
  HttpResult Perform(const HttpRequest& request, const StreamHandler* handler);

  std::string base_url_;     // scheme://host[:port][/prefix] requests are sent to
  std::string connect_to_;   // CURLOPT_CONNECT_TO entry when tls_server_name is set
  std::string host_header_;  // "Host: ..." when the URL host was replaced
  std::string display_url_;  // server URL as configured (for messages)
  std::string ca_pem_, cert_pem_, key_pem_;
  bool insecure_ = false;
  CurlTransportOptions options_;
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles with warm connections
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> connections_{0};
};

}  // namespace kubeon::kube
