// Planner throughput on one core: kubeon::plan::MakePlan over a synthetic
// cluster built in memory by gen-cluster's scale preset (no files, no
// parsing), 8 GPUs per node, 60-80% of the GPUs held, mostly by 1-GPU pods,
// and one sample per hour over 3 days for every GPU series.
//
//   plan_bench                                  # 1,000 and 10,000 nodes
//   plan_bench --benchmark_filter=/10000        # the 80,000-GPU cluster only
//   plan_bench --benchmark_filter=MakePlanFull  # every GPU held, one Deployment each (gen-cluster --preset full)
//
//   plan_bench --benchmark_filter=BM_MigPools   # the MIG packer alone, per pool (and best fit)
//
// Each size is generated once (cached across benchmarks and repetitions).
// Counters per run:
//   nodes, gpus                 cluster size
//   gpu_pods                    pods holding whole GPUs
//   gpus_before, gpus_after     plan.summary: GPUs held before and after
//   moved_gpus_after            GPUs used by the workloads the plan moves
//   gpus_lower_bound      plan.summary's lower bound for them
//   moved_vs_bound              moved_gpus_after / gpus_lower_bound (1.0 = optimal)
//   nodes_freed, workloads_moved
//   schedule_steps              steps of the migration order (0 when infeasible)
//   spare_gpus_needed           whole spare GPUs the order lacks (0 when feasible)
//   setup_s                     time to build the cluster and history in memory
//   peak_rss_mb                 getrusage ru_maxrss of the process (fixture included)
// BM_MigPools repacks, per GPU model, every MIG slice of the plan (the
// planner packs one pool per model) and times MigPacker::Pack alone:
//   pools, slices               pools (models) and slices packed
//   gpus_lp_bound               sum over pools of ceil(LP bound)
//   gpus_exact                  MigPacker::Pack (exact / LP rounding + repair)
//   gpus_best_fit               MigPacker::PackBestFit (the previous method), same run
//   best_fit_vs_exact           gpus_best_fit / gpus_exact
//   max_over_bound              worst pool: GPUs of Pack minus ceil(LP bound)
// BM_MigPoolsBestFit times PackBestFit on the same pools.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gen-cluster/synthetic.h"
#include "mig/catalog.h"
#include "model/prices.h"
#include "plan/cutting_stock.h"
#include "plan/mig_packer.h"
#include "plan/planner.h"
#include "policy/gpu_policy.h"

namespace {

namespace gc = kubeon::gencluster;

struct Fixture {
  gc::InMemory data;
  kubeon::policy::GpuPolicy policy;
  kubeon::plan::PlannerOptions options;
  int nodes = 0;
  int gpus = 0;
  int gpu_pods = 0;
  double setup_seconds = 0;
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "plan_bench: %s\n", message.c_str());
  std::exit(1);
}

// REQUIRES: preset is kScale or kFull.
const Fixture& GetFixture(int nodes, gc::Preset preset = gc::Preset::kScale) {
  static std::map<std::pair<int, gc::Preset>, std::unique_ptr<Fixture>> cache;
  auto it = cache.find({nodes, preset});
  if (it != cache.end()) return *it->second;
  const auto t0 = std::chrono::steady_clock::now();
  gc::Options o;
  o.preset = preset;
  o.nodes = nodes;
  o.gpus_per_node = 8;
  o.history_samples = 73;  // hourly over 3 days
  kubeon::Result<gc::SyntheticCluster> c = gc::Generate(o);
  if (!c.ok()) Die(c.status().message());
  auto f = std::make_unique<Fixture>();
  f->data = gc::BuildInMemory(*c);
  const kubeon::mig::MigCatalog& catalog = kubeon::mig::MigCatalog::Builtin();
  auto policies = kubeon::policy::ParsePolicies(gc::PolicyYaml(*c), "policy.yaml",
                                                [&](std::string_view p) { return catalog.ProfileExists(p); });
  if (!policies.ok()) Die(policies.status().message());
  f->policy = policies->front();
  auto prices = kubeon::model::ParsePrices(gc::PricesYaml(*c), "prices.yaml");
  if (!prices.ok()) Die(prices.status().message());
  f->options.instance_prices_usd = *prices;
  f->nodes = static_cast<int>(c->nodes.size());
  for (const auto& n : c->nodes) f->gpus += c->InstanceOf(n).gpus;
  for (const auto& p : f->data.cluster.pods) f->gpu_pods += p.gpus > 0 ? 1 : 0;
  f->setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return *cache.emplace(std::make_pair(nodes, preset), std::move(f)).first->second;
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: KiB
}

