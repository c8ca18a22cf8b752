// See plan_properties.h.
#include "plan/plan_properties.h"

#include <map>

#include "plan/plan_invariants.h"
#include "plan/planner.h"
#include "plan/schedule_checker.h"

namespace kubeon::plan::testing {

std::vector<std::string> PlanProblems(const Generated& g) {
  const mig::MigCatalog& catalog = mig::MigCatalog::Builtin();
  Result<Plan> planned = MakePlan(g.cluster, g.history, g.policy, catalog, PlannerOptions{});
  if (!planned.ok()) return {"PLANNER: " + planned.status().message()};
  const Plan& p = *planned;
  std::vector<std::string> out;
  for (const auto& v : CheckPlanInvariants(g.cluster, p, g.policy, catalog)) out.push_back(v.id + ": " + v.message);
  for (const auto& s : CheckSchedule(g.cluster, p, g.policy)) out.push_back("SCHEDULE: " + s);
  // What the test knows without the planner.
  if (p.summary.gpus_after > p.summary.gpus_before) {
    out.push_back("TEST-GPUS: " + std::to_string(p.summary.gpus_after) + " GPUs after, " +
                  std::to_string(p.summary.gpus_before) + " before");
  }
  if (p.summary.moved_gpus_after < p.summary.gpus_lower_bound) {
    out.push_back("TEST-BOUND: the moved workloads hold " + std::to_string(p.summary.moved_gpus_after) +
                  " GPUs, below the lower bound " + std::to_string(p.summary.gpus_lower_bound));
  }
  for (const WorkloadDecision& w : p.workloads) {
    if (w.decision == Decision::kUnchanged) continue;
    int64_t peak = -1;
    for (const auto& pod : w.pods) {
      auto it = g.history.pods.find({w.ref.namespace_, pod});
      if (it != g.history.pods.end()) peak = std::max(peak, it->second.peak_memory_mib);
    }
    if (peak < 0 || !w.peak_memory_mib || *w.peak_memory_mib < peak) {
      out.push_back("TEST-PEAK: workload " + w.ref.Display() + " is moved on a peak of " +
                    std::to_string(w.peak_memory_mib.value_or(-1)) + " MiB, its pods' history peaks at " +
                    std::to_string(peak));
    }
  }
  return out;
}

std::string CheckShape(const Shape& shape, uint64_t seed) {
  const Generated g = Generate(shape, seed, mig::MigCatalog::Builtin());
  std::vector<std::string> problems = PlanProblems(g);
  if (problems.empty()) return "";
  // Shrink: the fewest leading nodes that still fail, by halving and then
  // stepping down (bounded: a shrink never takes more than ~40 plans).
  Generated smallest = g;
  std::vector<std::string> smallest_problems = problems;
  int hi = static_cast<int>(g.cluster.nodes.size());
  int lo = 0;
  for (int tries = 0; tries < 24 && hi - lo > 1; ++tries) {
    const int mid = lo + (hi - lo) / 2;
    Generated s = Shrink(g, mid);
    std::vector<std::string> p = PlanProblems(s);
    if (p.empty()) {
      lo = mid;
    } else {
      hi = mid;
      smallest = std::move(s);
      smallest_problems = std::move(p);
    }
  }
  std::string report = g.description + ":\n";
  for (size_t i = 0; i < problems.size() && i < 10; ++i) report += "  " + problems[i] + "\n";
  report += "shrunk: " + Describe(smallest);
  for (size_t i = 0; i < smallest_problems.size() && i < 10; ++i) report += "  " + smallest_problems[i] + "\n";
  return report;
}

}  // namespace kubeon::plan::testing
