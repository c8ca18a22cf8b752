// `kubeon-gpu controller` end to end: the real binary against kube-sim
// serving the bundled demo with spare H100 and A10G nodes
// (apply/apply_e2e_support.h), history from the demo's OpenMetrics file, a
// SQLite audit log in a temp directory, the policy in Auto mode with an
// always-open window.
//  - One controller applies the clean steps on its own and leaves the flagged
//    one for a reviewer; /healthz, /readyz and /metrics answer; a real
//    Prometheus scrapes /metrics and a query returns the plans counter; the
//    JSON log never holds the API token; SIGTERM stops it with exit 0.
//  - Two controllers with the log in GpuChange objects: the leader is
//    SIGKILLed in the middle of a step (kubeon-gpu-crashpoint, src/cli/crashpoint_main.cc);
//    while its policy Lease lasts, the CLI's apply on that policy is
//    refused; then the other controller takes the leader Lease and the
//    policy Lease and finishes or rolls back that step from its GpuChange.
//  - With the GpuChange store (--audit-db kubernetes): the reviewer page and
//    its API answer on the controller's listener; an approval written as
//    annotations by `kubeon-gpu approve` is imported and the step runs.
// kube-sim runs 20x real time with no ConfigMap sync delay.  CTest label "long".
#include <gtest/gtest.h>

#if defined(KUBE_SIM_BINARY) && defined(KUBEON_GPU_BINARY) && defined(KUBEON_GPU_CRASHPOINT_BINARY)

#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "audit/kube_store.h"
#include "audit/sqlite_store.h"
#include "apply/apply_e2e_support.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/sim_process.h"
#include "metrics/prometheus_process.h"

namespace kubeon::controller {
namespace {

using json = nlohmann::json;
using SteadyClock = std::chrono::steady_clock;
namespace prom = kubeon::metrics::testing_support;

const std::string kDemo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";

using kube::testing::ReadText;
using kube::testing::WaitFor;

class ControllerE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("controller_e2e_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    json settings = {{"timeScale", 20}, {"configMapSyncDelayMs", 0}};
    Status s = sim_.Start(KUBE_SIM_BINARY, apply::testing::DemoWithSpare(kDemo), 120000, settings);
    ASSERT_TRUE(s.ok()) << s.message();
    auto c = sim_.AdminClient();
    ASSERT_TRUE(c.ok()) << c.status().message();
    client_ = std::move(c).value();
    token_ = client_->config().token;
    // The demo's policy in Auto mode, its window always open.
    std::string policy = ReadText(kDemo + "policy.yaml");
    policy = std::regex_replace(policy, std::regex("mode: Proposal"), "mode: Auto");
    policy = std::regex_replace(policy, std::regex("window: \"[^\"]*\""), "window: \"Daily 00:00-24:00 UTC\"");
    std::ofstream(dir_ / "policy.yaml") << policy;
  }

