// The HTTP exchange KubeClient needs, as an interface: one request/response
// call and one streaming call (for watch).  CurlTransport is the real
// implementation; tests may substitute their own.
//
// Contract for implementations:
//  - HttpRequest::path is the path and query relative to the server URL
//    (already percent-encoded), e.g. "/api/v1/pods?limit=500".
//  - Any HTTP status is a successful exchange (an HttpResponse); only failures
//    to complete the exchange are TransportErrors, classified so the caller
//    can tell a retryable failure (refused/reset connection, timeout) from a
//    permanent one (TLS verification, bad configuration).
//  - Messages never contain request headers (they carry the bearer token).
//  - Thread-safe: calls may run concurrently (e.g. a watch and a patch).
#pragma once

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kubeon::kube {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // path + query, starting with '/'
  HttpHeaders headers;
  std::string body;
  std::chrono::milliseconds timeout{30000};  // whole exchange; 0 = none (streams)
  // Send(): a body (after decompression) longer than this is not read on:
  // the exchange stops with kTooLarge.  0 = no cap.  Stream() leaves the
  // cap to its handler.
  size_t max_body_bytes = 0;
};

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;  // names as received
  std::string body;

  // The first header named `name` (case-insensitive), "" when absent.
  std::string Header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (k.size() != name.size()) continue;
      bool same = true;
      for (size_t i = 0; i < k.size() && same; ++i) {
        same = std::tolower(static_cast<unsigned char>(k[i])) == std::tolower(static_cast<unsigned char>(name[i]));
      }
      if (same) return v;
    }
    return "";
  }
};

enum class TransportErrorKind {
  kConnection,  // refused, reset, closed early, DNS: retryable
  kTimeout,     // no complete answer in time: retryable
  kTls,         // handshake or certificate verification failed: permanent
  kCancelled,   // the caller asked to stop
  kTooLarge,    // the body passed HttpRequest::max_body_bytes: permanent
  kOther,       // anything else: permanent
};

struct TransportError {
  TransportErrorKind kind = TransportErrorKind::kOther;
  std::string message;  // one line, names the server; never a header value
  bool retryable() const {
    return kind == TransportErrorKind::kConnection || kind == TransportErrorKind::kTimeout;
  }
};

// An HttpResponse or a TransportError.
class HttpResult {
 public:
  HttpResult(HttpResponse r) : v_(std::move(r)) {}    // NOLINT(google-explicit-constructor)
  HttpResult(TransportError e) : v_(std::move(e)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return std::holds_alternative<HttpResponse>(v_); }
  // REQUIRES: ok()
  const HttpResponse& response() const { return std::get<HttpResponse>(v_); }
  HttpResponse& response() { return std::get<HttpResponse>(v_); }
  // REQUIRES: !ok()
  const TransportError& error() const { return std::get<TransportError>(v_); }

 private:
  std::variant<HttpResponse, TransportError> v_;
};

// Callbacks of a streaming exchange.  on_data receives the body of a 2xx
// response as it arrives, in arbitrary chunks; returning false stops the
// stream (reported as kCancelled).  The body of a non-2xx response is not
// streamed: it is returned whole in the HttpResponse.
struct StreamHandler {
  std::function<bool(std::string_view chunk)> on_data;
  const std::atomic<bool>* cancel = nullptr;  // polled; true stops the stream
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual HttpResult Send(const HttpRequest& request) = 0;
  // Returns when the server ends the response, the connection drops (a
  // kConnection error), or the handler stops it (kCancelled).  On success the
  // HttpResponse has the status and headers; its body is empty for 2xx.
  virtual HttpResult Stream(const HttpRequest& request, const StreamHandler& handler) = 0;
};

}  // namespace kubeon::kube
