// ReadPrometheusHistory against a REAL Prometheus (Debian's /usr/bin/prometheus
// 2.42): a deterministic generated dcgm-exporter history is written as
// OpenMetrics, backfilled with `promtool tsdb create-blocks-from openmetrics`,
// served by `prometheus` on 127.0.0.1 (free port, no scrape targets,
// 10-year retention), and read both from the server and with
// ReadHistoryFile from the same file.  Checked:
//   * per pod: identical peak memory, sample count, devices, MIG profile and
//     "last seen" labels; the same span (last sample exact, first within one
//     step); the server's compute quantile equal to Prometheus'
//     quantile_over_time formula on the generated values, and within one
//     histogram bin (1/400) plus the gap between the two samples around
//     rank q*(n-1) of the file reader's value (the documented tolerance:
//     Prometheus interpolates, the histogram reports a bin's upper edge);
//   * the planner (plan::MakePlan on testdata/small/cluster.json plus a few
//     more workloads, testdata/small/policy.yaml) makes identical decisions
//     and slices from both Histories;
//   * forced 1-day chunks and a server whose --query.max-samples refuses the
//     whole-lookback subqueries give the same memory, counts and spans, and
//     compute never below the one-window value;
//   * no DCGM series (wrong selector, empty window) is a clear error.
// The generated history covers: several pods, `Hostname` and `hostname`,
// exported_* labels beside the dcgm-exporter pod's own, a MIG slice series
// (GPU_I_PROFILE/GPU_I_ID) of a pod deleted since, a pod with only 10h of
// history, a pod with GPU_UTIL only, an idle GPU (no pod labels), the
// exporter's own idle-GPU series, an ignored metric (FB_FREE), and series
// whose scrapes are not aligned to the minute.
// Every Prometheus is killed by an RAII guard; every wait has a deadline.
#include "metrics/prometheus_history.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "metrics/history.h"
#include "metrics/prometheus_process.h"
#include "mig/catalog.h"
#include "model/snapshot_json.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace kubeon::metrics {
namespace {

using namespace testing_support;  // NOLINT: test helpers


constexpr double kQ = 0.99;

// ---------------------------------------------------------------- history

uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// One generated series: `n` samples every `interval` s from `start`, values
// uniform in [lo, hi] rounded to `decimals`.
struct GenSeries {
  std::string metric;
  std::string labels;  // OpenMetrics label block content
  std::optional<PodKey> pod;
  int64_t start_s = 0;
  int64_t n = 0;
  int64_t interval_s = 60;
  double lo = 0, hi = 0;
  int decimals = 1;
  uint64_t seed = 0;
  int64_t nan_every = 0;  // > 0: every nan_every-th sample is NaN
  std::vector<std::string> texts;  // value texts as written
  std::vector<double> values;      // the same, parsed
};

struct Expected {
  double max_memory = -1;
  uint64_t samples = 0;
  uint64_t bad = 0;  // NaN samples (refused by both paths)
  int64_t first_ms = INT64_MAX, last_ms = INT64_MIN;
  std::vector<std::vector<double>> gr, util;  // per series
};

struct Generated {
  std::string text;
  std::map<PodKey, Expected> pods;
  int64_t first_s = INT64_MAX, last_s = INT64_MIN;
  uint64_t unattributed = 0;
  uint64_t bad = 0;
};

constexpr int64_t kStart = 1793527200;  // 2026-11-01T10:00:00Z
constexpr int64_t kDay = 86400;
constexpr const char* kModel = "NVIDIA A100-SXM4-40GB";

Generated Generate() {
  const std::string fb = kFbUsedMetric, gr = kGrEngineActiveMetric, util = kGpuUtilMetric, fb_free = kFbFreeMetric;
  const int64_t n3d = 3 * kDay / 60;
  std::vector<GenSeries> series;
  uint64_t seed = 1;
  auto add = [&](const std::string& metric, const std::string& labels, std::optional<PodKey> pod, int64_t start,
                 int64_t n, double lo, double hi, int decimals) {
    GenSeries s;
    s.metric = metric;
    s.labels = labels;
    s.pod = std::move(pod);
    s.start_s = start;
    s.n = n;
    s.lo = lo;
    s.hi = hi;
    s.decimals = decimals;
    s.seed = seed++;
    series.push_back(std::move(s));
  };
  auto device = [](const std::string& host_label, const std::string& host, int gpu, const std::string& uuid) {
    return "gpu=\"" + std::to_string(gpu) + "\",UUID=\"" + uuid + "\",device=\"nvidia" + std::to_string(gpu) +
           "\",modelName=\"" + kModel + "\"," + host_label + "=\"" + host + "\"";
  };
  // prod/embed-7f9c-p0: plain labels; Hostname on FB_USED, hostname on the others.
  {
    PodKey k{"prod", "embed-7f9c-p0"};
    std::string pod = ",container=\"main\",namespace=\"prod\",pod=\"embed-7f9c-p0\"";
    add(fb, device("Hostname", "a100-1", 0, "GPU-a1-0") + pod, k, kStart, n3d, 2000, 3000, 1);
    add(fb_free, device("Hostname", "a100-1", 0, "GPU-a1-0") + pod, k, kStart, n3d, 30000, 38000, 0);
    add(gr, device("hostname", "a100-1", 0, "GPU-a1-0") + pod, k, kStart, n3d, 0.01, 0.06, 4);
    add(util, device("hostname", "a100-1", 0, "GPU-a1-0") + pod, k, kStart, n3d, 3, 20, 0);
  }
  // prod/embed-7f9c-p1 behind a ServiceMonitor: exported_* name the workload,
  // namespace/pod the exporter; scrapes 17 s past the minute.
  {
    PodKey k{"prod", "embed-7f9c-p1"};
    std::string pod =
        ",container=\"nvidia-dcgm-exporter\",namespace=\"gpu-operator\",pod=\"nvidia-dcgm-exporter-7xk2p\","
        "exported_container=\"main\",exported_namespace=\"prod\",exported_pod=\"embed-7f9c-p1\"";
    add(fb, device("Hostname", "a100-2", 0, "GPU-a2-0") + pod, k, kStart + 17, n3d, 2500, 3500, 1);
    add(gr, device("Hostname", "a100-2", 0, "GPU-a2-0") + pod, k, kStart + 17, n3d, 0.02, 0.07, 4);
    add(util, device("Hostname", "a100-2", 0, "GPU-a2-0") + pod, k, kStart + 17, n3d, 5, 25, 0);
  }
  // prod/embed-7f9c-old9: a replica deleted after 1.5 days, on a MIG 1g.5gb slice.
  {
    PodKey k{"prod", "embed-7f9c-old9"};
    std::string labels = device("Hostname", "a100-1", 3, "GPU-a1-3") +
                         ",GPU_I_PROFILE=\"1g.5gb\",GPU_I_ID=\"13\",container=\"main\",namespace=\"prod\","
                         "pod=\"embed-7f9c-old9\"";
    add(fb, labels, k, kStart + 5, n3d / 2, 2200, 3600, 1);
    add(gr, labels, k, kStart + 5, n3d / 2, 0.03, 0.08, 4);
  }
  // prod/rank-7f9c-p0: only the last 10 hours.
  {
    PodKey k{"prod", "rank-7f9c-p0"};
    std::string labels = device("Hostname", "a100-2", 1, "GPU-a2-1") +
                         ",container=\"main\",namespace=\"prod\",pod=\"rank-7f9c-p0\"";
    int64_t start = kStart + (n3d - 600) * 60;
    add(fb, labels, k, start, 600, 1000, 2000, 1);
    add(gr, labels, k, start, 600, 0.01, 0.05, 4);
    add(util, labels, k, start, 600, 1, 10, 0);
  }
  // ml-dev/notebook-6c7d-x1: no GR_ENGINE_ACTIVE (GPU_UTIL fallback); 42 s past the minute.
  {
    PodKey k{"ml-dev", "notebook-6c7d-x1"};
    std::string labels = device("hostname", "a100-1", 1, "GPU-a1-1") +
                         ",container=\"jupyter\",namespace=\"ml-dev\",pod=\"notebook-6c7d-x1\"";
    add(fb, labels, k, kStart + 42, n3d, 4000, 7000, 1);
    add(util, labels, k, kStart + 42, n3d, 2, 25, 0);
    PodKey k2{"ml-dev", "notebook-6c7d-x2"};
    std::string labels2 = device("hostname", "a100-2", 3, "GPU-a2-3b") +
                          ",container=\"jupyter\",namespace=\"ml-dev\",pod=\"notebook-6c7d-x2\"";
    add(fb, labels2, k2, kStart + 42, n3d, 3000, 6000, 1);
    add(util, labels2, k2, kStart + 42, n3d, 1, 20, 0);
  }
  // prod/trainer-0: busy.
  {
    PodKey k{"prod", "trainer-0"};
    std::string labels = device("Hostname", "a100-2", 2, "GPU-a2-2") +
                         ",container=\"train\",namespace=\"prod\",pod=\"trainer-0\"";
    add(fb, labels, k, kStart, n3d, 30000, 36000, 1);
    // Issue 14: NaN samples, which the file path refuses, gave the Prometheus
    // path a different decision.  Both now say "unparseable samples".
    series.back().nan_every = 500;
    add(gr, labels, k, kStart, n3d, 0.6, 0.97, 4);
    add(util, labels, k, kStart, n3d, 60, 99, 0);
  }
  // An idle GPU (no pod labels) and the exporter's own series for another.
  add(fb, device("Hostname", "a100-2", 3, "GPU-a2-3"), std::nullopt, kStart, n3d, 0, 5, 0);
  add(gr, device("Hostname", "a100-2", 3, "GPU-a2-3"), std::nullopt, kStart, n3d, 0, 0.001, 4);
  {
    PodKey k{"gpu-operator", "nvidia-dcgm-exporter-7xk2p"};
    std::string labels = device("Hostname", "a100-1", 2, "GPU-a1-2") +
                         ",container=\"nvidia-dcgm-exporter\",namespace=\"gpu-operator\","
                         "pod=\"nvidia-dcgm-exporter-7xk2p\"";
    add(fb, labels, k, kStart, n3d, 0, 3, 0);
    add(util, labels, k, kStart, n3d, 0, 1, 0);
  }

  Generated g;
  std::string& out = g.text;
  out.reserve(size_t{24} << 20);
  for (const std::string& metric : {fb, fb_free, gr, util}) {
    out += "# HELP " + metric + " generated\n# TYPE " + metric + " gauge\n";
    for (GenSeries& s : series) {
      if (s.metric != metric) continue;
      const bool used = metric != fb_free;
      Expected* e = s.pod && used ? &g.pods[*s.pod] : nullptr;
      std::vector<double>* quantile_values = nullptr;
      if (e != nullptr && metric == gr) quantile_values = &e->gr.emplace_back();
      if (e != nullptr && metric == util) quantile_values = &e->util.emplace_back();
      for (int64_t i = 0; i < s.n; ++i) {
        double u = static_cast<double>(SplitMix(s.seed * 1000003 + static_cast<uint64_t>(i)) >> 11) / 9007199254740992.0;
        char value[64];
        std::snprintf(value, sizeof(value), "%.*f", s.decimals, s.lo + (s.hi - s.lo) * u);
        double v = std::strtod(value, nullptr);
        int64_t ts = s.start_s + i * s.interval_s;
        if (s.nan_every > 0 && i % s.nan_every == s.nan_every - 1) {
          out += metric + "{" + s.labels + "} NaN " + std::to_string(ts) + "\n";
          if (used && e != nullptr) {
            ++e->bad;
            ++g.bad;
          }
          continue;
        }
        out += metric + "{" + s.labels + "} " + value + " " + std::to_string(ts) + "\n";
        g.first_s = std::min(g.first_s, ts);
        g.last_s = std::max(g.last_s, ts);
        if (!used) continue;
        if (e == nullptr) {
          ++g.unattributed;
          continue;
        }
        ++e->samples;
        e->first_ms = std::min(e->first_ms, ts * 1000);
        e->last_ms = std::max(e->last_ms, ts * 1000);
        if (metric == fb) e->max_memory = std::max(e->max_memory, v);
        if (quantile_values != nullptr) quantile_values->push_back(v);
      }
    }
  }
  out += "# EOF\n";
  return g;
}

// Prometheus' quantile_over_time of one series (promql/functions.go).
double PromQuantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  double rank = q * static_cast<double>(v.size() - 1);
  double lower = std::max(0.0, std::floor(rank));
  double upper = std::min(static_cast<double>(v.size() - 1), lower + 1);
  double weight = rank - std::floor(rank);
  return v[static_cast<size_t>(lower)] * (1 - weight) + v[static_cast<size_t>(upper)] * weight;
}

