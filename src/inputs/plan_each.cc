// See plan_each.h.
#include "inputs/plan_each.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <new>

#include "metrics/history.h"
#include "policy/policy_overlap.h"

namespace kubeon::inputs {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

}  // namespace

std::vector<PolicyPlan> PlanEach(
    const PlanInputs& in, const std::vector<policy::GpuPolicy>& policies, const ProgressFn& progress,
    const std::function<std::map<model::WorkloadRef, std::string>(const policy::GpuPolicy&)>& excluded) {
  std::vector<PolicyPlan> plans;
  for (const auto& p : policies) {
    auto t = Clock::now();
    plan::PlannerOptions options = in.options;
    if (excluded) options.excluded_workloads = excluded(p);
    Result<plan::Plan> planned = Status::Error("policy \"" + p.name + "\": not planned");
    try {
      planned = in.planner(in.cluster, in.history, p, in.catalog, options);
    } catch (const std::bad_alloc&) {
      planned = Status::Error("policy \"" + p.name + "\": planning ran out of memory");
    } catch (const std::exception& e) {
      planned = Status::Error("policy \"" + p.name + "\": planning failed: " + e.what());
    }
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%.2fs", Seconds(t));
    if (!planned.ok()) {
      progress("error: " + planned.status().message());
      plans.push_back({std::move(planned), Seconds(t)});
      continue;
    }
    plan::Plan& plan = *planned;
    if (in.history.stats.bad_lines > 0) plan.warnings.push_back("history: " + BadLinesSummary(in.history.stats));
    for (const std::string& w : metrics::HistoryWarnings(in.history)) plan.warnings.push_back("history: " + w);
    if (policy::SelectedGpuNodes(in.cluster, p) == 0) {
      std::string selector;
      for (const auto& [k, v] : p.node_selector) selector += (selector.empty() ? "" : ", ") + k + "=" + v;
      const std::string w = "policy \"" + p.name + "\" selects none of the cluster's " +
                            std::to_string(policy::GpuNodes(in.cluster)) + " GPU nodes" +
                            (selector.empty() ? "" : " (nodeSelector " + selector + ")") + ": nothing to plan";
      progress("warning: " + w);
      plan.warnings.push_back(w);
    }
    progress("planned policy " + p.name + " in " + secs);
    plans.push_back({std::move(planned), Seconds(t)});
  }
  return plans;
}


}  // namespace kubeon::inputs