  void TearDown() override {
    for (pid_t pid : children_) {
      if (kill(pid, 0) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  // from_api: the GpuPolicy objects of the cluster; else dir/policy.yaml.
  std::vector<std::string> ControllerArgs(const std::string& identity, int port, bool from_api,
                                          const std::string& audit_db = "") {
    std::vector<std::string> args = {"controller",
            "--kubeconfig", sim_.token_kubeconfig(),
            "--history", kDemo + "history.om",
            "--prices", kDemo + "prices.yaml",
            "--audit-db", audit_db.empty() ? db() : audit_db,
            "--listen", "127.0.0.1:" + std::to_string(port),
            "--identity", identity,
            "--namespace", "kube-system",
            "--leader-lease-seconds", "6",
            "--policy-lease-seconds", "15",
            "--resync", "2s",
            "--configmap-sync-seconds", "0"};
    if (!from_api) {
      args.push_back("--policy");
      args.push_back((dir_ / "policy.yaml").string());
    }
    return args;
  }

  pid_t StartController(const std::string& identity, int port, int crash_after = 0, bool from_api = false) {
    pid_t pid = apply::testing::SpawnGpu(crash_after > 0 ? KUBEON_GPU_CRASHPOINT_BINARY : KUBEON_GPU_BINARY,
                                      ControllerArgs(identity, port, from_api, kube_store_ ? "kubernetes" : ""),
                                      crash_after, dir_, identity);
    EXPECT_GT(pid, 0);
    if (pid > 0) children_.push_back(pid);
    return pid;
  }

  // The GpuChange objects (name -> object) when the log is the cluster's.
  std::map<std::string, json> KubeChanges() {
    std::map<std::string, json> out;
    auto list = client_->List("/apis/gpu.kubeon.io/v1/gpuchanges");
    if (!list.ok()) return out;
    for (const auto& c : list->items) out[c["metadata"].value("name", "")] = c;
    return out;
  }

  int CountKubeIn(const std::string& state) {
    int n = 0;
    for (const auto& [name, c] : KubeChanges()) n += c.value("status", json::object()).value("state", "") == state;
    return n;
  }

  // The audit log's records: the GpuChange objects when kube_store_, else
  // the SQLite file.
  std::vector<audit::ChangeRecord> Changes() {
    if (kube_store_) {
      audit::KubeAuditStore::Options o;
      o.namespace_ = "kube-system";
      audit::KubeAuditStore store(*client_, o);
      auto all = store.ListChanges();
      return all.ok() ? *all : std::vector<audit::ChangeRecord>{};
    }
    if (!std::filesystem::exists(db())) return {};
    auto store = audit::SqliteAuditStore::Open(db());
    if (!store.ok()) return {};
    auto all = (*store)->ListChanges();
    return all.ok() ? *all : std::vector<audit::ChangeRecord>{};
  }

  int CountIn(audit::ChangeState state) {
    int n = 0;
    for (const auto& c : Changes()) n += c.state == state ? 1 : 0;
    return n;
  }

  std::string LeaseHolder(const std::string& ns, const std::string& name) {
    auto l = client_->Get("/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases/" + name);
    return l.ok() ? (*l)["spec"].value("holderIdentity", "") : "";
  }

  static std::pair<int, std::string> HttpGet(int port, const std::string& path) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(2, 0);
    c.set_read_timeout(5, 0);
    auto res = c.Get(path);
    if (!res) return {0, ""};
    return {res->status, res->body};
  }

  // No node left cordoned or tainted by a step.
  void ExpectNodesSettled() {
    auto nodes = client_->List("/api/v1/nodes");
    ASSERT_TRUE(nodes.ok());
    for (const auto& n : nodes->items) {
      for (const auto& t : n["spec"].value("taints", json::array())) {
        EXPECT_NE(t.value("key", ""), "gpu.kubeon.io/step") << n["metadata"]["name"];
      }
      EXPECT_FALSE(n["metadata"].value("annotations", json::object()).contains("gpu.kubeon.io/cordoned-by"))
          << n["metadata"]["name"];
    }
  }

  std::string db() const { return (dir_ / "audit.db").string(); }

  std::filesystem::path dir_;
  kube::testing::SimProcess sim_;
  std::unique_ptr<kube::KubeClient> client_;
  std::string token_;
  std::vector<pid_t> children_;
  bool kube_store_ = false;  // controllers keep their log in GpuChange objects
};

TEST_F(ControllerE2eTest, AppliesCleanStepsWritesStatusServesMetricsAndPrometheusScrapesThem) {
  // The GpuPolicy CRD and the policy, as an operator installs them.
  // (Two runs: kubectl maps every file's kinds before it creates the CRD.)
  for (const std::string& file : {std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpupolicy.yaml", (dir_ / "policy.yaml").string()}) {
    auto [rc, out] = kube::testing::RunCommand("kubectl --kubeconfig " + sim_.token_kubeconfig() + " apply -f " + file +
                                               " 2>&1");
    if (rc == 127) GTEST_SKIP() << "no kubectl";
    ASSERT_EQ(rc, 0) << out;
  }
  const int port = prom::FreePort();
  const pid_t pid = StartController("solo", port, 0, /*from_api=*/true);
  ASSERT_GT(pid, 0);
  // Step 1 (A100) is flagged and waits for a reviewer; steps 2 and 3 (the
  // spare nodes' pools) are clean: Auto takes them.
  ASSERT_TRUE(WaitFor([&] { return CountIn(audit::ChangeState::kDone) == 2; }, std::chrono::seconds(90)))
      << ReadText(dir_ / "solo.stderr");
  EXPECT_EQ(CountIn(audit::ChangeState::kProposed), 1);
  std::string flagged;
  for (const auto& c : Changes()) {
    if (c.state == audit::ChangeState::kProposed) flagged = c.id;
  }
  EXPECT_EQ(LeaseHolder("kube-system", "kubeon-gpu-controller"), "solo");
  ExpectNodesSettled();

  // The policy's status after the pass that saw both steps done.
  const std::string policy_path = "/apis/gpu.kubeon.io/v1/gpupolicies/gpu-sharing";
  json status;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto p = client_->Get(policy_path);
        if (!p.ok()) return false;
        status = p->value("status", json::object());
        return status.contains("lastChange") && status["lastChange"].value("state", "") == "done" &&
               status.value("pendingApprovals", json::array()) == json::array({flagged});
      },
      std::chrono::seconds(30)))
      << status.dump(2);
  EXPECT_EQ(status["observedGeneration"], 1);
  EXPECT_GT(status["lastPlan"]["gpusBefore"].get<int>(), status["lastPlan"]["gpusAfter"].get<int>());
  EXPECT_EQ(status["lastPlan"]["planHash"].get<std::string>().size(), 64u);
  std::map<std::string, json> conditions;
  for (const auto& c : status["conditions"]) conditions[c["type"]] = c;
  EXPECT_EQ(conditions["Ready"]["status"], "True") << status.dump(2);
  EXPECT_EQ(conditions["WindowOpen"]["status"], "True");
  EXPECT_EQ(conditions["Degraded"]["status"], "False");
  // Events on the policy: the plan and each step.
  auto events = client_->List("/api/v1/namespaces/default/events");
  ASSERT_TRUE(events.ok());
  std::map<std::string, int> reasons;
  for (const auto& e : events->items) {
    if (e["involvedObject"].value("kind", "") == "GpuPolicy" && e["involvedObject"].value("name", "") == "gpu-sharing") {
      ++reasons[e.value("reason", "")];
    }
  }
  EXPECT_GE(reasons["PlanChanged"], 1);
  EXPECT_EQ(reasons["StepStarted"], 2);
  EXPECT_EQ(reasons["StepDone"], 2);
  // A change of the spec is planned again (the watch sees the new generation).
  auto patched = client_->Patch(policy_path, kube::PatchType::kMerge, {{"spec", {{"mig", {{"headroom", "25%"}}}}}});
  ASSERT_TRUE(patched.ok()) << patched.error().ToString();
  EXPECT_TRUE(WaitFor(
      [&] {
        auto p = client_->Get(policy_path);
        return p.ok() && p->value("status", json::object()).value("observedGeneration", 0) == 2;
      },
      std::chrono::seconds(30)));

