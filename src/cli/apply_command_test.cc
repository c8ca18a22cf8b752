// `kubeon-gpu apply`, `approve` and `revert` end to end: the bundled demo
// cluster (examples/demo, plus empty H100 and A10G nodes where an order must fit)
// served by the kube-sim executable with its simulated GPU Operator, history from the demo's OpenMetrics file, the
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
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "apply/rfc3339.h"
#include "audit/kube_sim_support.h"
#include "audit/kube_store.h"
#include "audit/sqlite_store.h"
#include "apply/apply_e2e_support.h"
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
  }

  // Starts kube-sim on the demo cluster; with `spares` plus one empty H100
  // and one empty A10G node (the demo's H100 and A10G pools are full: without
  // them no order fits).
  void StartSim(bool spares) {
    json cluster = spares ? apply::testing::DemoWithSpare(kDemo) : ReadJson(kDemo + "cluster.json");
    json settings = {{"timeScale", 20}, {"configMapSyncDelayMs", 0}};
    Status s = sim_.Start(KUBE_SIM_BINARY, cluster, 120000, settings);
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

  std::vector<audit::ChangeRecord> Changes() {
    auto store = audit::SqliteAuditStore::Open(db());
    EXPECT_TRUE(store.ok());
    if (!store.ok()) return {};
    auto all = (*store)->ListChanges();
    EXPECT_TRUE(all.ok());
    return all.ok() ? *all : std::vector<audit::ChangeRecord>{};
  }

  void Approve(const std::string& id) {
    DecideArgs d;
    d.id = id;
    d.kubeconfig = sim_.token_kubeconfig();
    d.audit_db = db();
    d.ttl = "1000h";  // the runs' --now lies days ahead of the clock
    std::ostringstream o, e;
    ASSERT_EQ(RunApprove(d, o, e), 0) << e.str();
  }

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

// `revert 'af1c4ed0?dryRun=All'` is a usage error before any connection.
TEST(RevertCommand, AnIdThatIsNotAChangeIdIsAUsageError) {
  for (const std::string id : {"af1c4ed0?dryRun=All", "af1c4ed0/status", "AF1C4ED0"}) {
    RevertArgs a;
    a.id = id;
    a.kubeconfig = "/nonexistent/kubeconfig";
    std::ostringstream out, err;
    EXPECT_EQ(RunRevert(a, out, err), 2) << id;
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str(), "error: change id \"" + id + "\" is not 8 hexadecimal digits (kubeon-gpu changes lists them)\n");
  }
}

// The demo as shipped: its H100 and A10G pools are full (no order of theirs
// fits), and they hold back no other pool: the A100 pool's step runs once
// approved; the full pools are reported with the spare GPUs they need and
// their nodes are left as they are.
TEST_F(ApplyCommandTest, TheDemoAsShippedRunsTheA100PoolAndReportsTheFullOnes) {
  StartSim(false);
  const json before = NodeState();
  const std::set<std::string> a100 = {"ip-10-13-35-65.ec2.internal", "ip-10-15-227-218.ec2.internal",
                                      "ip-10-30-143-186.ec2.internal"};
  json out;
  std::string err;
  EXPECT_EQ(Apply(Args("Approve", kInsideWindow), &out, &err), 6) << err;
  const json& p = out["policies"][0];
  EXPECT_EQ(p["feasible"], false);
  ASSERT_TRUE(p["blocked_pools"].contains("H100-80GB")) << p.dump();
  EXPECT_GT(p["spare_gpus_needed"]["H100-80GB"].get<int>(), 0);
  EXPECT_NE(err.find("GPU pool H100-80GB stays as it is"), std::string::npos) << err;
  ASSERT_FALSE(p["steps"].empty()) << p.dump();
  for (const auto& s : p["steps"]) {
    EXPECT_EQ(s["outcome"], "waiting-approval") << s.dump();
    for (const auto& n : s["nodes"]) EXPECT_TRUE(a100.count(n.get<std::string>())) << n;
  }
  EXPECT_EQ(NodeState(), before);
  const std::string id = p["steps"][0]["id"];
  Approve(id);
  EXPECT_EQ(Apply(Args("Approve", kInsideWindow), &out, &err), 6) << err;
  const json& q = out["policies"][0];
  EXPECT_EQ(q["steps"][0]["outcome"], "done") << q.dump();
  const json after = NodeState();
  for (const auto& [name, state] : after.items()) {
    // Nothing left cordoned or tainted by the step; only the A100 pool's config changed.
    EXPECT_EQ(state["unschedulable"], before[name]["unschedulable"]) << name;
    EXPECT_EQ(state["taints"], before[name]["taints"]) << name;
    if (!a100.count(name)) {
      EXPECT_EQ(state, before[name]) << name << ": a node of a full pool changed";
    }
  }
  EXPECT_NE(after, before);
}

