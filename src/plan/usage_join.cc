// See usage_join.h.
#include "plan/usage_join.h"

#include <string>
#include <utility>

namespace kubeon::plan {
namespace {

using NsName = std::pair<std::string, std::string>;

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

UsageJoin JoinUsage(const model::Cluster& cluster, const metrics::History& history) {
  std::map<NsName, model::WorkloadRef> by_pod;
  std::map<NsName, model::WorkloadRef> by_replicaset;
  std::map<NsName, model::WorkloadRef> by_statefulset;
  for (const auto& pod : cluster.pods) {
    by_pod[{pod.namespace_, pod.name}] = pod.workload;
    if (pod.controller && pod.controller->kind == "ReplicaSet") {
      by_replicaset[{pod.namespace_, pod.controller->name}] = pod.workload;
    }
    if (pod.controller && pod.controller->kind == "StatefulSet") {
      by_statefulset[{pod.namespace_, pod.controller->name}] = pod.workload;
    }
  }
  for (const auto& c : cluster.controllers) {
    if (c.kind == "ReplicaSet") {
      model::WorkloadRef w{c.namespace_, "ReplicaSet", c.name};
      if (c.owner) w = {c.namespace_, c.owner->kind, c.owner->name};
      by_replicaset.emplace(NsName{c.namespace_, c.name}, w);
    } else if (c.kind == "StatefulSet") {
      by_statefulset.emplace(NsName{c.namespace_, c.name}, model::WorkloadRef{c.namespace_, "StatefulSet", c.name});
    }
  }

  UsageJoin out;
  for (const auto& [key, usage] : history.pods) {
    const model::WorkloadRef* w = nullptr;
    if (auto it = by_pod.find({key.namespace_, key.pod}); it != by_pod.end()) {
      w = &it->second;
    } else if (auto dash = key.pod.rfind('-'); dash != std::string::npos) {
      const std::string prefix = key.pod.substr(0, dash);
      const std::string suffix = key.pod.substr(dash + 1);
      if (auto rs = by_replicaset.find({key.namespace_, prefix}); rs != by_replicaset.end()) {
        w = &rs->second;
      } else if (AllDigits(suffix)) {
        if (auto ss = by_statefulset.find({key.namespace_, prefix}); ss != by_statefulset.end()) w = &ss->second;
      }
    }
    if (w == nullptr) {
      ++out.unmapped_pods;
      continue;
    }
    out.by_workload[*w].push_back(&usage);
  }
  return out;
}

}  // namespace kubeon::plan