// The documented bound between the file reader's and the server's compute
// value for one series: one bin plus the gap between the samples around
// rank q*(n-1).
double Tolerance(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  size_t lower = static_cast<size_t>(std::floor(q * static_cast<double>(v.size() - 1)));
  size_t upper = std::min(v.size() - 1, lower + 1);
  size_t file_rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  double hi = v[std::max(upper, file_rank)];
  return ComputeHistogram::kBinWidth + (hi - v[lower]) + 1e-12;
}

// ---------------------------------------------------------------- fixture

// Cluster: testdata/small/cluster.json plus the workloads of the generated
// history that it lacks.
std::string ClusterJson() {
  nlohmann::json doc = nlohmann::json::parse(ReadFile(std::string(KUBEON_SOURCE_DIR) + "/testdata/small/cluster.json"));
  auto pod = [](const std::string& ns, const std::string& name, const std::string& owner_kind,
                const std::string& owner, const std::string& node) {
    return nlohmann::json{
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata",
         {{"name", name},
          {"namespace", ns},
          {"ownerReferences",
           {{{"apiVersion", "apps/v1"}, {"kind", owner_kind}, {"name", owner}, {"controller", true}}}}}},
        {"spec",
         {{"nodeName", node}, {"containers", {{{"name", "main"}, {"resources", {{"limits", {{"nvidia.com/gpu", "1"}}}}}}}}}},
        {"status", {{"phase", "Running"}}}};
  };
  auto& items = doc["items"];
  // A one-GPU node with nothing on it: where the two notebook pods can share a GPU.
  for (const auto& item : nlohmann::json(items)) {
    if (item["kind"] == "Node" && item["metadata"]["name"] == "a100-2") {
      nlohmann::json node = item;
      node["metadata"]["name"] = "a100-3";
      node["metadata"]["labels"]["nvidia.com/gpu.count"] = "1";
      if (node.contains("status") && node["status"].contains("capacity")) {
        node["status"]["capacity"]["nvidia.com/gpu"] = "1";
        node["status"]["allocatable"]["nvidia.com/gpu"] = "1";
      }
      items.push_back(node);
    }
  }
  items.push_back({{"apiVersion", "apps/v1"},
                   {"kind", "Deployment"},
                   {"metadata", {{"name", "notebook"}, {"namespace", "ml-dev"}, {"uid", "nb-d"}}},
                   {"spec", {{"replicas", 2}}}});
  items.push_back({{"apiVersion", "apps/v1"},
                   {"kind", "ReplicaSet"},
                   {"metadata",
                    {{"name", "notebook-6c7d"},
                     {"namespace", "ml-dev"},
                     {"ownerReferences",
                      {{{"apiVersion", "apps/v1"},
                        {"kind", "Deployment"},
                        {"name", "notebook"},
                        {"uid", "nb-d"},
                        {"controller", true}}}}}},
                   {"spec", {{"replicas", 2}}}});
  items.push_back(pod("ml-dev", "notebook-6c7d-x1", "ReplicaSet", "notebook-6c7d", "a100-1"));
  items.push_back(pod("ml-dev", "notebook-6c7d-x2", "ReplicaSet", "notebook-6c7d", "a100-2"));
  items.push_back({{"apiVersion", "apps/v1"},
                   {"kind", "StatefulSet"},
                   {"metadata", {{"name", "trainer"}, {"namespace", "prod"}, {"uid", "tr-s"}}},
                   {"spec", {{"replicas", 1}}}});
  items.push_back(pod("prod", "trainer-0", "StatefulSet", "trainer", "a100-2"));
  return doc.dump();
}

class PrometheusHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kPrometheus, X_OK) != 0 || ::access(kPromtool, X_OK) != 0) {
      GTEST_SKIP() << kPrometheus << " or " << kPromtool << " is missing (Debian package prometheus)";
    }
    auto t0 = Clock::now();
    gen_ = Generate();
    file_ = dir_.path() + "/history.om";
    std::ofstream(file_, std::ios::binary) << gen_.text;
    Timing("generated " + std::to_string(gen_.text.size() >> 20) + " MiB", t0);
    // promtool fsyncs one block per 2 hours of data (10+ s here), so the
    // blocks are kept in the build directory, keyed by the file's content,
    // for the other test processes; each Prometheus serves a copy.
    std::string error;
    data_ = Backfill(file_, gen_.text, KUBEON_BINARY_DIR, dir_.path(), &error);
    ASSERT_FALSE(data_.empty()) << error;
    Timing("backfilled", t0);
    auto file_history = ReadHistoryFile(file_, IngestOptions{});
    Timing("read the file", t0);
    ASSERT_TRUE(file_history.ok()) << file_history.status().message();
    file_history_ = std::move(file_history).value();
  }

  static void Timing(const std::string& what, Clock::time_point& t0) {
    auto now = Clock::now();
    std::fprintf(stderr, "  %s in %.2f s\n", what.c_str(), std::chrono::duration<double>(now - t0).count());
    t0 = now;
  }

  std::unique_ptr<PrometheusProcess> StartPrometheus(const std::vector<std::string>& flags = {}) {
    std::string data = dir_.path() + "/data-" + std::to_string(++servers_);
    fs::copy(data_, data, fs::copy_options::recursive);
    std::string error;
    auto t0 = Clock::now();
    auto p = PrometheusProcess::Start(data, dir_.path(), flags, &error);
    EXPECT_NE(p, nullptr) << error;
    Timing("started prometheus", t0);
    return p;
  }

  PrometheusOptions Options(const std::string& url) const {
    PrometheusOptions o;
    o.url = url;
    o.end_unix_ms = gen_.last_s * 1000;
    o.lookback = std::chrono::hours(24 * 4);  // covers the 3 generated days
    o.step = std::chrono::seconds(60);
    o.timeout = std::chrono::seconds(60);
    o.compute_percentile = kQ;
    return o;
  }

  History Read(const PrometheusOptions& o, PrometheusReadStats* stats = nullptr) {
    auto h = ReadPrometheusHistory(o, [](const std::string& l) { std::fprintf(stderr, "  %s\n", l.c_str()); }, stats);
    EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.status().message());
    if (!h.ok()) return History{};
    return std::move(h).value();
  }

  TempDir dir_;
  int servers_ = 0;
  Generated gen_;
  std::string file_, data_;
  History file_history_;
};