  EXPECT_EQ(HttpGet(port, "/healthz").first, 200);
  EXPECT_TRUE(WaitFor([&] { return HttpGet(port, "/readyz").first == 200; }, std::chrono::seconds(10)));
  const auto [code, metrics] = HttpGet(port, "/metrics");
  ASSERT_EQ(code, 200);
  EXPECT_NE(metrics.find("kubeon_gpu_changes_total{policy=\"gpu-sharing\",outcome=\"done\"} 2\n"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("kubeon_gpu_leader 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("kubeon_gpu_step_duration_seconds_count{policy=\"gpu-sharing\"} 2\n"), std::string::npos);
  EXPECT_NE(metrics.find("kubeon_gpu_gpus_freed{policy=\"gpu-sharing\"}"), std::string::npos);

  // A real Prometheus scrapes /metrics; the plans counter is queryable.
  if (std::filesystem::exists(prom::kPrometheus)) {
    prom::TempDir data;
    std::string error;
    const std::string config = "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: kubeon-gpu-controller\n"
                               "    static_configs:\n      - targets: ['127.0.0.1:" + std::to_string(port) + "']\n";
    auto p = prom::PrometheusProcess::Start(data.path(), data.path(), {}, &error, config);
    ASSERT_NE(p, nullptr) << error;
    const std::string url = p->url();
    json result;
    EXPECT_TRUE(WaitFor(
        [&] {
          httplib::Client c(url);
          auto res = c.Get("/api/v1/query?query=" + kube::QueryEscape("kubeon_gpu_plans_total{policy=\"gpu-sharing\"}"));
          if (!res || res->status != 200) return false;
          result = json::parse(res->body, nullptr, false);
          return result.is_object() && result["data"]["result"].is_array() && !result["data"]["result"].empty();
        },
        std::chrono::seconds(30)))
        << result.dump();
    if (result.is_object() && !result["data"]["result"].empty()) {
      EXPECT_EQ(result["data"]["result"][0]["metric"]["job"], "kubeon-gpu-controller");
      EXPECT_GE(std::stod(result["data"]["result"][0]["value"][1].get<std::string>()), 1.0);
    }
  }

  ASSERT_EQ(kill(pid, SIGTERM), 0);
  const apply::testing::ChildResult r = apply::testing::WaitGpu(pid, dir_, "solo");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The log: JSON lines only, never the token.
  std::istringstream lines(r.err);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    const json j = json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object() && j.contains("time") && j.contains("level") && j.contains("msg")) << line;
    ++n;
  }
  EXPECT_GT(n, 5);
  EXPECT_EQ(r.err.find(token_), std::string::npos) << "the API token is in the log";
  EXPECT_EQ(LeaseHolder("kube-system", "kubeon-gpu-controller"), "") << "released on SIGTERM";
}

// The controller's defaults in a cluster: the audit log in GpuChange objects
// (--audit-db kubernetes), approvals written as annotations (guarded by the
// kubeon-gpu-approvals admission policy from deploy/), the reviewer page on
// the same listener.
TEST_F(ControllerE2eTest, GpuChangeStoreAnnotationApprovalAndTheReviewerPage) {
  for (const std::string& file : {std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpupolicy.yaml",
                                  std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpuchange.yaml",
                                  std::string(KUBEON_SOURCE_DIR) + "/deploy/vap-approvals.yaml",
                                  (dir_ / "policy.yaml").string()}) {
    auto [rc, out] = kube::testing::RunCommand("kubectl --kubeconfig " + sim_.token_kubeconfig() + " apply -f " + file +
                                               " 2>&1");
    if (rc == 127) GTEST_SKIP() << "no kubectl";
    ASSERT_EQ(rc, 0) << out;
  }
  const int port = prom::FreePort();
  const pid_t pid = apply::testing::SpawnGpu(
      KUBEON_GPU_BINARY, ControllerArgs("solo", port, /*from_api=*/true, "kubernetes"), 0, dir_, "solo");
  ASSERT_GT(pid, 0);
  children_.push_back(pid);
  ASSERT_TRUE(WaitFor([&] { return CountKubeIn("done") == 2 && CountKubeIn("proposed") == 1; },
                      std::chrono::seconds(90)))
      << ReadText(dir_ / "solo.stderr");
  std::string flagged;
  for (const auto& [name, c] : KubeChanges()) {
    if (c["status"].value("state", "") == "proposed") flagged = name;
  }
  EXPECT_FALSE(std::filesystem::exists(db())) << "no SQLite file with --audit-db kubernetes";

  // The reviewer page and its API on the controller's listener.
  const auto [page_code, page] = HttpGet(port, "/");
  EXPECT_EQ(page_code, 200);
  EXPECT_NE(page.find("<html"), std::string::npos);
  const auto [api_code, policies] = HttpGet(port, "/api/policies");
  EXPECT_EQ(api_code, 200);
  EXPECT_NE(policies.find("gpu-sharing"), std::string::npos) << policies;
  const auto [changes_code, changes] = HttpGet(port, "/api/changes");
  EXPECT_EQ(changes_code, 200);
  EXPECT_NE(changes.find(flagged), std::string::npos) << changes;

  // A reviewer approves with the CLI, which writes the annotations; the
  // controller imports the approval (who: the API server's user) and runs it.
  const apply::testing::ChildResult approved = apply::testing::RunGpu(
      KUBEON_GPU_BINARY, {"approve", flagged, "--audit-db", "kubernetes", "--kubeconfig", sim_.token_kubeconfig()}, 0,
      dir_);
  ASSERT_EQ(approved.exit_code, 0) << approved.err;
  ASSERT_TRUE(WaitFor([&] { return CountKubeIn("done") == 3; }, std::chrono::seconds(120)))
      << ReadText(dir_ / "solo.stderr");
  const json change = KubeChanges()[flagged];
  EXPECT_EQ(change["status"].value("approvedBy", ""), "kube-sim-admin") << change.dump(2);
  EXPECT_FALSE(change["metadata"].contains("ownerReferences"));
  ExpectNodesSettled();
  // Approvals are guarded (the admission policy is installed): not Degraded.
  auto p = client_->Get("/apis/gpu.kubeon.io/v1/gpupolicies/gpu-sharing");
  ASSERT_TRUE(p.ok());
  for (const auto& c : p->value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == "Degraded") {
      EXPECT_NE(c.value("reason", ""), "ApprovalsNotGuarded") << c.dump();
    }
  }
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  EXPECT_EQ(apply::testing::WaitGpu(pid, dir_, "solo").exit_code, 0);
}

