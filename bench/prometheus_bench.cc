// Peaks from a real Prometheus: ReadPrometheusHistory (a handful of
// server-side PromQL reductions for the whole cluster) against the naive
// client that lists the pods and downloads every pod's samples with
// query_range, reducing them itself.
//
//   KUBEON_PROMETHEUS_URL=http://127.0.0.1:9090 KUBEON_PROMETHEUS_END=<unix s of the
//   last sample> KUBEON_PROMETHEUS_LOOKBACK_S=172800 KUBEON_PROMETHEUS_SCRAPE_S=30 prometheus_bench
//
// Without KUBEON_PROMETHEUS_URL both benchmarks are skipped (they need a
// server holding data; bench/prometheus_vs_naive.sh backfills one with
// gen-history + promtool, starts it and runs this).  Each runs once
// (seconds are wall time); counters: queries (HTTP requests), MB received,
// pods, and for the naive client the pods whose peak memory differs from
// the server's (expected 0: both read the same samples).
//
// The naive client: GET /api/v1/series for DCGM_FI_DEV_FB_USED over the
// window, the distinct pods (namespace/pod or exported_*), then for every
// pod and each of FB_USED, GR_ENGINE_ACTIVE and GPU_UTIL a query_range at
// the scrape interval, in requests of at most 11,000 points (Prometheus'
// per-series limit), reducing the values to max / histogram client-side.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "metrics/history.h"
#include "metrics/prometheus_history.h"
#include "metrics/prometheus_http.h"

namespace {

using kubeon::metrics::ComputeHistogram;
using kubeon::metrics::History;
using kubeon::metrics::PodKey;
using kubeon::metrics::PrometheusHttp;
using kubeon::metrics::PrometheusHttpOptions;

struct Setup {
  std::string url;
  int64_t end_s = 0;
  int64_t lookback_s = 0;
  int64_t scrape_s = 30;
};

bool GetSetup(Setup* s) {
  const char* url = std::getenv("KUBEON_PROMETHEUS_URL");
  const char* end = std::getenv("KUBEON_PROMETHEUS_END");
  if (url == nullptr || *url == '\0' || end == nullptr) return false;
  s->url = url;
  s->end_s = std::atoll(end);
  const char* lookback = std::getenv("KUBEON_PROMETHEUS_LOOKBACK_S");
  s->lookback_s = lookback != nullptr ? std::atoll(lookback) : 14 * 86400;
  const char* scrape = std::getenv("KUBEON_PROMETHEUS_SCRAPE_S");
  if (scrape != nullptr) s->scrape_s = std::atoll(scrape);
  return true;
}

// The server's History, kept for the naive benchmark's cross-check.
History& ServerHistory() {
  static History h;
  return h;
}

void BM_PrometheusServerSidePeaks(benchmark::State& state) {
  Setup s;
  if (!GetSetup(&s)) {
    state.SkipWithError("KUBEON_PROMETHEUS_URL / KUBEON_PROMETHEUS_END not set (see bench/prometheus_vs_naive.sh)");
    return;
  }
  kubeon::metrics::PrometheusReadStats stats;
  for (auto _ : state) {
    kubeon::metrics::PrometheusOptions o;
    o.url = s.url;
    o.end_unix_ms = s.end_s * 1000;
    o.lookback = std::chrono::seconds(s.lookback_s);
    o.timeout = std::chrono::seconds(600);
    auto h = kubeon::metrics::ReadPrometheusHistory(
        o, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }, &stats);
    if (!h.ok()) {
      state.SkipWithError(h.status().message().c_str());
      return;
    }
    ServerHistory() = std::move(h).value();
  }
  state.counters["queries"] = static_cast<double>(stats.queries);
  state.counters["refused"] = static_cast<double>(stats.refused_queries);
  state.counters["MB"] = static_cast<double>(stats.bytes_received) / 1e6;
  state.counters["pods"] = static_cast<double>(ServerHistory().pods.size());
  state.counters["samples"] = static_cast<double>(ServerHistory().stats.samples);
}

struct NaivePod {
  double max_memory = -1;
  ComputeHistogram gr, util;
  uint64_t samples = 0;
};

// Values of one query_range answer (all series), or false.
bool RangeValues(const std::string& body, std::vector<double>* values) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object() || doc.value("status", "") != "success") return false;
  for (const auto& series : doc["data"]["result"]) {
    for (const auto& point : series["values"]) values->push_back(std::strtod(point[1].get_ref<const std::string&>().c_str(), nullptr));
  }
  return true;
}

