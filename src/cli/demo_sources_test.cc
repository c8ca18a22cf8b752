// End to end: the bundled demo planned from each of its sources gives one
// plan.  The cluster comes from the snapshot file, and from the Kubernetes API
// of a kube-sim process loaded with that file (its controllers running, so a
// Deployment whose ReplicaSets do not match its template would be rolled and
// its pods renamed); the DCGM history comes from the OpenMetrics file, and
// from a real Prometheus serving that file backfilled with promtool.  The
// plans must agree on every decision, slice, node layout, label, dollar
// figure and artifact.  Skipped when kube-sim or Prometheus is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/report.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/snapshot.h"
#include "metrics/history.h"
#include "metrics/prometheus_history.h"
#include "metrics/prometheus_process.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

#ifdef KUBE_SIM_BINARY
#include "kube/sim_process.h"
#endif

namespace kubeon::cli {
namespace {

namespace ts = metrics::testing_support;
using nlohmann::json;

const std::string kDemo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";
constexpr int64_t kSnapshotUnixMs = 1762160400000;  // 2025-11-03T09:00:00Z, the history's last sample

struct Inputs {
  policy::GpuPolicy policy;
  plan::PlannerOptions options;
};

Inputs DemoInputs() {
  Inputs in;
  auto exists = [](std::string_view p) { return mig::MigCatalog::Builtin().ProfileExists(p); };
  auto policies = policy::LoadPolicyFile(kDemo + "policy.yaml", exists);
  EXPECT_TRUE(policies.ok());
  if (policies.ok()) in.policy = policies->front();
  auto prices = model::LoadPricesFile(kDemo + "prices.yaml");
  EXPECT_TRUE(prices.ok());
  if (prices.ok()) in.options.instance_prices_usd = *prices;
  return in;
}

plan::Plan Plan(const model::Cluster& cluster, const metrics::History& history) {
  const Inputs in = DemoInputs();
  return plan::MakePlan(cluster, history, in.policy, mig::MigCatalog::Builtin(), in.options).value();
}

// The plan without what legitimately differs between history sources (see
// metrics/prometheus_history.h): the length of history each workload shows (a
// server's span is exact to one query step), its sample counts (Prometheus
// counts series with bad samples, not samples), and the compute quantile
// (Prometheus interpolates between samples, the file reader reports a
// histogram bin's edge), with the sentences that quote them.  The compute
// peaks are compared apart, within one point.
json Comparable(const plan::Plan& p) {
  json j = PlanToJson(p);
  for (auto& w : j["workloads"]) {
    for (const char* k : {"history_hours", "samples", "peak_compute", "reason"}) w.erase(k);
  }
  for (auto& n : j["nodes"]) n.erase("notes");
  return j;
}

void ExpectSamePlan(const plan::Plan& a, const plan::Plan& b, const std::string& what) {
  ASSERT_EQ(a.workloads.size(), b.workloads.size()) << what;
  for (size_t i = 0; i < a.workloads.size(); ++i) {
    const auto& wa = a.workloads[i];
    const auto& wb = b.workloads[i];
    EXPECT_EQ(wa.peak_compute.has_value(), wb.peak_compute.has_value()) << what << ": " << wa.ref.Display();
    // Within one point where the planner sizes from it (a day or more of
    // 10-minute samples); with a few hours of samples the gap between the two
    // samples around the quantile's rank, which bounds the difference, is wider.
    if (wa.peak_compute && wb.peak_compute && wa.history_hours >= 24) {
      EXPECT_NEAR(*wa.peak_compute, *wb.peak_compute, 0.01) << what << ": " << wa.ref.Display();
    }
  }
  const json ja = Comparable(a), jb = Comparable(b);
  if (ja == jb) return;
  // Name the first difference rather than dumping two plans.
  const json patch = json::diff(ja, jb);
  ADD_FAILURE() << what << " differs from the file plan: " << patch.dump().substr(0, 2000);
}

TEST(DemoSources, FileApiAndPrometheusGiveTheSamePlan) {
  auto cluster = model::LoadClusterFile(kDemo + "cluster.json");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto history = metrics::ReadHistoryFile(kDemo + "history.om", metrics::IngestOptions{});
  ASSERT_TRUE(history.ok()) << history.status().message();
  const plan::Plan from_files = Plan(*cluster, *history);
  ASSERT_GT(from_files.summary.workloads_to_mig, 0);
  ASSERT_GT(from_files.summary.gpus_freed, 0);

#ifdef KUBE_SIM_BINARY
  {
    std::ifstream in(kDemo + "cluster.json");
    std::stringstream text;
    text << in.rdbuf();
    kube::testing::SimProcess sim;
    Status started = sim.Start(KUBE_SIM_BINARY, json::parse(text.str()));
    ASSERT_TRUE(started.ok()) << started.message();
    kube::LoadOptions load;
    load.kubeconfig_path = sim.token_kubeconfig();
    auto config = kube::LoadRestConfig(load);
    ASSERT_TRUE(config.ok()) << config.status().message();
    auto client = kube::KubeClient::Connect(*config);
    ASSERT_TRUE(client.ok()) << client.status().message();
    auto snapshot = kube::FetchSnapshot(**client);
    ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
    auto live = model::ParseClusterJson(kube::FormatSnapshot(*snapshot), "kube-sim");
    ASSERT_TRUE(live.ok()) << live.status().message();
    // Every pod of the file still runs under its name (no Deployment was
    // rolled); the simulated GPU Operator adds its own DaemonSet pods.
    std::set<std::string> live_pods;
    for (const auto& p : live->pods) live_pods.insert(p.namespace_ + "/" + p.name);
    for (const auto& p : cluster->pods) EXPECT_TRUE(live_pods.count(p.namespace_ + "/" + p.name)) << p.name;
    ExpectSamePlan(from_files, Plan(*live, *history), "the plan from the Kubernetes API (kube-sim)");
  }
#else
  GTEST_SKIP() << "kube-sim is not part of this build";
#endif

  if (::access(ts::kPrometheus, X_OK) != 0 || ::access(ts::kPromtool, X_OK) != 0) {
    GTEST_SKIP() << "Prometheus is not installed (Debian package prometheus)";
  }
  char tmpl[] = "/tmp/kubeon-demo-sources-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string scratch = tmpl;
  std::ifstream om(kDemo + "history.om", std::ios::binary);
  std::stringstream om_text;
  om_text << om.rdbuf();
  std::string error;
  const std::string blocks = ts::Backfill(kDemo + "history.om", om_text.str(), KUBEON_BINARY_DIR, scratch, &error);
  ASSERT_FALSE(blocks.empty()) << error;
  const std::string data = scratch + "/data";
  std::filesystem::copy(blocks, data, std::filesystem::copy_options::recursive);
  {
    auto prometheus = ts::PrometheusProcess::Start(data, scratch, {}, &error);
    ASSERT_NE(prometheus, nullptr) << error;
    metrics::PrometheusOptions o;
    o.url = prometheus->url();
    o.end_unix_ms = kSnapshotUnixMs;
    o.lookback = std::chrono::hours(24 * 4);
    o.step = std::chrono::seconds(60);
    o.timeout = std::chrono::seconds(60);
    o.compute_percentile = DemoInputs().options.compute_percentile;
    auto from_prometheus = metrics::ReadPrometheusHistory(o, nullptr);
    ASSERT_TRUE(from_prometheus.ok()) << from_prometheus.status().message();
    ExpectSamePlan(from_files, Plan(*cluster, *from_prometheus), "the plan from Prometheus");
  }
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
}

}  // namespace
}  // namespace kubeon::cli