// Per-pod comparison of the server's History with the file's and with the
// generator's truth.
void ExpectSameUsage(const Generated& gen, const History& file, const History& prom, int64_t step_ms) {
  ASSERT_EQ(prom.pods.size(), file.pods.size());
  ASSERT_EQ(prom.pods.size(), gen.pods.size());
  for (const auto& [key, e] : gen.pods) {
    SCOPED_TRACE(key.namespace_ + "/" + key.pod);
    ASSERT_TRUE(file.pods.count(key));
    ASSERT_TRUE(prom.pods.count(key));
    const PodUsage& f = file.pods.at(key);
    const PodUsage& p = prom.pods.at(key);
    EXPECT_EQ(f.peak_memory_mib, static_cast<int64_t>(std::ceil(e.max_memory)));
    EXPECT_EQ(p.peak_memory_mib, f.peak_memory_mib);
    EXPECT_EQ(f.samples, e.samples);
    EXPECT_EQ(p.samples, f.samples + e.bad);  // count_over_time counts NaN samples too
    EXPECT_EQ(f.bad_samples, e.bad);
    EXPECT_EQ(p.bad_samples > 0, e.bad > 0);  // the same decision: the pod is not sized
    EXPECT_EQ(f.first_ts_ms, e.first_ms);
    EXPECT_EQ(f.last_ts_ms, e.last_ms);
    // The span is never longer than the data's, at most one step shorter at
    // each end, and exact at the end for pods still reporting then.
    EXPECT_GE(p.first_ts_ms, f.first_ts_ms);
    EXPECT_LT(p.first_ts_ms - f.first_ts_ms, step_ms);
    EXPECT_LE(p.last_ts_ms, f.last_ts_ms);
    EXPECT_LT(f.last_ts_ms - p.last_ts_ms, step_ms);
    if (f.last_ts_ms + 5 * 60000 > gen.last_s * 1000) {
      EXPECT_EQ(p.last_ts_ms, f.last_ts_ms);
    }
    EXPECT_EQ(p.mig_profile, f.mig_profile);
    EXPECT_EQ(p.container, f.container);
    EXPECT_EQ(p.hostname, f.hostname);
    EXPECT_EQ(p.gpu_uuid, f.gpu_uuid);
    EXPECT_EQ(p.model_name, f.model_name);
    EXPECT_EQ(p.gpus, f.gpus);
    for (int which = 0; which < 2; ++which) {
      const auto& values = which == 0 ? e.gr : e.util;
      const ComputeHistogram& fh = which == 0 ? f.compute : f.gpu_util;
      const ComputeHistogram& ph = which == 0 ? p.compute : p.gpu_util;
      const double scale = which == 0 ? 1.0 : 100.0;
      SCOPED_TRACE(which == 0 ? "GR_ENGINE_ACTIVE" : "GPU_UTIL");
      if (values.empty()) {
        EXPECT_EQ(fh.count(), 0u);
        EXPECT_EQ(ph.count(), 0u);
        continue;
      }
      ASSERT_EQ(values.size(), 1u);  // one series per pod and metric in this history
      ASSERT_EQ(ph.count(), 1u);
      double server = ph.Quantile(kQ);
      EXPECT_NEAR(server, std::min(1.0, PromQuantile(values[0], kQ) / scale), 1e-9);
      double from_file = fh.Quantile(kQ);
      std::vector<double> ratios = values[0];
      for (double& v : ratios) v /= scale;
      EXPECT_NEAR(server, from_file, Tolerance(ratios, kQ));
    }
  }
  EXPECT_EQ(prom.stats.samples, file.stats.samples + gen.bad);
  EXPECT_EQ(prom.stats.unattributed_lines, file.stats.unattributed_lines);
  EXPECT_EQ(prom.stats.unattributed_lines, gen.unattributed);
  EXPECT_EQ(prom.stats.metrics_seen.count(kFbUsedMetric), 1u);
}

