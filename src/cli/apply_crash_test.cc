// Crash points end to end: the real `kubeon-gpu` binary (KUBEON_GPU_BINARY)
// applies the bundled demo plus spare H100 and A10G nodes (examples/demo;
// the spares make an order fit) on kube-sim.  Each run first records the plan
// (`--mode Proposal`) and approves its step 1 (the A100 step: evictions, MIG
// reconfiguration, five owners moved) with the real `kubeon-gpu approve`;
// `--mode Approve` then runs step 1 only (steps 2 and 3 wait for approval,
// exit 3), so the crash points are the writes of step 1.  Run 0 is the
// reference: no crash.  Run N >= 1 SIGKILLs the process right after its N-th
// successful cluster write (the test-only kubeon-gpu-crashpoint with
// KUBEON_CRASHPOINT_AFTER_WRITES=N, src/cli/crashpoint_main.cc); every write up to 12 is a crash point, then every
// 3rd, until a run finishes without crashing.  The dead process still holds
// the policy's Lease (apply/lease.h): an immediate restart must be refused;
// the test then ages the Lease's renewTime past its 60 s duration (the
// wall-clock wait a real operator sees) and `apply` runs again without the
// variable: it finishes (a crash during the owners' move) or rolls back the
// half-done step (exit 3, or 4 when it rolled back).  After each run the test
// checks:
//  - no node carries the gpu.kubeon.io/step taint or the cordoned-by
//    annotation, or is unschedulable unless it was before;
//  - no Deployment/StatefulSet's ready replicas fell below what its PDB
//    allows at any sample (kube/ready_watcher.h, every 100 ms, both runs);
//  - no pod lost: every owner ends with all its replicas ready;
//  - the audit log matches the cluster: no change left running or failed, a
//    `done` change's nodes carry its labels_after, a `rolled-back` change's
//    nodes do not carry its nvidia.com/mig.config target.
// (Revert is tested by apply_command_test and step_runner_test.)
// One kube-sim per crash point, 30x real time.  CTest label "long".
#include <gtest/gtest.h>

#if defined(KUBE_SIM_BINARY) && defined(KUBEON_GPU_BINARY) && defined(KUBEON_GPU_CRASHPOINT_BINARY)

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "apply/rfc3339.h"
#include "audit/sqlite_store.h"
#include "apply/apply_e2e_support.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/ready_watcher.h"
#include "kube/sim_process.h"

namespace kubeon::cli {
namespace {

using json = nlohmann::json;

const std::string kDemo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";
const char *kStep1Time = "2026-12-05T02:10:00Z";  // Saturday: the demo's window is open

class ApplyCrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("apply_crash_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> ApplyArgs(const std::string &kubeconfig, const std::string &db) {
    return apply::testing::DemoApplyArgs(kDemo, kubeconfig, db, "Approve", kStep1Time);
  }

  // Records the plan (Proposal) and approves its step 1 (the A100 step, with
  // evictions) with the real `kubeon-gpu approve`; steps 2 and 3 stay waiting.
  void ApproveStep1(const std::string &kubeconfig, const std::string &db) {
    const apply::testing::ChildResult proposed = apply::testing::RunGpu(
        KUBEON_GPU_BINARY, apply::testing::DemoApplyArgs(kDemo, kubeconfig, db, "Proposal", kStep1Time), 0, dir_);
    ASSERT_EQ(proposed.exit_code, 0) << proposed.err;
    auto store = audit::SqliteAuditStore::Open(db);
    ASSERT_TRUE(store.ok());
    auto changes = (*store)->ListChanges();
    ASSERT_TRUE(changes.ok());
    std::string id;
    for (const auto &ch : *changes) {
      if (json::parse(ch.step_json).value("index", 0) == 1) id = ch.id;
    }
    store->reset();
    ASSERT_FALSE(id.empty());
    const apply::testing::ChildResult approved = apply::testing::RunGpu(
        KUBEON_GPU_BINARY, {"approve", id, "--kubeconfig", kubeconfig, "--audit-db", db, "--ttl", "1000h"}, 0, dir_);
    ASSERT_EQ(approved.exit_code, 0) << approved.err;
  }

