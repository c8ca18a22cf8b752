// Time-slicing: which pods share a node's GPUs, and how many replicas.
//
// The device plugin advertises each GPU of a time-sliced node `replicas`
// times and hands replicas to pods without regard to their size, so any
// `replicas` pods placed on the node may land on the same physical GPU.  The
// plan is therefore safe only if, for the pods on a node, the `replicas`
// largest memory needs together fit one GPU's memory and the `replicas`
// largest compute needs together fit one GPU (<= 1.0).  NodeFill enforces
// exactly that, which is stricter than per-GPU bin packing and does not rely
// on where the device plugin puts pods.
//
// Pods are offered largest memory first; a node keeps accepting while some
// replica count r <= max_replicas satisfies the rule with pods <= gpus x r.
#pragma once

#include <cstdint>
#include <vector>

namespace kubeon::plan {

struct TsItem {
  int64_t memory_mib = 0;  // need, headroom applied
  double compute = 0;      // need, headroom applied
};

class TsNodeFill {
 public:
  // REQUIRES: gpus >= 1, gpu_memory_mib > 0, max_replicas >= 1.
  TsNodeFill(int gpus, int64_t gpu_memory_mib, int max_replicas);

  // Adds the item if the node stays safe; returns whether it was added.
  bool TryAdd(int index, const TsItem& item);

  const std::vector<int>& items() const { return items_; }
  // Replicas the node needs for its items: the smallest r with items <= gpus x r
  // (r also satisfies the safety rule).  0 when empty.
  int replicas() const;
  // GPUs that may be busy: the device plugin spreads replicas over the
  // node's GPUs, so min(gpus, items), not ceil(items / replicas).
  int gpus_used() const;

 private:
  int MaxSafeReplicas(const std::vector<int64_t>& mem_desc, const std::vector<double>& compute_desc) const;

  int gpus_;
  int64_t gpu_memory_mib_;
  int max_replicas_;
  std::vector<int> items_;
  std::vector<int64_t> mem_desc_;      // the largest max_replicas memory needs, descending
  std::vector<double> compute_desc_;   // the largest max_replicas compute needs, descending
};

}  // namespace kubeon::plan