std::string DescribePlan(const plan::Plan& p) {
  std::string out;
  for (const auto& w : p.workloads) {
    out += w.ref.Display() + " " + plan::DecisionName(w.decision) + " " + w.slice + "\n";
  }
  for (const auto& n : p.nodes) {
    out += n.name + " " + n.method + " before=" + std::to_string(n.gpus_before) +
           " after=" + std::to_string(n.gpus_after) + "\n";
  }
  return out;
}

plan::Plan MakePlan(const History& history) {
  auto cluster = model::ParseClusterJson(ClusterJson(), "cluster.json+generated");
  EXPECT_TRUE(cluster.ok()) << cluster.status().message();
  const mig::MigCatalog& catalog = mig::MigCatalog::Builtin();
  auto policies = policy::LoadPolicyFile(std::string(KUBEON_SOURCE_DIR) + "/testdata/small/policy.yaml",
                                         [&](std::string_view p) { return catalog.ProfileExists(p); });
  EXPECT_TRUE(policies.ok()) << policies.status().message();
  if (!cluster.ok() || !policies.ok()) return {};
  plan::PlannerOptions options;
  options.compute_percentile = kQ;
  options.min_history_hours = 24;
  return plan::MakePlan(*cluster, history, policies->front(), catalog, options).value();
}

