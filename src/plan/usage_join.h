// Joins DCGM history (keyed by namespace/pod) to workloads (controlling owners).
//
// A workload's peak is the maximum over all its pods, including pods that no
// longer exist (replaced by a rollout or a restart).  Pods in the snapshot map
// through their owner chain.  A pod only in the history maps when its name is
// unambiguous: "<replicaset>-<suffix>" for a ReplicaSet known in the snapshot
// (directly or as the controller of a live pod), "<statefulset>-<ordinal>" for
// a known StatefulSet.  Anything else is left unmapped and counted.
// Pure: no I/O.
#pragma once

#include <unordered_map>
#include <vector>

#include "metrics/history.h"
#include "model/cluster.h"

namespace kubeon::plan {

struct UsageJoin {
  // Lookups only (unordered): each vector in the history's order of pods.
  std::unordered_map<model::WorkloadRef, std::vector<const metrics::PodUsage*>, model::WorkloadRefHash> by_workload;
  size_t unmapped_pods = 0;  // history pods matching no workload in the snapshot
};

// REQUIRES: `history` outlives the result (by_workload points into it).
UsageJoin JoinUsage(const model::Cluster& cluster, const metrics::History& history);

// The same join, one entry per mapped history pod (in the history's order),
// for a caller that indexes the snapshot's pods itself: a history pod that is
// a live pod names it by index, so no workload key is hashed or copied.
struct PodUsageJoin {
  struct Entry {
    const metrics::PodUsage* usage = nullptr;
    int pod = -1;                                // index into cluster.pods when live, else -1
    const model::WorkloadRef* workload = nullptr;  // the workload it joins (never null)
  };
  std::vector<Entry> pods;
  size_t unmapped_pods = 0;
  // Workloads of ReplicaSets known only as objects (Entry::workload may point here).
  std::vector<model::WorkloadRef> controller_refs;
};

// REQUIRES: `cluster` and `history` outlive the result.
PodUsageJoin JoinUsageByPod(const model::Cluster& cluster, const metrics::History& history);

}  // namespace kubeon::plan
