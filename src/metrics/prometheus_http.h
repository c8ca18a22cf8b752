// PrometheusHttp: the HTTP exchange with a Prometheus-compatible API
// (Prometheus, Thanos Query, Mimir/Cortex with a path prefix), over libcurl.
//
// Contract:
//   * The base URL is http:// or https://, host, optional port and optional
//     path prefix (e.g. "https://mimir.example/prometheus"); a trailing '/'
//     is dropped.  User info ("user:pass@") and query strings are refused, so
//     no credential ever sits in the URL that messages print.
//   * Credentials: the bearer token is read once from bearer_token_file
//     (surrounding blanks and newlines removed) and sent as
//     "Authorization: Bearer ..."; extra headers are "Name: value" lines
//     (e.g. "X-Scope-OrgID: team-a").  Neither the token nor any header value
//     appears in any message, log or error (only header names and positions).
//   * TLS: with ca_file, the server certificate is verified against that file
//     only; otherwise against the system trust store.  Verification is never
//     switched off.
//   * Every HTTP status is a completed exchange (HttpExchange::ok); only
//     failures to complete one are errors, classified: the server could not
//     be reached (refused, DNS, reset), no complete answer within the
//     timeout, TLS, or an answer larger than max_response_bytes (checked on
//     the decoded body while it arrives, so memory stays bounded).
//   * One connection is kept and reused between requests; gzip answers are
//     accepted and decoded.  Not thread-safe: one request at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/status.h"

namespace kubeon::metrics {

struct PrometheusHttpOptions {
  std::string url;                  // base URL, see the file comment
  std::string bearer_token_file;    // "" = no Authorization header from a file
  std::string ca_file;              // "" = system trust store
  std::vector<std::string> headers; // "Name: value"
  std::chrono::milliseconds timeout{120000};         // whole exchange
  std::chrono::milliseconds connect_timeout{10000};
  size_t max_response_bytes = size_t{256} << 20;     // decoded body
};

enum class HttpErrorKind {
  kUnreachable,  // connection refused, host not found, reset before an answer
  kTimeout,      // no complete answer within the timeout
  kTls,          // handshake failed or stalled, or certificate verification failed
  kTooLarge,     // body above max_response_bytes
  kOther,
};

struct HttpExchange {
  bool ok = false;       // an HTTP answer arrived (any status)
  int status = 0;        // when ok
  std::string body;      // when ok
  HttpErrorKind error_kind = HttpErrorKind::kOther;  // when !ok
  std::string error;     // when !ok: one line, names the URL, never a credential
};

using FormFields = std::vector<std::pair<std::string, std::string>>;

class PrometheusHttp {
 public:
  // Validates the options and reads the token file; errors name the option
  // and the file (never its content).
  static Result<std::unique_ptr<PrometheusHttp>> Create(const PrometheusHttpOptions& options);
  ~PrometheusHttp();
  PrometheusHttp(const PrometheusHttp&) = delete;
  PrometheusHttp& operator=(const PrometheusHttp&) = delete;

  // POST application/x-www-form-urlencoded `form` to base URL + `path`
  // (e.g. "/api/v1/query").
  HttpExchange PostForm(std::string_view path, const FormFields& form);
  // GET base URL + `path` + "?" + the encoded `query` (omitted when empty).
  HttpExchange Get(std::string_view path, const FormFields& query);

  const std::string& url() const { return base_url_; }
  std::chrono::milliseconds timeout() const { return options_.timeout; }
  uint64_t requests() const { return requests_; }
  uint64_t bytes_received() const { return bytes_received_; }

  // "a=1&b=x%20y": each name and value percent-encoded (RFC 3986 unreserved
  // characters kept).
  static std::string EncodeForm(const FormFields& fields);

 private:
  PrometheusHttp() = default;
  HttpExchange Perform(const std::string& url, const std::string* post_body);

  std::string base_url_;
  std::string ca_file_;
  std::vector<std::string> header_lines_;  // Authorization and extra headers
  PrometheusHttpOptions options_;
  void* curl_ = nullptr;  // CURL*, reused for its connection
  uint64_t requests_ = 0;
  uint64_t bytes_received_ = 0;
};

}  // namespace kubeon::metrics