const plan::WorkloadDecision* FindWorkload(const plan::Plan& p, const std::string& display) {
  for (const auto& w : p.workloads) {
    if (w.ref.Display() == display) return &w;
  }
  return nullptr;
}

TEST_F(PrometheusHistoryTest, SamePeaksSpansAndPlanAsTheFile) {
  auto prometheus = StartPrometheus();
  ASSERT_NE(prometheus, nullptr);
  PrometheusReadStats stats;
  History prom = Read(Options(prometheus->url()), &stats);
  ASSERT_FALSE(prom.pods.empty());
  ExpectSameUsage(gen_, file_history_, prom, 60000);
  // A handful of queries for the whole cluster, none refused.
  EXPECT_EQ(stats.queries, 7u);
  EXPECT_EQ(stats.refused_queries, 0u);
  EXPECT_EQ(prom.source, prometheus->url());

  plan::Plan from_file = MakePlan(file_history_);
  plan::Plan from_prom = MakePlan(prom);
  ASSERT_EQ(from_prom.workloads.size(), from_file.workloads.size());
  for (size_t i = 0; i < from_file.workloads.size(); ++i) {
    const auto& a = from_file.workloads[i];
    const auto& b = from_prom.workloads[i];
    SCOPED_TRACE(a.ref.Display() + ": file says " + a.reason + " | prometheus says " + b.reason);
    EXPECT_EQ(b.ref, a.ref);
    EXPECT_EQ(b.decision, a.decision);
    EXPECT_EQ(b.slice, a.slice);
    EXPECT_EQ(b.peak_memory_mib, a.peak_memory_mib);
    EXPECT_EQ(b.compute_metric, a.compute_metric);
    EXPECT_NEAR(b.history_hours, a.history_hours, 60.0 / 3600);
    EXPECT_EQ(b.samples, a.samples + (a.ref.Display() == "prod/trainer" ? gen_.bad : 0));
  }
  EXPECT_EQ(DescribePlan(from_prom), DescribePlan(from_file));
  EXPECT_EQ(from_prom.summary.gpus_after, from_file.summary.gpus_after);
  EXPECT_EQ(from_prom.summary.gpus_freed, from_file.summary.gpus_freed);
  EXPECT_EQ(from_prom.artifacts.mig_parted_config, from_file.artifacts.mig_parted_config);

  // The decisions are not vacuous: each rule the history feeds is exercised.
  const auto* embed = FindWorkload(from_prom, "prod/embed");
  const auto* rank = FindWorkload(from_prom, "prod/rank");
  const auto* notebook = FindWorkload(from_prom, "ml-dev/notebook");
  const auto* trainer = FindWorkload(from_prom, "prod/trainer");
  ASSERT_TRUE(embed && rank && notebook && trainer) << DescribePlan(from_prom);
  EXPECT_EQ(embed->decision, plan::Decision::kMig) << embed->reason;
  EXPECT_EQ(embed->slice, "1g.5gb");
  EXPECT_EQ(embed->peak_memory_mib, static_cast<int64_t>(std::ceil(gen_.pods.at({"prod", "embed-7f9c-old9"}).max_memory)));
  EXPECT_EQ(rank->decision, plan::Decision::kUnchanged);
  EXPECT_NE(rank->reason.find("too little history: 10"), std::string::npos) << rank->reason;
  EXPECT_EQ(notebook->decision, plan::Decision::kTimeSlicing) << notebook->reason;
  EXPECT_EQ(notebook->compute_metric, kGpuUtilMetric);
  EXPECT_EQ(trainer->decision, plan::Decision::kUnchanged);
  ASSERT_GT(gen_.bad, 0u);
  EXPECT_NE(trainer->reason.find("unparseable samples"), std::string::npos) << trainer->reason;
  // (The file counts bad samples, the server bad series: the numbers differ.)
  EXPECT_NE(FindWorkload(from_file, "prod/trainer")->reason.find("unparseable samples"), std::string::npos);
}

