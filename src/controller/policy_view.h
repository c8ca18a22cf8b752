// PolicyView: what the controller knows about one GpuPolicy after its last
// planning pass, as the status writer, /metrics and the reviewer page
// (reviewer_api.h) see it.  PolicyViews holds the latest view of every
// policy; the controller's loop writes it, HTTP handler threads read it.
//
// Invariants:
//  - A view with a plan has an empty error; a view without one says why in
//    error (invalid policy, overlapping selectors, an API or history error).
//  - Views are values: readers get copies, so a handler never sees a plan
//    half replaced.
//  - PolicyViews is thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "model/cluster.h"
#include "model/status.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::controller {

struct PolicyView {
  std::string name;                         // GpuPolicy metadata.name
  int64_t generation = 0;                   // metadata.generation planned
  std::optional<policy::GpuPolicy> policy;  // nullopt when the object does not parse
  std::optional<plan::Plan> plan;           // the last plan (nullopt: see error)
  std::string planned_at;                   // RFC 3339 UTC of the last plan
  std::string error;                        // why there is no plan ("" with a plan)
  // The error's kind as a condition reason: InvalidPolicy, OverlappingPolicies
  // or PlanFailed ("" with a plan).
  std::string error_reason;
  // Other policies whose node selectors overlap this one's, and workloads whose
  // pods span this policy's nodes and another's (reported, moved by neither).
  std::vector<std::string> conflicts;
  bool window_open = false;  // the policy's change window is open now
};

class PolicyViews {
 public:
  void Put(PolicyView view);
  void Remove(const std::string& name);
  std::optional<PolicyView> Get(const std::string& name) const;
  std::vector<PolicyView> All() const;  // sorted by name
  // True once every policy listed at start-up has been planned once (/readyz).
  bool planned_once() const;
  void set_planned_once(bool v);

 private:
  mutable std::mutex mu_;
  std::map<std::string, PolicyView> views_;
  bool planned_once_ = false;
};

// One point of a workload's memory history for the reviewer page's chart.
struct SeriesPoint {
  int64_t unix_seconds = 0;
  double value = 0;  // MiB, the max over the workload's pods at that time
};

// The history the plan used, read back for one workload and downsampled
// (reviewer page).  Implementations: Prometheus (query_range) and files.
class HistorySource {
 public:
  virtual ~HistorySource() = default;
  // At most max_points points, oldest first, each the maximum of the samples
  // it stands for (so the chart never hides a peak).
  virtual Result<std::vector<SeriesPoint>> MemoryMiB(const model::WorkloadRef& workload, int max_points) = 0;
};

}  // namespace kubeon::controller