std::string Quote(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void BM_NaivePerPodQueryRange(benchmark::State& state) {
  Setup s;
  if (!GetSetup(&s)) {
    state.SkipWithError("KUBEON_PROMETHEUS_URL / KUBEON_PROMETHEUS_END not set (see bench/prometheus_vs_naive.sh)");
    return;
  }
  PrometheusHttpOptions ho;
  ho.url = s.url;
  ho.timeout = std::chrono::seconds(600);
  ho.max_response_bytes = size_t{4} << 30;
  std::map<PodKey, NaivePod> pods;
  uint64_t requests = 0, bytes = 0;
  for (auto _ : state) {
    auto http = PrometheusHttp::Create(ho);
    if (!http.ok()) {
      state.SkipWithError(http.status().message().c_str());
      return;
    }
    const int64_t start = s.end_s - s.lookback_s + 1;
    auto listed = (*http)->Get("/api/v1/series", {{"match[]", kubeon::metrics::kFbUsedMetric},
                                                  {"start", std::to_string(start)},
                                                  {"end", std::to_string(s.end_s)}});
    if (!listed.ok || listed.status != 200) {
      state.SkipWithError(("series listing failed: " + listed.error).c_str());
      return;
    }
    // Pod -> the selector naming it.
    std::map<PodKey, std::string> selectors;
    nlohmann::json doc = nlohmann::json::parse(listed.body, nullptr, false);
    for (const auto& labels : doc["data"]) {
      auto get = [&](const char* k) { return labels.contains(k) ? labels[k].get<std::string>() : std::string(); };
      if (!get("exported_pod").empty()) {
        selectors[{get("exported_namespace"), get("exported_pod")}] =
            "exported_namespace=" + Quote(get("exported_namespace")) + ",exported_pod=" + Quote(get("exported_pod"));
      } else if (!get("pod").empty()) {
        selectors[{get("namespace"), get("pod")}] =
            "namespace=" + Quote(get("namespace")) + ",pod=" + Quote(get("pod")) + ",exported_pod=\"\"";
      }
    }
    const int64_t max_span = 11000 * s.scrape_s;  // points per series per request
    for (const auto& [key, selector] : selectors) {
      NaivePod& pod = pods[key];
      for (const char* metric : {kubeon::metrics::kFbUsedMetric, kubeon::metrics::kGrEngineActiveMetric,
                                 kubeon::metrics::kGpuUtilMetric}) {
        for (int64_t from = start; from <= s.end_s; from += max_span) {
          int64_t to = std::min(s.end_s, from + max_span - s.scrape_s);
          auto r = (*http)->PostForm("/api/v1/query_range",
                                     {{"query", std::string(metric) + "{" + selector + "}"},
                                      {"start", std::to_string(from)},
                                      {"end", std::to_string(to)},
                                      {"step", std::to_string(s.scrape_s)}});
          std::vector<double> values;
          if (!r.ok || r.status != 200 || !RangeValues(r.body, &values)) {
            state.SkipWithError(("query_range failed: " + (r.ok ? r.body.substr(0, 200) : r.error)).c_str());
            return;
          }
          pod.samples += values.size();
          for (double v : values) {
            if (metric == std::string(kubeon::metrics::kFbUsedMetric)) {
              pod.max_memory = std::max(pod.max_memory, v);
            } else if (metric == std::string(kubeon::metrics::kGrEngineActiveMetric)) {
              pod.gr.Add(std::max(0.0, v));
            } else {
              pod.util.Add(std::max(0.0, v / 100));
            }
          }
        }
      }
    }
    requests = (*http)->requests();
    bytes = (*http)->bytes_received();
  }
  uint64_t differ = 0;
  for (const auto& [key, pod] : pods) {
    auto it = ServerHistory().pods.find(key);
    if (it == ServerHistory().pods.end() ||
        it->second.peak_memory_mib != static_cast<int64_t>(std::ceil(pod.max_memory))) {
      ++differ;
    }
  }
  state.counters["queries"] = static_cast<double>(requests);
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["pods"] = static_cast<double>(pods.size());
  state.counters["peak_mismatch"] = ServerHistory().pods.empty() ? -1.0 : static_cast<double>(differ);
}

BENCHMARK(BM_PrometheusServerSidePeaks)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_NaivePerPodQueryRange)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