TEST_F(ApplyCommandTest, DryRunAndProposalChangeNothingInTheCluster) {
  StartSim(true);
  const json before = NodeState();
  ApplyArgs dry = Args("Auto", kInsideWindow);
  dry.dry_run = true;
  json out;
  std::string err;
  ASSERT_EQ(Apply(dry, &out, &err), 3) << err;  // what Auto would do: step 1 is flagged and waits
  ASSERT_EQ(out["policies"][0]["steps"].size(), 3u) << out.dump(2);
  EXPECT_EQ(out["policies"][0]["steps"][0]["outcome"], "waiting-approval");
  EXPECT_EQ(out["policies"][0]["steps"][1]["outcome"], "would-run") << "another pool: not held back";
  EXPECT_EQ(out["policies"][0]["steps"][2]["outcome"], "would-run");
  EXPECT_FALSE(std::filesystem::exists(db())) << "--dry-run writes no log";

  ASSERT_EQ(Apply(Args("Proposal", kInsideWindow), &out, &err), 0) << err;
  EXPECT_EQ(NodeState(), before);
  for (const auto& s : out["policies"][0]["steps"]) EXPECT_EQ(s["outcome"], "proposed");
  const auto changes = Changes();
  ASSERT_EQ(changes.size(), 3u);
  for (const auto& c : changes) EXPECT_EQ(c.state, audit::ChangeState::kProposed);
}

TEST_F(ApplyCommandTest, ClosedWindowChangesNothing) {
  StartSim(true);
  const json before = NodeState();
  json out;
  std::string err;
  EXPECT_EQ(Apply(Args("Auto", kOutsideWindow), &out, &err), 3) << err;
  const json& steps = out["policies"][0]["steps"];
  EXPECT_EQ(steps[0]["outcome"], "waiting-approval");  // flagged: a reviewer decides first
  EXPECT_EQ(steps[1]["outcome"], "waiting-window");
  EXPECT_NE(steps[1]["why"].get<std::string>().find("opens at 2026-12-12T02:00:00Z"), std::string::npos)
      << steps[1].dump();
  EXPECT_EQ(NodeState(), before);
}

