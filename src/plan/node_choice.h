// Node choice: which nodes of one GPU model pool take the pool's new MIG GPUs.
//
// The packer (mig_packer.h) decides how many MIG GPUs the pool needs; this
// decides where they go.  Every candidate node can take up to `capacity` of
// them (its GPUs not held by pods that stay).  The objectives, in order:
//  1. the most dollars freed: a node left with no GPU pod is worth its whole
//     price (it can be removed), any other node the price share of the GPUs
//     it no longer holds (HourlyValueFreed);
//  2. the fewest disrupted pods: a node that takes any MIG GPU disrupts its
//     `disrupted_pods` (its MIG mode changes; mig-parted resets every GPU);
//  3. the caller's order of the nodes: earlier nodes take GPUs first.
// Dollars are compared as whole micro-dollars per hour per node, so equal
// choices compare equal whatever the order of the sum.
// Safety (which nodes may be candidates at all) is the caller's: only nodes
// whose staying pods the policy lets us disrupt are passed in.
//
// Exact (dynamic programming over nodes x GPUs placed) when
// nodes x GPUs x capacity <= kExactLimit; above that, greedy: whole nodes in
// order of dollars lost per GPU taken, then the cheapest node for the rest.
// Pure: no I/O.
#pragma once

#include <cstdint>
#include <vector>

namespace kubeon::plan {

// USD per hour a node no longer costs after the plan: its whole price when
// it held GPUs before and holds none after, else the price share of the GPUs
// it gave up.  REQUIRES: gpu_count > 0 or price 0.
double HourlyValueFreed(int gpus_before, int gpus_after, int gpu_count, double hourly_price);

struct NodeCandidate {
  int capacity = 0;        // MIG GPUs it can take (GPUs not held by staying pods)
  int gpus_before = 0;     // GPUs held by pods before the plan
  int gpus_staying = 0;    // GPUs held after the plan by pods that stay
  int gpu_count = 0;
  double hourly_price = 0;  // 0 when unknown
  int disrupted_pods = 0;   // pods disrupted when it takes any MIG GPU
};

struct NodeChoice {
  std::vector<int> gpus;  // MIG GPUs per candidate, in the input order
  int placed = 0;         // sum of gpus; < wanted when capacity ran out
};

inline constexpr int64_t kExactLimit = 4'000'000;

// REQUIRES: wanted >= 0; every capacity >= 0.
NodeChoice ChooseNodes(const std::vector<NodeCandidate>& nodes, int wanted);

}  // namespace kubeon::plan
