// Cluster snapshot: kubeon-gpu's client against kubectl, both reading the
// same kube-sim serving a generated cluster (default 5,000 GPU nodes and
// 40,000 pods in 1,000 Deployments; override with the environment variables
// KUBEON_SNAPSHOT_BENCH_NODES and KUBEON_SNAPSHOT_BENCH_PODS).
//
//   BM_SnapshotKubeon   FetchSnapshotText + FormatSnapshotText + atomic file write
//                       (what `kubeon-gpu snapshot -o FILE` does)
//   BM_SnapshotKubectl  kubectl get nodes,pods,poddisruptionbudgets,
//                       deployments,statefulsets,replicasets -A -o json > FILE
//                       (request count from its -v=6 log)
// Counters: requests (HTTP requests per snapshot), items, MB written.
// Needs the kube-sim executable (KUBE_SIM_BINARY, set by src/kube/sources.cmake)
// and kubectl on PATH; a missing one is reported with SkipWithError.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include "kube/client.h"
#include "kube/sim_process.h"
#include "kube/snapshot.h"

namespace {

using kubeon::kube::testing::RunCommand;
using kubeon::kube::testing::SimClusterShape;
using kubeon::kube::testing::SimProcess;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

[[maybe_unused]] SimClusterShape Shape() {
  SimClusterShape s;
  s.nodes = EnvInt("KUBEON_SNAPSHOT_BENCH_NODES", 5000);
  s.pods_per_deployment = 40;
  s.deployments = (EnvInt("KUBEON_SNAPSHOT_BENCH_PODS", 40000) - 3) / s.pods_per_deployment;
  return s;
}

// The simulator, started on first use and kept for every benchmark; main()
// stops it.
std::unique_ptr<SimProcess> g_sim;
std::string g_sim_error;

SimProcess* Sim(std::string* error) {
#ifndef KUBE_SIM_BINARY
  *error = "kube-sim is not part of this build";
  return nullptr;
#else
  if (g_sim == nullptr && g_sim_error.empty()) {
    auto sim = std::make_unique<SimProcess>();
    kubeon::Status st = sim->Start(KUBE_SIM_BINARY, kubeon::kube::testing::MakeSimCluster(Shape()), 600000);
    if (st.ok()) {
      g_sim = std::move(sim);
    } else {
      g_sim_error = st.message();
    }
  }
  *error = g_sim_error;
  return g_sim.get();
#endif
}

void BM_SnapshotKubeon(benchmark::State& state) {
  std::string error;
  SimProcess* sim = Sim(&error);
  if (sim == nullptr) return state.SkipWithError(error.c_str());
  kubeon::kube::LoadOptions load;
  load.kubeconfig_path = sim->token_kubeconfig();
  auto config = kubeon::kube::LoadRestConfig(load);
  if (!config.ok()) return state.SkipWithError(config.status().message().c_str());
  const std::string out = sim->dir().File("kubeon-snapshot.json");
  double requests = 0, items = 0, bytes = 0;
  for (auto _ : state) {
    auto client = kubeon::kube::KubeClient::Connect(*config);
    if (!client.ok()) return state.SkipWithError(client.status().message().c_str());
    size_t listed = 0;
    auto snapshot = kubeon::kube::FetchSnapshotText(**client, [&](const kubeon::kube::SnapshotProgress& p) {
      if (p.done) listed += p.items;
    });
    if (!snapshot.ok()) return state.SkipWithError(snapshot.status().message().c_str());
    const std::string text = kubeon::kube::FormatSnapshotText(*snapshot);
    kubeon::Status s = kubeon::kube::WriteFileAtomically(out, text);
    if (!s.ok()) return state.SkipWithError(s.message().c_str());
    requests = static_cast<double>((*client)->requests());
    items = static_cast<double>(listed);
    bytes = static_cast<double>(text.size());
  }
  state.counters["requests"] = requests;
  state.counters["items"] = items;
  state.counters["MB"] = bytes / 1e6;
}

void BM_SnapshotKubectl(benchmark::State& state) {
  std::string error;
  SimProcess* sim = Sim(&error);
  if (sim == nullptr) return state.SkipWithError(error.c_str());
  auto [found, kubectl] = RunCommand("command -v kubectl");
  if (found != 0) return state.SkipWithError("kubectl is not installed");
  while (!kubectl.empty() && kubectl.back() == '\n') kubectl.pop_back();
  const std::string out = sim->dir().File("kubectl-snapshot.json");
  const std::string log = sim->dir().File("kubectl.log");
  const std::string command = kubectl + " --kubeconfig " + sim->token_kubeconfig() +
                              " get nodes,pods,poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json"
                              " -v=6 >" + out + " 2>" + log;
  double requests = 0, bytes = 0;
  for (auto _ : state) {
    auto [code, ignored] = RunCommand(command);
    if (code != 0) return state.SkipWithError(("kubectl failed; see " + log).c_str());
    state.PauseTiming();
    // -v=6 logs one line per request: `... "Response" verb="GET" url="https://..." status="200 OK" ...`
    // (older kubectl: `GET https://... 200 OK in N milliseconds`).
    auto [c1, n] = RunCommand("grep -c -E 'verb=\"GET\"|] GET https://' " + log);
    requests = std::atof(n.c_str());
    bytes = static_cast<double>(kubeon::kube::testing::ReadText(out).size());
    state.ResumeTiming();
  }
  state.counters["requests"] = requests;
  state.counters["MB"] = bytes / 1e6;
}

BENCHMARK(BM_SnapshotKubeon)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_SnapshotKubectl)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_sim.reset();  // SIGTERM to the simulator started above
  return 0;
}