// Auto takes the clean steps (the spare nodes' pools) and leaves the flagged
// A100 step (a pod without a PodDisruptionBudget must wait Pending) for a
// reviewer; after the approval, Approve mode takes it; a further run changes
// nothing, and a done step reverts.
TEST_F(ApplyCommandTest, AutoThenApprovalsApplyTheDemo) {
  StartSim(true);
  json out;
  std::string err;
  ASSERT_EQ(Apply(Args("Auto", kInsideWindow), &out, &err), 3) << err << out.dump(2);
  json steps = out["policies"][0]["steps"];
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]["outcome"], "waiting-approval") << steps[0].dump();
  EXPECT_EQ(steps[1]["outcome"], "done") << steps[1].dump();
  EXPECT_EQ(steps[2]["outcome"], "done") << steps[2].dump();
  auto node = client_->Get("/api/v1/nodes/spare-h100");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ((*node)["metadata"]["labels"].value("nvidia.com/mig.config.state", ""), "success");
  EXPECT_FALSE((*node)["spec"].value("unschedulable", false));
  // Real kubectl agrees: the node's MIG state, and a moved owner's rollout is complete.
  auto [kc_code, kc_out] = kube::testing::RunCommand("kubectl --kubeconfig " + sim_.token_kubeconfig() +
                                                     " get node spare-h100 -L nvidia.com/mig.config.state "
                                                     "--no-headers 2>&1");
  if (kc_code != 127) {
    EXPECT_EQ(kc_code, 0) << kc_out;
    EXPECT_NE(kc_out.find("success"), std::string::npos) << kc_out;
    auto [rc, rout] = kube::testing::RunCommand("kubectl --kubeconfig " + sim_.token_kubeconfig() +
                                                " -n inference rollout status deployment/llm-8b --timeout=60s 2>&1");
    EXPECT_EQ(rc, 0) << rout;
    EXPECT_NE(rout.find("successfully rolled out"), std::string::npos) << rout;
  }

  Approve(steps[0]["id"]);
  json approved;
  ASSERT_EQ(Apply(Args("Approve", "2026-12-05T02:30:00Z"), &approved, &err), 0) << err << approved.dump(2);
  ASSERT_EQ(approved["policies"][0]["steps"].size(), 1u) << "steps 2 and 3 are done and no longer in the plan";
  EXPECT_EQ(approved["policies"][0]["steps"][0]["outcome"], "done") << approved.dump(2);

  json again;
  ASSERT_EQ(Apply(Args("Auto", "2026-12-05T02:40:00Z"), &again, &err), 0) << err;
  EXPECT_TRUE(again["policies"][0]["steps"].empty()) << again.dump(2);

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
  for (const auto& c : Changes()) EXPECT_EQ(c.state, audit::ChangeState::kDone) << c.id;

  // Revert the H100 step: spare-h100 goes back to MIG off, its owners to whole GPUs.
  RevertArgs r;
  r.id = steps[2]["id"];
  r.kubeconfig = sim_.token_kubeconfig();
  r.audit_db = db();
  r.configmap_sync_seconds = 0;
  std::ostringstream ro, re;
  ASSERT_EQ(RunRevert(r, ro, re), 0) << re.str();
  auto spare = client_->Get("/api/v1/nodes/spare-h100");
  ASSERT_TRUE(spare.ok());
  EXPECT_EQ((*spare)["metadata"]["labels"].value("nvidia.com/mig.config", ""), "all-disabled");
  auto llm = client_->Get("/apis/apps/v1/namespaces/inference/deployments/llm-8b");
  ASSERT_TRUE(llm.ok());
  EXPECT_TRUE((*llm)["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"].contains("nvidia.com/gpu"))
      << (*llm)["spec"]["template"].dump();
  bool reverted = false;
  for (const auto& c : Changes()) reverted = reverted || (c.id == r.id && c.state == audit::ChangeState::kReverted);
  EXPECT_TRUE(reverted);
  // Reverting it again is refused (4, as the README says), nothing changed.
  std::ostringstream ro2, re2;
  EXPECT_EQ(RunRevert(r, ro2, re2), 4) << re2.str();
  EXPECT_NE(re2.str().find("is reverted; only a done change can be reverted"), std::string::npos) << re2.str();
}

TEST_F(ApplyCommandTest, AnotherClustersLogIsRefused) {
  StartSim(true);
  json out;
  std::string err;
  ASSERT_EQ(Apply(Args("Proposal", kInsideWindow), &out, &err), 0) << err;
  kube::testing::SimProcess other;
  json settings = {{"kubeSystemUid", "00000000-0000-0000-0000-00000000beef"}};
  ASSERT_TRUE(other.Start(KUBE_SIM_BINARY, ReadJson(kDemo + "cluster.json"), 120000, settings).ok());
  ApplyArgs a = Args("Auto", kInsideWindow);
  a.plan.kubeconfig = other.token_kubeconfig();
  EXPECT_EQ(Apply(a, &out, &err), 1);
  EXPECT_NE(err.find("belongs to cluster"), std::string::npos) << err;
  for (const auto& c : Changes()) EXPECT_EQ(c.state, audit::ChangeState::kProposed);
}