void MakePlanOn(benchmark::State& state, const Fixture& f) {
  const kubeon::mig::MigCatalog& catalog = kubeon::mig::MigCatalog::Builtin();
  kubeon::plan::Summary summary;
  size_t steps = 0;
  int spare_gpus = 0;
  for (auto _ : state) {
    kubeon::plan::Plan plan = kubeon::plan::MakePlan(f.data.cluster, f.data.history, f.policy, catalog, f.options).value();
    summary = plan.summary;
    steps = plan.schedule.steps.size();
    spare_gpus = 0;
    for (const auto& [model, n] : plan.schedule.spare_gpus_needed) spare_gpus += n;
    benchmark::DoNotOptimize(plan);
  }
  state.counters["nodes"] = f.nodes;
  state.counters["gpus"] = f.gpus;
  state.counters["gpu_pods"] = f.gpu_pods;
  state.counters["gpus_before"] = summary.gpus_before;
  state.counters["gpus_after"] = summary.gpus_after;
  state.counters["moved_gpus_after"] = summary.moved_gpus_after;
  state.counters["gpus_lower_bound"] = summary.gpus_lower_bound;
  state.counters["moved_vs_bound"] =
      summary.gpus_lower_bound > 0
          ? static_cast<double>(summary.moved_gpus_after) / summary.gpus_lower_bound
          : 0.0;
  state.counters["nodes_freed"] = summary.nodes_freed;
  state.counters["workloads_moved"] = summary.workloads_to_mig + summary.workloads_to_time_slicing;
  state.counters["schedule_steps"] = static_cast<double>(steps);
  state.counters["spare_gpus_needed"] = spare_gpus;
  state.counters["setup_s"] = f.setup_seconds;
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_MakePlan(benchmark::State& state) { MakePlanOn(state, GetFixture(static_cast<int>(state.range(0)))); }

// The full preset: every GPU held by a single-replica Deployment (the shape
// of the planner crash fixed in issue 32; no migration order fits).
void BM_MakePlanFull(benchmark::State& state) {
  MakePlanOn(state, GetFixture(static_cast<int>(state.range(0)), gc::Preset::kFull));
}

// Per GPU model, the profile index of every MIG slice the plan creates.
std::map<std::string, std::vector<int>> MigPools(int nodes) {
  static std::map<int, std::map<std::string, std::vector<int>>> cache;
  auto it = cache.find(nodes);
  if (it != cache.end()) return it->second;
  const Fixture& f = GetFixture(nodes);
  const kubeon::mig::MigCatalog& catalog = kubeon::mig::MigCatalog::Builtin();
  const kubeon::plan::Plan plan = kubeon::plan::MakePlan(f.data.cluster, f.data.history, f.policy, catalog, f.options).value();
  std::map<std::string, std::vector<int>> pools;
  for (const auto& node : plan.nodes) {
    const kubeon::mig::GpuModel* model = catalog.FindModel(node.gpu_model);
    if (model == nullptr) continue;
    for (const auto& gpu : node.gpus) {
      if (!gpu.mig_enabled) continue;
      for (const std::string& p : gpu.mig_devices) pools[model->id].push_back(kubeon::mig::ProfileIndex(*model, p));
    }
  }
  return cache.emplace(nodes, std::move(pools)).first->second;
}

void BM_MigPools(benchmark::State& state) {
  const std::map<std::string, std::vector<int>> pools = MigPools(static_cast<int>(state.range(0)));
  const kubeon::mig::MigCatalog& catalog = kubeon::mig::MigCatalog::Builtin();
  int slices = 0, bound = 0, exact = 0, max_over = 0;
  for (auto _ : state) {
    slices = bound = exact = max_over = 0;
    for (const auto& [id, items] : pools) {
      kubeon::plan::MigPacker packer(*catalog.FindModel(id));
      const int used = static_cast<int>(packer.Pack(items).size());
      const int lb = kubeon::plan::CeilBound(packer.last_lp_bound());
      slices += static_cast<int>(items.size());
      bound += lb;
      exact += used;
      max_over = std::max(max_over, used - lb);
    }
  }
  int best_fit = 0;  // outside the timed loop
  for (const auto& [id, items] : pools) {
    kubeon::plan::MigPacker packer(*catalog.FindModel(id));
    best_fit += static_cast<int>(packer.PackBestFit(items).size());
  }
  state.counters["pools"] = static_cast<double>(pools.size());
  state.counters["slices"] = slices;
  state.counters["gpus_lp_bound"] = bound;
  state.counters["gpus_exact"] = exact;
  state.counters["gpus_best_fit"] = best_fit;
  state.counters["best_fit_vs_exact"] = exact > 0 ? static_cast<double>(best_fit) / exact : 0.0;
  state.counters["max_over_bound"] = max_over;
}
BENCHMARK(BM_MigPools)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

// The previous method on the same pools, for the time comparison.
void BM_MigPoolsBestFit(benchmark::State& state) {
  const std::map<std::string, std::vector<int>> pools = MigPools(static_cast<int>(state.range(0)));
  const kubeon::mig::MigCatalog& catalog = kubeon::mig::MigCatalog::Builtin();
  int used = 0;
  for (auto _ : state) {
    used = 0;
    for (const auto& [id, items] : pools) {
      kubeon::plan::MigPacker packer(*catalog.FindModel(id));
      used += static_cast<int>(packer.PackBestFit(items).size());
    }
  }
  state.counters["gpus_best_fit"] = used;
}
BENCHMARK(BM_MigPoolsBestFit)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

BENCHMARK(BM_MakePlan)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_MakePlanFull)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
