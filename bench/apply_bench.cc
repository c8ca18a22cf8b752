// Applying the demo on kube-sim, step by step (BENCHMARKS.md section (f)).
//
//   apply_bench                     # kube-sim at 20x real time
//   KUBEON_APPLY_BENCH_TIMESCALE=50 apply_bench
//
// The bundled demo plus spare H100 and A10G nodes (cli/apply_e2e_support.h)
// is served by the kube-sim executable (--log-requests) and applied by the
// real kubeon-gpu binary: `apply --mode Auto` (runs the clean steps, leaves
// the flagged ones), then for each remaining step `approve ID` and
// `apply --mode Approve`, then a last
// `apply` that must find nothing to do.  Per run it prints:
//   step           the change ids the run finished ("-" when none)
//   sim_min        wall seconds of the run x timeScale / 60 (simulated minutes)
//   api_requests   requests kube-sim logged during the run, minus the
//                  watcher's (kube/ready_watcher.h, 3 per 100 ms sample)
//   evicted        successful Eviction API calls (POST .../eviction -> 201)
//   min_slack      lowest ready replicas minus the PDB's allowed minimum over
//                  every PDB-covered owner and sample (>= 0: PDBs held)
//   worst_owner    the owner with that lowest slack, "ready/allowed"
//   pods_lost      after the run settles (120 s real time at most): missing
//                  ready replicas over all Deployments and StatefulSets
// Crash points survived come from apply_crash_test (its last line).
// Exit status 1 if any run fails, a pod is lost or a PDB is breached.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "audit/sqlite_store.h"
#include "apply/apply_e2e_support.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "kube/ready_watcher.h"
#include "kube/sim_process.h"

namespace {

using json = nlohmann::json;
using kubeon::apply::testing::ChildResult;
using kubeon::apply::testing::RunGpu;

const std::string kDemo = std::string(KUBEON_SOURCE_DIR) + "/examples/demo/";

// Request and eviction lines of kube-sim's --log-requests output so far.
struct LogCounts {
  long requests = 0;
  long evictions = 0;
};
LogCounts CountLog(const std::string& path) {
  LogCounts c;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("kube-sim: ", 0) != 0) continue;
    ++c.requests;
    if (line.find("/eviction -> 201") != std::string::npos) ++c.evictions;
  }
  return c;
}

