// The phases of `kubeon-gpu plan --cluster DIR/cluster.json --metrics
// DIR/history.om --policy DIR/policy.yaml --prices DIR/prices.yaml -o FORMAT`
// timed one by one, in one process, through the same library calls the
// command makes (model::LoadClusterFile, metrics::ReadHistoryFile,
// plan::MakePlan, cli::RenderJson / RenderYaml / RenderTable):
//
//   plan_phases_bench DIR [json|yaml|table] [repetitions] [threads] [parse-threads]
//
// DIR is gen-cluster's output (e.g. `gen-cluster --preset scale --nodes 10000
// --out DIR`).  Per repetition and phase it prints CPU seconds (the process'
// CPU clock: all threads), wall seconds and the peak RSS so far; then the
// median of each over the repetitions.  `threads` sets
// IngestOptions::threads (0 = the machine's, the default; 1 = one thread);
// `parse-threads` the snapshot reader's threads (LoadClusterFile's; 1, the
// default, where the tree has no such argument).
// Only public calls that exist since the first release are used, so the same
// file builds against an older tree for a baseline in the same run.  It is
// linked with kubeon-gpu's allocator (jemalloc when installed, CMakeLists.txt).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "cli/report.h"
#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "model/snapshot_json.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace {

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "plan_phases_bench: %s\n", message.c_str());
  std::exit(1);
}

struct Sample {
  double cpu = 0, wall = 0;
};

// IngestOptions::threads where the tree has it (older trees read with one thread).
template <typename Options>
void SetThreads(Options& o, unsigned threads) {
  if constexpr (requires { o.threads; }) {
    o.threads = threads;
  } else if (threads != 1) {
    Die("this tree reads history with one thread only (no IngestOptions::threads)");
  }
}

// LoadClusterFile on `threads` threads where the tree has the argument.
template <typename Path>
auto LoadCluster(const Path& path, int threads) {
  if constexpr (requires { kubeon::model::LoadClusterFile(path, threads); }) {
    return kubeon::model::LoadClusterFile(path, threads);
  } else {
    if (threads != 1) Die("this tree parses the snapshot with one thread only");
    return kubeon::model::LoadClusterFile(path);
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: plan_phases_bench DIR [json|yaml|table] [repetitions] [threads] [parse-threads]");
  const std::string dir = argv[1];
  const std::string format = argc > 2 ? argv[2] : "json";
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  kubeon::metrics::IngestOptions ingest;
  if (argc > 4) SetThreads(ingest, static_cast<unsigned>(std::atoi(argv[4])));
  const int parse_threads = argc > 5 ? std::atoi(argv[5]) : 1;
  const auto& catalog = kubeon::mig::MigCatalog::Builtin();
  auto policies = kubeon::policy::LoadPolicyFile(dir + "/policy.yaml",
                                                 [&](std::string_view p) { return catalog.ProfileExists(p); });
  if (!policies.ok()) Die(policies.status().message());
  auto prices = kubeon::model::LoadPricesFile(dir + "/prices.yaml");
  if (!prices.ok()) Die(prices.status().message());
  kubeon::plan::PlannerOptions options;
  options.instance_prices_usd = *prices;

  const char* kPhases[] = {"parse", "ingest", "plan", "output", "total"};
  std::map<std::string, std::vector<double>> cpu, wall;
  for (int r = 0; r < reps; ++r) {
    std::vector<Sample> s;
    auto mark = [&] { s.push_back({CpuSeconds(), WallSeconds()}); };
    mark();
    auto cluster = LoadCluster(dir + "/cluster.json", parse_threads);
    if (!cluster.ok()) Die(cluster.status().message());
    mark();
    const double rss_parse = PeakRssMb();
    auto history = kubeon::metrics::ReadHistoryFile(dir + "/history.om", ingest);
    if (!history.ok()) Die(history.status().message());
    mark();
    const double rss_ingest = PeakRssMb();
    std::vector<kubeon::plan::Plan> plans = {
        kubeon::plan::MakePlan(*cluster, *history, policies->front(), catalog, options).value()};
    mark();
    const double rss_plan = PeakRssMb();
    const std::string text = format == "json"   ? kubeon::cli::RenderJson(plans)
                             : format == "yaml" ? kubeon::cli::RenderYaml(plans)
                                                : kubeon::cli::RenderTable(plans);
    mark();
    const double rss_output = PeakRssMb();
    std::printf("rep %d:", r + 1);
    for (size_t i = 0; i < 4; ++i) {
      cpu[kPhases[i]].push_back(s[i + 1].cpu - s[i].cpu);
      wall[kPhases[i]].push_back(s[i + 1].wall - s[i].wall);
      std::printf(" %s %.3f cpu %.3f wall;", kPhases[i], s[i + 1].cpu - s[i].cpu, s[i + 1].wall - s[i].wall);
    }
    cpu["total"].push_back(s[4].cpu - s[0].cpu);
    wall["total"].push_back(s[4].wall - s[0].wall);
    std::printf(" total %.3f cpu %.3f wall; peak RSS MB after parse %.0f ingest %.0f plan %.0f output %.0f; %zu output bytes\n",
                s[4].cpu - s[0].cpu, s[4].wall - s[0].wall, rss_parse, rss_ingest, rss_plan, rss_output, text.size());
    std::fflush(stdout);
  }
  std::printf("median of %d (%s):", reps, format.c_str());
  for (const char* p : kPhases) std::printf(" %s %.3f cpu / %.3f wall;", p, Median(cpu[p]), Median(wall[p]));
  std::printf("\n");
  return 0;
}