TEST_F(PrometheusHistoryTest, ChunkedAndLimitedReadsAgree) {
  auto prometheus = StartPrometheus();
  ASSERT_NE(prometheus, nullptr);
  History whole = Read(Options(prometheus->url()));

  // Forced one-day windows: 4 windows per query.
  PrometheusOptions chunked = Options(prometheus->url());
  chunked.max_window = std::chrono::hours(24);
  PrometheusReadStats chunked_stats;
  History by_day = Read(chunked, &chunked_stats);
  EXPECT_EQ(chunked_stats.queries, 7u * 4);

  // A server that refuses the whole-lookback subqueries (too many samples):
  // the reader splits them into days by itself.
  auto limited = StartPrometheus({"--query.max-samples=12000"});
  ASSERT_NE(limited, nullptr);
  PrometheusReadStats limited_stats;
  History split = Read(Options(limited->url()), &limited_stats);
  EXPECT_GE(limited_stats.refused_queries, 1u);

  for (const History* h : {&by_day, &split}) {
    ASSERT_EQ(h->pods.size(), whole.pods.size());
    for (const auto& [key, w] : whole.pods) {
      SCOPED_TRACE(key.namespace_ + "/" + key.pod + (h == &split ? " (limited server)" : " (1-day windows)"));
      const PodUsage& c = h->pods.at(key);
      const PodUsage& f = file_history_.pods.at(key);
      EXPECT_EQ(c.peak_memory_mib, w.peak_memory_mib);
      EXPECT_EQ(c.samples, w.samples);
      // The first sample comes from the same aligned steps however the
      // lookback is split; the last may only get closer to the data's (the
      // instant timestamp() at more window ends).
      EXPECT_EQ(c.first_ts_ms, w.first_ts_ms);
      EXPECT_GE(c.last_ts_ms, w.last_ts_ms);
      EXPECT_LE(c.last_ts_ms, f.last_ts_ms);
      EXPECT_EQ(c.gpus, w.gpus);
      EXPECT_EQ(c.mig_profile, w.mig_profile);
      // Max of the chunks' quantiles: never below the whole window's.
      EXPECT_EQ(c.compute.count(), w.compute.count());
      EXPECT_GE(c.compute.Quantile(kQ), w.compute.Quantile(kQ) - 1e-12);
      EXPECT_GE(c.gpu_util.Quantile(kQ), w.gpu_util.Quantile(kQ) - 1e-12);
    }
    EXPECT_EQ(DescribePlan(MakePlan(*h)), DescribePlan(MakePlan(whole)));
  }
}

