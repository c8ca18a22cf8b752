// See prometheus_client.h for the contract.
#include "metrics/prometheus_client.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "metrics/json_depth.h"
#include "metrics/message_text.h"
#include "metrics/promql.h"
#include "metrics/sample_parse.h"

namespace kubeon::metrics {
namespace {

using nlohmann::json;

constexpr size_t kMaxExcerpt = 200;

// One line of valid UTF-8 showing at most kMaxExcerpt bytes of `text`
// (message_text.h).
std::string Excerpt(std::string_view text) {
  std::string out = MessageText(text, kMaxExcerpt, ' ');
  size_t end = out.size();
  const bool cut = out.size() >= 3 && out.compare(out.size() - 3, 3, "...") == 0 && text.size() > kMaxExcerpt;
  if (cut) end -= 3;
  while (end > 0 && out[end - 1] == ' ') --end;
  return out.substr(0, end) + (cut ? "..." : "");
}

bool Contains(std::string_view text, std::string_view word) { return text.find(word) != std::string_view::npos; }

std::string StatusText(int status) {
  switch (status) {
    case 400: return "400 Bad Request";
    case 401: return "401 Unauthorized";
    case 403: return "403 Forbidden";
    case 404: return "404 Not Found";
    case 405: return "405 Method Not Allowed";
    case 422: return "422 Unprocessable Entity";
    case 429: return "429 Too Many Requests";
    case 500: return "500 Internal Server Error";
    case 502: return "502 Bad Gateway";
    case 503: return "503 Service Unavailable";
    case 504: return "504 Gateway Timeout";
    default: return std::to_string(status);
  }
}

QueryOutcome Failure(QueryErrorKind kind, std::string message) {
  QueryOutcome out;
  out.error_kind = kind;
  out.error = std::move(message);
  return out;
}

QueryErrorKind FromHttp(HttpErrorKind kind) {
  switch (kind) {
    case HttpErrorKind::kUnreachable: return QueryErrorKind::kUnreachable;
    case HttpErrorKind::kTimeout: return QueryErrorKind::kTimeout;
    case HttpErrorKind::kTooLarge: return QueryErrorKind::kTooLarge;
    case HttpErrorKind::kTls:
    case HttpErrorKind::kOther: break;
  }
  return QueryErrorKind::kServer;
}

// The server's own explanation of a non-2xx answer.
std::string ServerWords(std::string_view body, std::string* error_type, std::string* error) {
  json doc;
  if (!NestedBeyondCap(body)) doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_string()) {
    *error = doc["error"].get<std::string>();
    if (doc.contains("errorType") && doc["errorType"].is_string()) *error_type = doc["errorType"].get<std::string>();
    return (error_type->empty() ? "" : *error_type + ": ") + Excerpt(*error);
  }
  *error = std::string(body.substr(0, kMaxExcerpt));
  std::string text = Excerpt(body);
  return text.empty() ? "(empty body)" : text;
}

bool ParseValue(const json& v, double* out) {
  if (!v.is_array() || v.size() != 2 || !v[1].is_string()) return false;
  const std::string& text = v[1].get_ref<const std::string&>();
  return internal::ParseSampleValue(text, out);
}

}  // namespace

bool IsLimitMessage(std::string_view error_type, std::string_view error) {
  if (error_type == "timeout") return true;
  static constexpr std::string_view kWords[] = {
      "too many samples",         // Prometheus / Thanos --query.max-samples
      "query timed out",          // Prometheus --query.timeout
      "exceeded the maximum",     // Mimir/Cortex limits (chunks, series, bytes)
      "exceeded maximum",         // "exceeded maximum resolution"
      "exceeds the limit",        // Mimir max query length / lookback
      "limit exceeded",           // Thanos store limits
      "would fetch too many",     // Mimir
  };
  for (std::string_view w : kWords) {
    if (Contains(error, w)) return true;
  }
  return false;
}