TEST_F(ControllerE2eTest, LeaderKilledMidStepTheOtherFinishesItAndApplyIsRefusedMeanwhile) {
  // The log in the cluster's GpuChange objects: b resumes from a's GpuChange.
  {
    auto [rc, out] = kube::testing::RunCommand("kubectl --kubeconfig " + sim_.token_kubeconfig() + " apply -f " +
                                               std::string(KUBEON_SOURCE_DIR) + "/deploy/crd-gpuchange.yaml 2>&1");
    if (rc == 127) GTEST_SKIP() << "no kubectl";
    ASSERT_EQ(rc, 0) << out;
  }
  kube_store_ = true;
  // "a" leads and dies (SIGKILL) after its third cluster write, inside a step.
  const pid_t a = StartController("a", prom::FreePort(), 3);
  ASSERT_GT(a, 0);
  ASSERT_TRUE(WaitFor([&] { return LeaseHolder("kube-system", "kubeon-gpu-controller") == "a"; },
                      std::chrono::seconds(30)));
  const int port_b = prom::FreePort();
  const pid_t b = StartController("b", port_b);
  ASSERT_GT(b, 0);
  const apply::testing::ChildResult died = apply::testing::WaitGpu(a, dir_, "a");
  ASSERT_TRUE(died.signaled && died.signal == SIGKILL) << died.exit_code << "\n" << died.err;
  ASSERT_EQ(CountIn(audit::ChangeState::kRunning), 1) << "a died inside a step";
  std::string running;
  for (const auto& c : Changes()) {
    if (c.state == audit::ChangeState::kRunning) running = c.id;
  }

  // The dead leader's policy Lease still holds: the CLI's apply is refused.
  const apply::testing::ChildResult refused = apply::testing::RunGpu(
      KUBEON_GPU_BINARY,
      apply::testing::DemoApplyArgs(kDemo, sim_.token_kubeconfig(), db(), "Auto", "2026-12-05T02:05:00Z"), 0, dir_);
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_NE(refused.err.find("being changed by a "), std::string::npos) << refused.err;

  // b takes over and settles the step a left, from the audit log.
  ASSERT_TRUE(WaitFor(
      [&] {
        for (const auto& c : Changes()) {
          if (c.id == running) return c.state != audit::ChangeState::kRunning;
        }
        return false;
      },
      std::chrono::seconds(60)))
      << ReadText(dir_ / "b.stderr");
  EXPECT_EQ(LeaseHolder("kube-system", "kubeon-gpu-controller"), "b");
  for (const auto& c : Changes()) {
    if (c.id == running) {
      EXPECT_TRUE(c.state == audit::ChangeState::kDone || c.state == audit::ChangeState::kRolledBack)
          << audit::ChangeStateName(c.state);
    }
  }
  // b goes on with the clean step of the other pool (a rolled-back change
  // is not retried on its own); in the end nothing is left half way.
  ASSERT_TRUE(WaitFor([&] { return CountIn(audit::ChangeState::kDone) >= 1 && CountIn(audit::ChangeState::kRunning) == 0; },
                      std::chrono::seconds(60)))
      << ReadText(dir_ / "b.stderr");
  ExpectNodesSettled();
  const std::string log_b = ReadText(dir_ / "b.stderr");
  EXPECT_NE(log_b.find("left half way by an earlier"), std::string::npos) << log_b;
  const auto [code, metrics] = HttpGet(port_b, "/metrics");
  EXPECT_EQ(code, 200);
  EXPECT_NE(metrics.find("kubeon_gpu_leader 1\n"), std::string::npos) << metrics;
}

}  // namespace
}  // namespace kubeon::controller

#else
TEST(ControllerE2eTest, RequiresTheSimulatorAndTheBinary) {
  GTEST_SKIP() << "kube-sim or kubeon-gpu is not part of this build";
}
#endif
