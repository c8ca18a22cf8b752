// See history_sources.h.
#include "controller/history_sources.h"

#include <set>

#include "metrics/memory_series.h"

namespace kubeon::controller {

namespace {

// The pods the current plans list for `workload`, or an error naming it.
Result<std::set<metrics::PodKey>> PlannedPods(const PolicyViews& views, const model::WorkloadRef& workload) {
  std::set<metrics::PodKey> pods;
  bool found = false;
  for (const PolicyView& v : views.All()) {
    if (!v.plan) continue;
    for (const auto& w : v.plan->workloads) {
      if (!(w.ref == workload)) continue;
      found = true;
      for (const auto& p : w.pods) pods.insert({w.ref.namespace_, p});
    }
  }
  if (!found) return Status::Error("no plan has workload " + workload.kind + " " + workload.Display());
  return pods;
}

std::vector<SeriesPoint> ToSeries(const std::vector<metrics::MemoryPoint>& points) {
  std::vector<SeriesPoint> out;
  out.reserve(points.size());
  for (const auto& p : points) out.push_back({p.unix_ms / 1000, p.mib});
  return out;
}

}  // namespace

Result<std::vector<SeriesPoint>> FileHistorySource::MemoryMiB(const model::WorkloadRef& workload, int max_points) {
  auto planned = PlannedPods(views_, workload);
  if (!planned.ok()) return planned.status();
  const std::set<metrics::PodKey>& pods = *planned;
  if (files_.empty()) return Status::Error("no history files");
  auto samples = metrics::ReadMemorySamples(files_, pods);
  if (!samples.ok()) return samples.status();
  return ToSeries(metrics::DownsampleMax(*samples, max_points));
}

PrometheusHistorySource::PrometheusHistorySource(const PolicyViews& views,
                                                 std::unique_ptr<metrics::PrometheusHttp> http, std::string selector,
                                                 std::chrono::milliseconds lookback,
                                                 std::function<std::chrono::system_clock::time_point()> now)
    : views_(views),
      http_(std::move(http)),
      selector_(std::move(selector)),
      lookback_(lookback),
      now_(now ? std::move(now) : [] { return std::chrono::system_clock::now(); }) {}

Result<std::vector<SeriesPoint>> PrometheusHistorySource::MemoryMiB(const model::WorkloadRef& workload,
                                                                    int max_points) {
  auto planned = PlannedPods(views_, workload);
  if (!planned.ok()) return planned.status();
  metrics::MemoryQuery q;
  q.namespace_ = workload.namespace_;
  for (const auto& p : *planned) q.pods.push_back(p.pod);
  q.selector = selector_;
  q.end_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now_().time_since_epoch()).count();
  q.start_ms = q.end_ms - lookback_.count();
  std::lock_guard<std::mutex> lock(mu_);
  auto points = metrics::QueryMemorySeries(*http_, q, max_points);
  if (!points.ok()) return points.status();
  return ToSeries(*points);
}

}  // namespace kubeon::controller
