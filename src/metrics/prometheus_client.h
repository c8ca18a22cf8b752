// PrometheusClient: instant queries against the Prometheus HTTP API
// (/api/v1/query, POST form) and the metric-name list
// (/api/v1/label/__name__/values), with every failure turned into one
// classified, readable error.
//
// Contract:
//   * Query() succeeds only on HTTP 2xx with {"status":"success"} and a
//     result of type "vector"; each element's labels and value are returned
//     (values as Prometheus writes them: decimal, NaN, +Inf, -Inf).
//     Warnings in the answer are returned beside the result.
//   * Failures are QueryErrors whose message names the server URL, what was
//     asked (the caller's description) and the server's own words
//     (`errorType: error` from the JSON error body, or the start of a
//     non-JSON body), never a credential.  Kinds:
//       kUnreachable  connection refused, DNS, reset (transport)
//       kTimeout      no answer within the client timeout (transport)
//       kLimit        the server refused the query's size or time: "too many
//                     samples", "query timed out", Thanos/Mimir/Cortex
//                     "exceeded"/"exceeds the limit" messages; a smaller time
//                     window may succeed
//       kTooLarge     the answer is above the configured byte limit
//       kRejected     other 4xx (bad query, unauthorized, not found)
//       kServer       other 5xx, TLS, or an answer that is not the
//                     Prometheus API (not JSON, wrong shape)
//   * The server is also told the client timeout (form field `timeout`,
//     one second less) so that it stops evaluating when the client gives up.
//   * ParseQueryAnswer is the pure part, exposed for tests.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/prometheus_http.h"
#include "model/status.h"

namespace kubeon::metrics {

struct PromSample {
  std::map<std::string, std::string> labels;
  double value = 0;
};

enum class QueryErrorKind { kUnreachable, kTimeout, kLimit, kTooLarge, kRejected, kServer };

struct QueryOutcome {
  bool ok = false;
  std::vector<PromSample> samples;    // when ok
  std::vector<std::string> warnings;  // when ok
  QueryErrorKind error_kind = QueryErrorKind::kServer;  // when !ok
  std::string error;                                    // when !ok
};

// Interprets one answer of /api/v1/query.  `what` describes the query for
// messages; `url` is the server's base URL.
QueryOutcome ParseQueryAnswer(int http_status, std::string_view body, const std::string& url,
                              const std::string& what);

// True for the server messages listed under kLimit above.
bool IsLimitMessage(std::string_view error_type, std::string_view error);

class PrometheusClient {
 public:
  explicit PrometheusClient(std::unique_ptr<PrometheusHttp> http);

  // Instant query of `promql` at `time_ms`.  `what` names it in messages
  // (e.g. "peak memory over 2026-11-01 10:00..2026-11-02 10:00").
  QueryOutcome Query(const std::string& promql, int64_t time_ms, const std::string& what);

  // Metric names with samples in [start_ms, end_ms] (for error messages).
  Result<std::vector<std::string>> MetricNames(int64_t start_ms, int64_t end_ms);

  const std::string& url() const { return http_->url(); }
  uint64_t requests() const { return http_->requests(); }
  uint64_t bytes_received() const { return http_->bytes_received(); }

 private:
  std::unique_ptr<PrometheusHttp> http_;
  int64_t server_timeout_s_ = 0;
};

}  // namespace kubeon::metrics