TEST_F(PrometheusHistoryTest, NoDcgmSeriesIsAClearError) {
  auto prometheus = StartPrometheus();
  ASSERT_NE(prometheus, nullptr);
  PrometheusOptions o = Options(prometheus->url());
  o.selector = "cluster=\"elsewhere\"";
  auto h = ReadPrometheusHistory(o, nullptr);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("has no DCGM series between 2026-10-31T"), std::string::npos)
      << h.status().message();
  EXPECT_NE(h.status().message().find("looked for DCGM_FI_DEV_FB_USED, DCGM_FI_PROF_GR_ENGINE_ACTIVE and "
                                      "DCGM_FI_DEV_GPU_UTIL matching {cluster=\"elsewhere\"}; DCGM metrics it does "
                                      "have: DCGM_FI_DEV_FB_FREE, DCGM_FI_DEV_FB_USED"),
            std::string::npos)
      << h.status().message();

  PrometheusOptions before = Options(prometheus->url());
  before.end_unix_ms = (kStart - 30 * kDay) * 1000;
  h = ReadPrometheusHistory(before, nullptr);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("it has no DCGM_* metric at all in that window"), std::string::npos)
      << h.status().message();

  PrometheusOptions bad = Options(prometheus->url());
  bad.selector = "cluster=";
  h = ReadPrometheusHistory(bad, nullptr);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("HTTP 400 Bad Request: bad_data: "), std::string::npos) << h.status().message();
}

}  // namespace
}  // namespace kubeon::metrics