QueryOutcome ParseQueryAnswer(int http_status, std::string_view body, const std::string& url,
                              const std::string& what) {
  const std::string at = "Prometheus at " + url;
  if (http_status < 200 || http_status >= 300) {
    std::string error_type, error;
    std::string words = ServerWords(body, &error_type, &error);
    std::string message = at + " failed " + what + ": HTTP " + StatusText(http_status) + ": " + words;
    if (IsLimitMessage(error_type, error)) return Failure(QueryErrorKind::kLimit, message);
    if (http_status == 401 || http_status == 403) {
      return Failure(QueryErrorKind::kRejected,
                     message + " (check the bearer token file and the extra headers)");
    }
    if (http_status == 404 || http_status == 405) {
      return Failure(QueryErrorKind::kRejected,
                     message + " (is " + url + " the base URL of a Prometheus API serving /api/v1/query?)");
    }
    return Failure(http_status < 500 ? QueryErrorKind::kRejected : QueryErrorKind::kServer, message);
  }
  if (NestedBeyondCap(body)) {
    return Failure(QueryErrorKind::kServer, at + " answered " + what + " with JSON nested more than " +
                                                std::to_string(kMaxJsonDepth) + " levels deep (a Prometheus answer "
                                                "nests 5)");
  }
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Failure(QueryErrorKind::kServer, at + " answered " + what + " with something that is not JSON: " +
                                                (body.empty() ? "(empty body)" : Excerpt(body)) +
                                                " (is " + url + " a Prometheus API?)");
  }
  if (!doc.contains("status") || doc["status"] != "success") {
    std::string error_type, error;
    std::string words = ServerWords(body, &error_type, &error);
    return Failure(IsLimitMessage(error_type, error) ? QueryErrorKind::kLimit : QueryErrorKind::kServer,
                   at + " failed " + what + ": " + words);
  }
  const json* data = doc.contains("data") ? &doc["data"] : nullptr;
  if (data == nullptr || !data->is_object() || !data->contains("resultType") || !data->contains("result") ||
      !(*data)["result"].is_array()) {
    return Failure(QueryErrorKind::kServer, at + " answered " + what + " without data.resultType/data.result");
  }
  if ((*data)["resultType"] != "vector") {
    return Failure(QueryErrorKind::kServer, at + " answered " + what + " with a result of type " +
                                                (*data)["resultType"].dump() + ", expected vector");
  }
  QueryOutcome out;
  out.ok = true;
  const json& result = (*data)["result"];
  out.samples.reserve(result.size());
  for (const json& element : result) {
    PromSample sample;
    bool good = element.is_object() && element.contains("metric") && element["metric"].is_object() &&
                element.contains("value") && ParseValue(element["value"], &sample.value);
    if (!good) {
      return Failure(QueryErrorKind::kServer,
                     at + " answered " + what + " with a malformed element: " + Excerpt(element.dump()));
    }
    for (const auto& [name, value] : element["metric"].items()) {
      if (value.is_string()) sample.labels.emplace(name, value.get<std::string>());
    }
    out.samples.push_back(std::move(sample));
  }
  if (doc.contains("warnings") && doc["warnings"].is_array()) {
    for (const json& w : doc["warnings"]) {
      if (w.is_string()) out.warnings.push_back(MessageText(w.get_ref<const std::string&>(), kMaxExcerpt, ' '));
    }
  }
  return out;
}

PrometheusClient::PrometheusClient(std::unique_ptr<PrometheusHttp> http) : http_(std::move(http)) {
  server_timeout_s_ = std::max<int64_t>(1, http_->timeout().count() / 1000 - 1);
}

QueryOutcome PrometheusClient::Query(const std::string& promql, int64_t time_ms, const std::string& what) {
  HttpExchange ex = http_->PostForm("/api/v1/query", {{"query", promql},
                                                       {"time", promql::UnixSeconds(time_ms)},
                                                       {"timeout", std::to_string(server_timeout_s_) + "s"}});
  if (!ex.ok) return Failure(FromHttp(ex.error_kind), ex.error + " (" + what + ")");
  return ParseQueryAnswer(ex.status, ex.body, http_->url(), what);
}

Result<std::vector<std::string>> PrometheusClient::MetricNames(int64_t start_ms, int64_t end_ms) {
  HttpExchange ex = http_->Get("/api/v1/label/__name__/values",
                               {{"start", promql::UnixSeconds(start_ms)}, {"end", promql::UnixSeconds(end_ms)}});
  if (!ex.ok) return Status::Error(ex.error);
  json doc;
  if (!NestedBeyondCap(ex.body)) {
    doc = json::parse(ex.body, nullptr, /*allow_exceptions=*/false);
  }
  if (ex.status < 200 || ex.status >= 300 || !doc.is_object() || !doc.contains("status") || doc["status"] != "success" ||
      !doc.contains("data") || !doc["data"].is_array()) {
    return Status::Error("Prometheus at " + http_->url() + " did not list metric names: HTTP " +
                         std::to_string(ex.status) + ": " + Excerpt(ex.body));
  }
  std::vector<std::string> names;
  for (const json& n : doc["data"]) {
    if (n.is_string()) names.push_back(n.get<std::string>());
  }
  return names;
}

}  // namespace kubeon::metrics
