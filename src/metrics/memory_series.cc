// See memory_series.h.
#include "metrics/memory_series.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "metrics/json_depth.h"
#include "metrics/message_text.h"
#include "metrics/promql.h"

namespace kubeon::metrics {

Result<std::vector<MemoryPoint>> ReadMemorySamples(const std::vector<std::string>& files,
                                                   const std::set<PodKey>& pods, IngestOptions options) {
  std::map<int64_t, double> by_time;  // max over pods
  options.threads = 1;  // the callback below is not thread-safe: one reader
  options.on_memory_sample = [&](const PodKey& pod, int64_t ts_ms, double mib) {
    if (!pods.count(pod)) return;
    auto [it, inserted] = by_time.try_emplace(ts_ms, mib);
    if (!inserted && mib > it->second) it->second = mib;
  };
  for (const auto& f : files) {
    Result<History> h = ReadHistoryFile(f, options);
    if (!h.ok()) return h.status();
  }
  std::vector<MemoryPoint> out;
  out.reserve(by_time.size());
  for (const auto& [t, v] : by_time) out.push_back({t, v});
  return out;
}

std::vector<MemoryPoint> DownsampleMax(const std::vector<MemoryPoint>& series, int max_points) {
  if (max_points < 1) max_points = 1;
  if (series.size() <= static_cast<size_t>(max_points)) return series;
  const int64_t t0 = series.front().unix_ms;
  const int64_t span = series.back().unix_ms - t0 + 1;
  std::vector<MemoryPoint> out;
  out.reserve(static_cast<size_t>(max_points));
  int64_t bucket = -1;
  for (const auto& p : series) {
    // Bucket index in [0, max_points): (t - t0) * n / span (long double: no overflow).
    const int64_t b = std::min<int64_t>(
        max_points - 1, static_cast<int64_t>(static_cast<long double>(p.unix_ms - t0) * max_points / span));
    if (b != bucket) {
      out.push_back(p);
      bucket = b;
    } else if (p.mib > out.back().mib) {
      out.back() = p;
    }
  }
  return out;
}

std::string MemorySeriesPromql(const MemoryQuery& q, int64_t step_ms) {
  std::string re;
  for (const auto& p : q.pods) {
    if (!re.empty()) re += "|";
    for (char c : p) re += c == '.' ? std::string("\\\\.") : std::string(1, c);
  }
  const std::string extra = q.selector.empty() ? "" : q.selector + ",";
  return promql::MaxOverTime(kFbUsedMetric, extra + "namespace=\"" + q.namespace_ + "\",pod=~\"" + re + "\"", step_ms) +
         " or " +
         promql::MaxOverTime(kFbUsedMetric,
                             extra + "exported_namespace=\"" + q.namespace_ + "\",exported_pod=~\"" + re + "\"",
                             step_ms);
}

Result<std::vector<MemoryPoint>> QueryMemorySeries(PrometheusHttp& http, const MemoryQuery& q, int max_points) {
  using nlohmann::json;
  auto dns = [](const std::string& s) {
    return !s.empty() && s.size() <= 253 && std::all_of(s.begin(), s.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    });
  };
  if (!dns(q.namespace_) || q.pods.empty() || !std::all_of(q.pods.begin(), q.pods.end(), dns)) {
    return Status::Error("memory series: namespace and pods must be DNS names");
  }
  if (q.end_ms <= q.start_ms || max_points < 1) return Status::Error("memory series: empty time range");
  const int64_t step_ms = std::max<int64_t>(1000, (q.end_ms - q.start_ms + max_points - 1) / max_points);
  const std::string what = "memory of " + q.namespace_ + " pods over query_range";
  HttpExchange ex = http.PostForm("/api/v1/query_range", {{"query", MemorySeriesPromql(q, step_ms)},
                                                          {"start", promql::UnixSeconds(q.start_ms)},
                                                          {"end", promql::UnixSeconds(q.end_ms)},
                                                          {"step", promql::Duration(step_ms)}});
  if (!ex.ok) return Status::Error(what + ": " + ex.error);
  if (NestedBeyondCap(ex.body)) {
    return Status::Error(http.url() + " answered " + what + " with JSON nested more than " +
                         std::to_string(kMaxJsonDepth) + " levels deep");
  }
  json body = json::parse(ex.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    return Status::Error(http.url() + " answered " + what + " with HTTP " + std::to_string(ex.status) + " and no JSON");
  }
  if (!body.contains("status") || body["status"] != "success") {
    const bool has_error = body.contains("error") && body["error"].is_string();
    return Status::Error(http.url() + " refused " + what + " (HTTP " + std::to_string(ex.status) + "): " +
                         (has_error ? MessageText(body["error"].get_ref<const std::string&>(), 200, ' ')
                                    : std::string("no error message")));
  }
  const json* data = body.contains("data") ? &body["data"] : nullptr;
  if (data == nullptr || !data->is_object() || !data->contains("resultType") || (*data)["resultType"] != "matrix" ||
      !data->contains("result") || !(*data)["result"].is_array()) {
    return Status::Error(http.url() + " answered " + what + " without a matrix");
  }
  const std::set<std::string> pods(q.pods.begin(), q.pods.end());
  std::map<int64_t, double> by_time;
  auto text = [](const json& m, const char* name) {
    auto it = m.find(name);
    return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  for (const auto& series : (*data)["result"]) {
    if (!series.is_object() || !series.contains("metric") || !series["metric"].is_object() ||
        !series.contains("values") || !series["values"].is_array()) {
      continue;  // not a series of a matrix
    }
    const json& m = series["metric"];
    const bool exported = m.contains("exported_pod");
    const std::string ns = text(m, exported ? "exported_namespace" : "namespace");
    const std::string pod = text(m, exported ? "exported_pod" : "pod");
    if (ns != q.namespace_ || !pods.count(pod)) continue;
    for (const auto& v : series["values"]) {
      if (!v.is_array() || v.size() != 2 || !v[0].is_number() || !v[1].is_string()) continue;
      double mib = 0;
      try {
        mib = std::stod(v[1].get<std::string>());
      } catch (...) {
        continue;
      }
      if (!(mib >= 0) || mib > 1e12) continue;  // NaN, negative: not used (as the file readers)
      const double secs = v[0].get<double>();
      if (!(secs >= 0 && secs < 4e10)) continue;  // not a time (llround would overflow)
      const auto t = static_cast<int64_t>(std::llround(secs * 1000));
      auto [it, inserted] = by_time.try_emplace(t, mib);
      if (!inserted && mib > it->second) it->second = mib;
    }
  }
  std::vector<MemoryPoint> out;
  for (const auto& [t, v] : by_time) out.push_back({t, v});
  return DownsampleMax(out, max_points);
}

}  // namespace kubeon::metrics