TEST_F(ApplyCommandTest, TwoAppliesAtOnceOneWaitsForTheOther) {
  StartSim(true);
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

// --audit-db kubernetes: the same run keeps every change and its step log in
// GpuChange objects; a new store instance (another replica, a restart) reads
// them back and the next run resumes from them.
TEST_F(ApplyCommandTest, AutoRecordsEveryStepInTheClustersAuditStore) {
  if (!audit::testing::CanInstallAuditStore()) GTEST_SKIP() << "deploy/crd-gpuchange.yaml or kubectl missing";
  StartSim(true);
  Status installed = audit::testing::InstallAuditStore(sim_.token_kubeconfig(), (dir_ / "kubectl-cache").string());
  ASSERT_TRUE(installed.ok()) << installed.message();
  ApplyArgs a = Args("Auto", kInsideWindow);
  a.audit_db = "kubernetes";
  json out;
  std::string err;
  ASSERT_EQ(Apply(a, &out, &err), 3) << err << out.dump(2);
  json steps = out["policies"][0]["steps"];
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0]["outcome"], "waiting-approval") << steps[0].dump();
  EXPECT_EQ(steps[1]["outcome"], "done") << steps[1].dump();
  EXPECT_EQ(steps[2]["outcome"], "done") << steps[2].dump();
  EXPECT_FALSE(std::filesystem::exists(db()));  // nothing went to a SQLite file

  audit::KubeAuditStore store(*client_, audit::KubeAuditStore::Options());
  auto cluster = store.Cluster();
  ASSERT_TRUE(cluster.ok() && cluster->has_value());
  EXPECT_EQ((*cluster)->server, sim_.url());
  auto changes = store.ListChanges();
  ASSERT_TRUE(changes.ok()) << changes.status().message();
  ASSERT_EQ(changes->size(), 3u);
  std::map<std::string, audit::ChangeState> state;
  for (const auto& c : *changes) state[c.id] = c.state;
  EXPECT_EQ(state[steps[0]["id"]], audit::ChangeState::kProposed);
  EXPECT_EQ(state[steps[1]["id"]], audit::ChangeState::kDone);
  EXPECT_EQ(state[steps[2]["id"]], audit::ChangeState::kDone);
  auto log = store.Log(steps[1]["id"]);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_GE(log->size(), 4u);
  for (size_t i = 1; i < log->size(); ++i) EXPECT_LT((*log)[i - 1].seq, (*log)[i].seq);
  auto object = store.GetObject(steps[1]["id"]);
  ASSERT_TRUE(object.ok() && object->has_value());
  EXPECT_FALSE((**object)["metadata"].contains("ownerReferences"));
  EXPECT_EQ((**object)["metadata"]["labels"][audit::kPolicyLabel], "gpu-sharing");
  auto [rc, listed] = kube::testing::RunCommand("kubectl --kubeconfig " + sim_.token_kubeconfig() + " --cache-dir " +
                                                (dir_ / "kubectl-cache").string() + " get gpuchanges 2>&1");
  EXPECT_EQ(rc, 0) << listed;
  EXPECT_NE(listed.find(steps[2]["id"].get<std::string>()), std::string::npos) << listed;

  json again;
  a.now = "2026-12-05T02:30:00Z";
  ASSERT_EQ(Apply(a, &again, &err), 3) << err;
  ASSERT_EQ(again["policies"][0]["steps"].size(), 1u) << again.dump(2);
  EXPECT_EQ(again["policies"][0]["steps"][0]["id"], steps[0]["id"]);
}

}  // namespace
}  // namespace kubeon::cli

#else
TEST(ApplyCommandTest, RequiresTheSimulator) { GTEST_SKIP() << "kube-sim is not part of this build"; }
#endif