  std::filesystem::path dir_;
};

json ListItems(kube::KubeClient &c, const std::string &path) {
  auto l = c.List(path);
  EXPECT_TRUE(l.ok()) << path;
  return l.ok() ? l->items : json::array();
}

// Polls until every owner has all its replicas ready (generous: 120 s real
// time).
::testing::AssertionResult AllOwnersReady(kube::KubeClient &c) {
  std::string missing;
  for (int i = 0; i < 1200; ++i) {
    missing.clear();
    for (const char *path : {"/apis/apps/v1/deployments", "/apis/apps/v1/statefulsets"}) {
      for (const auto &o : ListItems(c, path)) {
        const int want = o["spec"].value("replicas", 1);
        const int ready = o.value("status", json::object()).value("readyReplicas", 0);
        if (ready < want) {
          missing += " " + o["metadata"].value("name", "") + " " + std::to_string(ready) + "/" + std::to_string(want);
        }
      }
    }
    if (missing.empty()) return ::testing::AssertionSuccess();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return ::testing::AssertionFailure() << "owners not ready:" << missing;
}

// `cordoned_before`: nodes already unschedulable before apply ran.
void ExpectNoNodeHeldByUs(kube::KubeClient &c, const std::set<std::string> &cordoned_before, int n) {
  for (const auto &node : ListItems(c, "/api/v1/nodes")) {
    const std::string name = node["metadata"]["name"];
    if (cordoned_before.count(name)) continue;
    for (const auto &t : node["spec"].value("taints", json::array())) {
      EXPECT_NE(t.value("key", ""), "gpu.kubeon.io/step") << "crash point " << n << " node " << name;
    }
    EXPECT_FALSE(node["spec"].value("unschedulable", false)) << "crash point " << n << " node " << name;
    EXPECT_FALSE(node["metadata"].value("annotations", json::object()).contains("gpu.kubeon.io/cordoned-by"))
        << "crash point " << n << " node " << name;
  }
}

std::set<std::string> CordonedNodes(kube::KubeClient &c) {
  std::set<std::string> out;
  for (const auto &node : ListItems(c, "/api/v1/nodes")) {
    if (node["spec"].value("unschedulable", false)) out.insert(node["metadata"]["name"].get<std::string>());
  }
  return out;
}

json NodeLabels(kube::KubeClient &c) {
  json out = json::object();
  for (const auto &node : ListItems(c, "/api/v1/nodes")) {
    out[node["metadata"]["name"].get<std::string>()] = node["metadata"].value("labels", json::object());
  }
  return out;
}

struct LogSummary {
  std::string done_step1;  // id of the done change with index 1, "" if none
  int rolled_back = 0;     // changes in state rolled-back
};

// The audit log's change states against the nodes' labels.
LogSummary ExpectLogMatchesCluster(kube::KubeClient &c, const std::string &db, int n) {
  LogSummary summary;
  auto store = audit::SqliteAuditStore::Open(db);
  EXPECT_TRUE(store.ok());
  if (!store.ok()) return summary;
  auto changes = (*store)->ListChanges();
  EXPECT_TRUE(changes.ok());
  if (!changes.ok()) return summary;
  const json labels = NodeLabels(c);
  for (const auto &ch : *changes) {
    const json step = json::parse(ch.step_json, nullptr, false);
    EXPECT_NE(ch.state, audit::ChangeState::kFailed) << "crash point " << n << " " << ch.id << ": " << ch.reason;
    EXPECT_NE(ch.state, audit::ChangeState::kRunning) << "crash point " << n << " " << ch.id;
    if (step.is_discarded()) continue;
    const json labels_after = step.value("labels_after", json::object());
    for (const auto &[node, want] : labels_after.items()) {
      if (!labels.contains(node)) continue;
      if (ch.state == audit::ChangeState::kDone) {
        for (const auto &[k, v] : want.items()) {
          EXPECT_EQ(labels[node].value(k, ""), v)
              << "crash point " << n << " done " << ch.id << " " << node << " " << k;
        }
      } else if (ch.state == audit::ChangeState::kRolledBack && want.contains("nvidia.com/mig.config")) {
        EXPECT_NE(labels[node].value("nvidia.com/mig.config", ""), want["nvidia.com/mig.config"])
            << "crash point " << n << " rolled-back " << ch.id << " " << node;
      }
    }
    if (ch.state == audit::ChangeState::kDone && step.value("index", 0) == 1) summary.done_step1 = ch.id;
    if (ch.state == audit::ChangeState::kRolledBack) ++summary.rolled_back;
  }
  return summary;
}

// Whether the log's running change got to step 7 (an owner patch was
// intended) before the SIGKILL.
bool ReachedOwnersPhase(const std::string& db) {
  auto store = audit::SqliteAuditStore::Open(db);
  if (!store.ok()) return false;
  auto changes = (*store)->ListChanges();
  if (!changes.ok()) return false;
  for (const auto& ch : *changes) {
    if (ch.state != audit::ChangeState::kRunning) continue;
    auto log = (*store)->Log(ch.id);
    if (!log.ok()) continue;
    for (const auto& e : *log) {
      if (e.outcome == "intent" && e.action == "patch-owner") return true;
    }
  }
  return false;
}

// Moves the policy Lease's renewTime back past its duration, as if the
// SIGKILLed holder had been gone for over a minute.
void ExpireLease(kube::KubeClient &c) {
  const std::string path =
      "/apis/coordination.k8s.io/v1/namespaces/"
      "kube-system/leases/kubeon-gpu-gpu-sharing";
  auto lease = c.Get(path);
  ASSERT_TRUE(lease.ok());
  json l = *lease;
  const int duration = l["spec"].value("leaseDurationSeconds", 60);
  l["spec"]["renewTime"] =
      apply::FormatMicroTime(std::chrono::system_clock::now() - std::chrono::seconds(duration + 1));
  ASSERT_TRUE(c.Update(path, l).ok());
}

TEST_F(ApplyCrashTest, EveryWriteOfStepOneSurvivesASigkill) {
  const json cluster = apply::testing::DemoWithSpare(kDemo);
  const json settings = {{"timeScale", 30}, {"configMapSyncDelayMs", 0}};
  int survived = 0, resumed_points = 0, rolled_back_points = 0;
  bool finished = false;
  int owners_phase_from = 0;  // first crash point inside the owners' move (finished on resume)
  for (int n = 0; n <= 200 && !finished; n += (n < 12 ? 1 : 3)) {
    SCOPED_TRACE("crash point " + std::to_string(n));
    kube::testing::SimProcess sim;
    ASSERT_TRUE(sim.Start(KUBE_SIM_BINARY, cluster, 120000, settings).ok());
    kube::LoadOptions lo;
    lo.kubeconfig_path = sim.token_kubeconfig();
    auto cfg = kube::LoadRestConfig(lo);
    ASSERT_TRUE(cfg.ok());
    auto connected = kube::KubeClient::Connect(*cfg);
    ASSERT_TRUE(connected.ok());
    kube::KubeClient &client = **connected;
    ASSERT_TRUE(AllOwnersReady(client));
    const std::set<std::string> cordoned_before = CordonedNodes(client);

    const std::string db = (dir_ / ("audit-" + std::to_string(n) + ".db")).string();
    ApproveStep1(sim.token_kubeconfig(), db);
    kube::testing::ReadyWatcher watcher;
    ASSERT_TRUE(watcher.Start(sim.token_kubeconfig()).ok());
    const apply::testing::ChildResult first =
        apply::testing::RunGpu(KUBEON_GPU_CRASHPOINT_BINARY, ApplyArgs(sim.token_kubeconfig(), db), n, dir_);
    int second_exit = -1;
    if (!first.signaled) {
      // No crash point (n = 0) or the run had fewer than n writes: it
      // finished; step 1 done, step 2 waits for approval.
      finished = n > 0;
      EXPECT_EQ(first.exit_code, 3) << first.err;
    } else {
      ASSERT_EQ(first.signal, SIGKILL) << first.err;
      if (ReachedOwnersPhase(db) && owners_phase_from == 0) owners_phase_from = n;
      // The dead process still holds the policy's Lease: a restart is refused
      // until it expires (60 s of wall clock), then takes it over.
      const apply::testing::ChildResult refused =
          apply::testing::RunGpu(KUBEON_GPU_BINARY, ApplyArgs(sim.token_kubeconfig(), db), 0, dir_);
      EXPECT_EQ(refused.exit_code, 1) << refused.err;
      EXPECT_NE(refused.err.find("is being changed by"), std::string::npos) << refused.err;
      ExpireLease(client);
      const apply::testing::ChildResult second =
          apply::testing::RunGpu(KUBEON_GPU_BINARY, ApplyArgs(sim.token_kubeconfig(), db), 0, dir_);
      EXPECT_FALSE(second.signaled);
      // 0/3: the step was finished (then step 2 waits for approval); 4: it was
      // rolled back.
      EXPECT_TRUE(second.exit_code == 0 || second.exit_code == 3 || second.exit_code == 4) << second.exit_code << "\n"
                                                                                           << second.err;
      second_exit = second.exit_code;
      ++survived;
    }
    EXPECT_TRUE(AllOwnersReady(client));
    watcher.Stop();
    EXPECT_GT(watcher.samples(), 0);
    for (const auto &v : watcher.Violations()) ADD_FAILURE() << "crash point " << n << ": " << v;
    ExpectNoNodeHeldByUs(client, cordoned_before, n);
    const LogSummary log = ExpectLogMatchesCluster(client, db, n);
    const std::string &step1 = log.done_step1;
    if (second_exit == 4) {
      EXPECT_GT(log.rolled_back, 0) << "crash point " << n << ": exit 4 without a rolled-back change";
    }
    if (finished || second_exit != 4) {
      EXPECT_FALSE(step1.empty()) << "crash point " << n << ": step 1 is not done";
    }
    if (step1.empty()) {
      ++rolled_back_points;
      continue;
    }
    ++resumed_points;
  }
  EXPECT_TRUE(finished) << "the run never finished without crashing";
  EXPECT_GT(owners_phase_from, 0) << "no crash point fell in the owners' move";
  std::cout << "crash points from " << owners_phase_from << " on fell in the owners' move (finished on resume)\n";
  std::cout << "crash points survived: " << survived << " (step 1 finished after " << resumed_points
            << ", rolled back after " << rolled_back_points << ")\n";
  RecordProperty("crash_points_survived", survived);
}

}  // namespace
}  // namespace kubeon::cli

#else
TEST(ApplyCrashTest, RequiresTheSimulatorAndTheBinary) { GTEST_SKIP() << "kube-sim or kubeon-gpu is not built"; }
#endif
