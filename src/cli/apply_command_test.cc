// `kubeon-gpu apply`, `approve` and `revert` end to end: the bundled demo
// cluster (examples/demo) served by the kube-sim executable with its
// simulated GPU Operator, history from the demo's OpenMetrics file, the
// commands run in-process on a SQLite audit log in a temp directory.
// kube-sim runs 20x real time with no ConfigMap sync delay.  Each test
// starts its own kube-sim; CTest label "long" (not repeated under the
// sanitizers).
#include "cli/apply_command.h"

#include <gtest/gtest.h>

#ifdef KUBE_SIM_BINARY

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "apply/rfc3339.h"
#include "audit/sqlite_store.h"
#include "cli/change_commands.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/sim_process.h"

namespace kubeon::cli {
namespace {

using json = nlohmann::json;

const std::string kDemo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";
const char* kInsideWindow = "2026-12-05T02:05:00Z";  // Saturday: "Sat 02:00-06:00 UTC" is open
const char* kOutsideWindow = "2026-12-05T07:00:00Z";

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

class ApplyCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("apply_command_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    json settings = {{"timeScale", 20}, {"configMapSyncDelayMs", 0}};
    Status s = sim_.Start(KUBE_SIM_BINARY, ReadJson(kDemo + "cluster.json"), 120000, settings);
    ASSERT_TRUE(s.ok()) << s.message();
    kube::LoadOptions o;
    o.kubeconfig_path = sim_.token_kubeconfig();
    auto cfg = kube::LoadRestConfig(o);
    ASSERT_TRUE(cfg.ok());
    auto c = kube::KubeClient::Connect(*cfg);
    ASSERT_TRUE(c.ok());
    client_ = std::move(c).value();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ApplyArgs Args(const std::string& mode, const std::string& now) {
    ApplyArgs a;
    a.plan.kubeconfig = sim_.token_kubeconfig();
    a.plan.metrics_files = {kDemo + "history.om"};
    a.plan.policy_file = kDemo + "policy.yaml";
    a.plan.prices_file = kDemo + "prices.yaml";
    a.audit_db = db();
    a.mode = mode;
    a.now = now;
    a.output = "json";
    a.configmap_sync_seconds = 0;
    return a;
  }

  // Runs apply; returns the exit code, the JSON outcome in *out.
  int Apply(const ApplyArgs& a, json* out, std::string* err_text = nullptr) {
    std::ostringstream o, e;
    int code = RunApply(a, o, e);
    if (err_text) *err_text = e.str();
    if (out) {
      *out = o.str().empty() ? json() : json::parse(o.str(), nullptr, false);
    }
    if (::testing::Test::HasFailure()) std::cerr << e.str();
    return code;
  }

  // What the executor may touch on GPU nodes, as a comparable value.
  json NodeState() {
    auto nodes = client_->List("/api/v1/nodes");
    EXPECT_TRUE(nodes.ok());
    json state = json::object();
    for (const auto& n : nodes->items) {
      json labels = json::object();
      const json& all = n["metadata"]["labels"];
      for (const char* k : {"nvidia.com/mig.config", "nvidia.com/device-plugin.config"}) {
        if (all.is_object() && all.contains(k)) labels[k] = all[k];
      }
      state[n["metadata"]["name"].get<std::string>()] = {
          {"labels", labels},
          {"unschedulable", n["spec"].value("unschedulable", false)},
          {"taints", n["spec"].value("taints", json::array())}};
    }
    return state;
  }

  std::string db() const { return (dir_ / "audit.db").string(); }

  std::filesystem::path dir_;
  kube::testing::SimProcess sim_;
  std::unique_ptr<kube::KubeClient> client_;
};

TEST_F(ApplyCommandTest, DryRunAndProposalChangeNothingInTheCluster) {
  const json before = NodeState();
  ApplyArgs dry = Args("Auto", kInsideWindow);
  dry.dry_run = true;
  json out;
  int code = Apply(dry, &out);
  EXPECT_TRUE(code == 0 || code == 6) << out.dump();
  EXPECT_FALSE(std::filesystem::exists(db())) << "--dry-run writes no log";

  code = Apply(Args("Proposal", kInsideWindow), &out);
  EXPECT_TRUE(code == 0 || code == 6) << out.dump();
  EXPECT_EQ(NodeState(), before);
  ASSERT_TRUE(out.contains("policies"));
  auto store = audit::SqliteAuditStore::Open(db());
  ASSERT_TRUE(store.ok());
  auto changes = (*store)->ListChanges();
  ASSERT_TRUE(changes.ok());
  for (const auto& s : out["policies"][0]["steps"]) EXPECT_EQ(s["outcome"], "proposed");
  EXPECT_EQ(changes->size(), out["policies"][0]["steps"].size());
}

TEST_F(ApplyCommandTest, ClosedWindowChangesNothing) {
  const json before = NodeState();
  json out;
  const int code = Apply(Args("Auto", kOutsideWindow), &out);
  EXPECT_EQ(NodeState(), before);
  if (out["policies"][0]["feasible"] == true && !out["policies"][0]["steps"].empty()) {
    EXPECT_EQ(code, 3) << out.dump();
    EXPECT_EQ(out["policies"][0]["steps"][0]["outcome"], "waiting-window");
  } else {
    EXPECT_EQ(code, 6) << out.dump();
  }
}

TEST_F(ApplyCommandTest, AutoAppliesTheDemoAndASecondRunChangesNothing) {
  json out;
  std::string err;
  const int code = Apply(Args("Auto", kInsideWindow), &out, &err);
  const json& p = out["policies"][0];
  if (p["feasible"] == false) {
    // The demo's pools are full: the plan says what the migration needs and nothing starts.
    EXPECT_EQ(code, 6) << err;
    EXPECT_FALSE(p["spare_gpus_needed"].empty());
    return;
  }
  ASSERT_EQ(code, 0) << err << out.dump(2);
  ASSERT_FALSE(p["steps"].empty());
  for (const auto& s : p["steps"]) EXPECT_EQ(s["outcome"], "done") << s.dump();
  // No node left cordoned or tainted by the executor; every MIG config applied.
  auto nodes = client_->List("/api/v1/nodes");
  ASSERT_TRUE(nodes.ok());
  for (const auto& n : nodes->items) {
    for (const auto& t : n["spec"].value("taints", json::array())) EXPECT_NE(t.value("key", ""), "gpu.kubeon.io/step");
    const json labels = n["metadata"].value("labels", json::object());
    if (labels.contains("nvidia.com/mig.config")) {
      EXPECT_EQ(labels.value("nvidia.com/mig.config.state", ""), "success") << n["metadata"]["name"];
    }
    EXPECT_FALSE(n["metadata"].value("annotations", json::object()).contains("gpu.kubeon.io/cordoned-by"));
  }
  // Again: the cluster already matches, nothing to do.
  json again;
  EXPECT_EQ(Apply(Args("Auto", kInsideWindow), &again, &err), 0) << err;
  for (const auto& s : again["policies"][0]["steps"]) EXPECT_NE(s["outcome"], "done") << s.dump();
}

TEST_F(ApplyCommandTest, ApproveFlowAndAnotherClustersLog) {
  json out;
  std::string err;
  int code = Apply(Args("Approve", kInsideWindow), &out, &err);
  const json& p = out["policies"][0];
  if (p["feasible"] == false || p["steps"].empty()) {
    EXPECT_EQ(code, p["feasible"] == false ? 6 : 0);
  } else {
    EXPECT_EQ(code, 3) << err;
    EXPECT_EQ(p["steps"][0]["outcome"], "waiting-approval");
    // Approve the first step as the kubeconfig's user (SelfSubjectReview).
    DecideArgs d;
    d.id = p["steps"][0]["id"];
    d.kubeconfig = sim_.token_kubeconfig();
    d.audit_db = db();
    d.now = std::chrono::system_clock::now();
    std::ostringstream o, e;
    ASSERT_EQ(RunApprove(d, o, e), 0) << e.str();
    json after;
    code = Apply(Args("Approve", kInsideWindow), &after, &err);
    EXPECT_TRUE(after["policies"][0]["steps"][0]["outcome"] == "done") << err << after.dump(2);
  }
  // The same log against another cluster is refused, and nothing is written.
  kube::testing::SimProcess other;
  json settings = {{"kubeSystemUid", "00000000-0000-0000-0000-00000000beef"}};
  ASSERT_TRUE(other.Start(KUBE_SIM_BINARY, ReadJson(kDemo + "cluster.json"), 120000, settings).ok());
  ApplyArgs a = Args("Auto", kInsideWindow);
  a.plan.kubeconfig = other.token_kubeconfig();
  code = Apply(a, &out, &err);
  EXPECT_EQ(code, 1);
  EXPECT_NE(err.find("belongs to cluster"), std::string::npos) << err;
}

TEST_F(ApplyCommandTest, TwoAppliesAtOnceOneWaitsForTheOther) {
  // Hold the policy's Lease as another executor would; apply must refuse to write.
  json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", "kubeon-gpu-gpu-sharing"}, {"namespace", "kube-system"}}},
                {"spec",
                 {{"holderIdentity", "kubeon-gpu/other-host/42/abcd"},
                  {"leaseDurationSeconds", 3600},
                  {"renewTime", apply::FormatMicroTime(std::chrono::system_clock::now())}}}};
  ASSERT_TRUE(client_->Create("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", lease).ok());
  const json before = NodeState();
  json out;
  std::string err;
  EXPECT_EQ(Apply(Args("Auto", kInsideWindow), &out, &err), 1);
  EXPECT_NE(err.find("being changed by kubeon-gpu/other-host/42/abcd"), std::string::npos) << err;
  EXPECT_EQ(NodeState(), before);
}

}  // namespace
}  // namespace kubeon::cli

#else
TEST(ApplyCommandTest, RequiresTheSimulator) { GTEST_SKIP() << "kube-sim is not part of this build"; }
#endif
