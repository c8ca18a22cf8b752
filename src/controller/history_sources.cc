// See history_sources.h.
#include "controller/history_sources.h"

#include <set>

#include "metrics/memory_series.h"

namespace kubeon::controller {

Result<std::vector<SeriesPoint>> FileHistorySource::MemoryMiB(const model::WorkloadRef& workload, int max_points) {
  std::set<metrics::PodKey> pods;
  bool found = false;
  for (const PolicyView& v : views_.All()) {
    if (!v.plan) continue;
    for (const auto& w : v.plan->workloads) {
      if (!(w.ref == workload)) continue;
      found = true;
      for (const auto& p : w.pods) pods.insert({w.ref.namespace_, p});
    }
  }
  if (!found) return Status::Error("no plan has workload " + workload.kind + " " + workload.Display());
  if (files_.empty()) return Status::Error("no history files");
  auto samples = metrics::ReadMemorySamples(files_, pods);
  if (!samples.ok()) return samples.status();
  std::vector<SeriesPoint> out;
  for (const auto& p : metrics::DownsampleMax(*samples, max_points)) {
    out.push_back({p.unix_ms / 1000, p.mib});
  }
  return out;
}

}  // namespace kubeon::controller