// Missing ready replicas over all owners, polled until 0 or 120 s pass.
int PodsLost(kubeon::kube::KubeClient& client) {
  int missing = 0;
  for (int i = 0; i < 1200; ++i) {
    missing = 0;
    for (const char* path : {"/apis/apps/v1/deployments", "/apis/apps/v1/statefulsets"}) {
      auto l = client.List(path);
      if (!l.ok()) return -1;
      for (const auto& o : l->items) {
        const int want = o["spec"].value("replicas", 1);
        const int ready = o.value("status", json::object()).value("readyReplicas", 0);
        if (ready < want) missing += want - ready;
      }
    }
    if (missing == 0) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return missing;
}

// Ids of the log's changes in `state`, by step index.
std::vector<std::string> ChangesIn(const std::string& db, kubeon::audit::ChangeState state) {
  std::vector<std::pair<int, std::string>> found;
  auto store = kubeon::audit::SqliteAuditStore::Open(db);
  if (!store.ok()) return {};
  auto changes = (*store)->ListChanges();
  if (!changes.ok()) return {};
  for (const auto& ch : *changes) {
    if (ch.state != state) continue;
    const json step = json::parse(ch.step_json, nullptr, false);
    found.emplace_back(step.is_discarded() ? 0 : step.value("index", 0), ch.id);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> ids;
  for (auto& f : found) ids.push_back(f.second);
  return ids;
}

}  // namespace

int main() {
  int time_scale = 20;
  if (const char* t = std::getenv("KUBEON_APPLY_BENCH_TIMESCALE")) time_scale = std::atoi(t);
  kubeon::kube::testing::SimProcess sim;
  const json settings = {{"timeScale", time_scale}, {"configMapSyncDelayMs", 0}};
  kubeon::Status started = sim.Start(KUBE_SIM_BINARY, kubeon::apply::testing::DemoWithSpare(kDemo), 120000, settings,
                                     {"--log-requests"});
  if (!started.ok()) {
    std::cerr << started.message() << "\n";
    return 1;
  }
  kubeon::kube::LoadOptions lo;
  lo.kubeconfig_path = sim.token_kubeconfig();
  auto cfg = kubeon::kube::LoadRestConfig(lo);
  if (!cfg.ok()) return 1;
  auto client = kubeon::kube::KubeClient::Connect(*cfg);
  if (!client.ok()) return 1;
  if (PodsLost(**client) != 0) {
    std::cerr << "the demo's owners never became ready\n";
    return 1;
  }
  const std::filesystem::path dir = sim.dir().path();
  const std::string db = (dir / "audit.db").string();

  std::printf("kube-sim timeScale %d; demo + spare-h100 + spare-a10g\n", time_scale);
  std::printf("%-8s %-9s %-19s %8s %12s %8s %9s  %-40s %9s\n", "run", "mode", "step", "sim_min", "api_requests",
              "evicted", "min_slack", "worst_owner", "pods_lost");
  bool ok = true;
  std::vector<std::string> done_before;
  for (int run = 1; run <= 8; ++run) {
    // Run 1: Auto at 02:10 (step 1).  Later runs approve the next proposed
    // step and apply in Approve mode at 02:20; a run with nothing proposed is the last.
    std::string mode = run == 1 ? "Auto" : "Approve";
    std::string now = run == 1 ? "2026-12-05T02:10:00Z" : "2026-12-05T02:20:00Z";
    std::vector<std::string> proposed = ChangesIn(db, kubeon::audit::ChangeState::kProposed);
    if (run > 1 && !proposed.empty()) {
      const ChildResult a = RunGpu(
          KUBEON_GPU_BINARY, {"approve", proposed.front(), "--kubeconfig", sim.token_kubeconfig(), "--audit-db", db,
                              "--ttl", "1000h"},
          0, dir);
      if (a.exit_code != 0) {
        std::cerr << "approve " << proposed.front() << " failed:\n" << a.err;
        return 1;
      }
    }
    kubeon::kube::testing::ReadyWatcher watcher;
    if (!watcher.Start(sim.token_kubeconfig()).ok()) return 1;
    const LogCounts before = CountLog(sim.stderr_path());
    const auto t0 = std::chrono::steady_clock::now();
    const ChildResult r = RunGpu(
        KUBEON_GPU_BINARY, kubeon::apply::testing::DemoApplyArgs(kDemo, sim.token_kubeconfig(), db, mode, now), 0, dir);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    watcher.Stop();
    const int lost = PodsLost(**client);
    const LogCounts after = CountLog(sim.stderr_path());
    std::string step = "-";
    std::vector<std::string> done = ChangesIn(db, kubeon::audit::ChangeState::kDone);
    for (const auto& id : done) {  // the steps this run finished
      if (std::find(done_before.begin(), done_before.end(), id) != done_before.end()) continue;
      step = step == "-" ? id : step + "," + id;
    }
    done_before = done;
    int min_slack = 1 << 30;
    std::string worst = "-";
    for (const auto& [name, o] : watcher.owners()) {
      if (o.pdb.empty() || o.worst_slack >= min_slack) continue;
      min_slack = o.worst_slack;
      worst = name + " " + std::to_string(o.min_ready) + "/" + std::to_string(o.allowed);
    }
    std::printf("%-8d %-9s %-19s %8.1f %12ld %8ld %9d  %-40s %9d\n", run, mode.c_str(), step.c_str(),
                wall * time_scale / 60.0, after.requests - before.requests - watcher.requests(),
                after.evictions - before.evictions, min_slack, worst.c_str(), lost);
    std::fflush(stdout);
    if (lost != 0 || min_slack < 0) ok = false;  // reported in the table; the next step still runs
    if (r.signaled || (r.exit_code != 0 && r.exit_code != 3)) {
      std::cerr << "run " << run << " exit " << r.exit_code << ":\n" << r.err;
      ok = false;
      break;
    }
    if (step == "-" && r.exit_code == 0) break;  // nothing left to do
  }
  return ok ? 0 : 1;
}
