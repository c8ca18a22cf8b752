// See usage_join.h.
#include "plan/usage_join.h"

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kubeon::plan {
namespace {

// namespace, name: views into the snapshot (which outlives the join) or into
// the history's keys.
using NsName = std::pair<std::string_view, std::string_view>;

struct NsNameHash {
  size_t operator()(const NsName& k) const noexcept {
    const size_t a = std::hash<std::string_view>{}(k.first);
    const size_t b = std::hash<std::string_view>{}(k.second);
    return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  }
};

using ByName = std::unordered_map<NsName, const model::WorkloadRef*, NsNameHash>;

// The snapshot's pods by (namespace, name): open addressing over one array
// of pod indices (no node per pod), the last pod of equal keys kept.
class PodIndex {
 public:
  explicit PodIndex(const model::Cluster& cluster) : pods_(cluster.pods) {
    size_t capacity = 16;
    while (capacity < pods_.size() * 2) capacity *= 2;
    mask_ = capacity - 1;
    slots_.assign(capacity, -1);
    for (size_t i = 0; i < pods_.size(); ++i) {
      size_t at = Home(pods_[i].namespace_, pods_[i].name);
      while (slots_[at] >= 0 && !Is(slots_[at], pods_[i].namespace_, pods_[i].name)) at = (at + 1) & mask_;
      slots_[at] = static_cast<int>(i);
    }
  }
  // Index into cluster.pods, -1 when none.
  int Find(std::string_view namespace_, std::string_view name) const {
    for (size_t at = Home(namespace_, name); slots_[at] >= 0; at = (at + 1) & mask_) {
      if (Is(slots_[at], namespace_, name)) return slots_[at];
    }
    return -1;
  }

 private:
  size_t Home(std::string_view namespace_, std::string_view name) const { return NsNameHash{}({namespace_, name}) & mask_; }
  bool Is(int pod, std::string_view namespace_, std::string_view name) const {
    return pods_[static_cast<size_t>(pod)].name == name && pods_[static_cast<size_t>(pod)].namespace_ == namespace_;
  }
  const std::vector<model::Pod>& pods_;
  std::vector<int> slots_;
  size_t mask_ = 0;
};

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

PodUsageJoin JoinUsageByPod(const model::Cluster& cluster, const metrics::History& history) {
  // Indexes of views: no key is copied (60,000 pods: the ordered maps of
  // copied strings cost more than the rest of the join).
  const PodIndex by_pod(cluster);
  PodUsageJoin out;
  // The name indexes only serve history pods that are not live: built on the
  // first of them (a history of live pods needs neither).
  ByName by_replicaset, by_statefulset;
  bool by_name_built = false;
  const auto build_by_name = [&] {
    by_name_built = true;
    for (const auto& pod : cluster.pods) {
      if (pod.controller && pod.controller->kind == "ReplicaSet") {
        by_replicaset[{pod.namespace_, pod.controller->name}] = &pod.workload;
      }
      if (pod.controller && pod.controller->kind == "StatefulSet") {
        by_statefulset[{pod.namespace_, pod.controller->name}] = &pod.workload;
      }
    }
    out.controller_refs.reserve(cluster.controllers.size());  // never reallocated: pointers into it stay
    for (const auto& c : cluster.controllers) {
      if (c.kind == "ReplicaSet") {
        if (by_replicaset.count({c.namespace_, c.name})) continue;  // a live pod's owner chain wins
        out.controller_refs.push_back(c.owner ? model::WorkloadRef{c.namespace_, c.owner->kind, c.owner->name}
                                              : model::WorkloadRef{c.namespace_, "ReplicaSet", c.name});
        by_replicaset.emplace(NsName{c.namespace_, c.name}, &out.controller_refs.back());
      } else if (c.kind == "StatefulSet") {
        if (by_statefulset.count({c.namespace_, c.name})) continue;
        out.controller_refs.push_back(model::WorkloadRef{c.namespace_, "StatefulSet", c.name});
        by_statefulset.emplace(NsName{c.namespace_, c.name}, &out.controller_refs.back());
      }
    }
  };

  out.pods.reserve(history.pods.size());
  for (const auto& [key, usage] : history.pods) {
    if (const int pod = by_pod.Find(key.namespace_, key.pod); pod >= 0) {
      out.pods.push_back({&usage, pod, &cluster.pods[static_cast<size_t>(pod)].workload});
      continue;
    }
    const model::WorkloadRef* w = nullptr;
    if (auto dash = key.pod.rfind('-'); dash != std::string::npos) {
      if (!by_name_built) build_by_name();
      const std::string_view pod(key.pod);
      const std::string_view prefix = pod.substr(0, dash);
      if (auto rs = by_replicaset.find({key.namespace_, prefix}); rs != by_replicaset.end()) {
        w = rs->second;
      } else if (AllDigits(pod.substr(dash + 1))) {
        if (auto ss = by_statefulset.find({key.namespace_, prefix}); ss != by_statefulset.end()) w = ss->second;
      }
    }
    if (w == nullptr) {
      ++out.unmapped_pods;
      continue;
    }
    out.pods.push_back({&usage, -1, w});
  }
  return out;
}

UsageJoin JoinUsage(const model::Cluster& cluster, const metrics::History& history) {
  const PodUsageJoin by_pod = JoinUsageByPod(cluster, history);
  UsageJoin out;
  out.unmapped_pods = by_pod.unmapped_pods;
  for (const PodUsageJoin::Entry& e : by_pod.pods) out.by_workload[*e.workload].push_back(e.usage);
  return out;
}

}  // namespace kubeon::plan
