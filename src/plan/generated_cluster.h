// Test helper: clusters of generated shapes for the planner's property test
// (planner_property_test.cc).  Not part of any library.
//
// A Shape says how a cluster is drawn; Generate() turns (shape, seed) into a
// model::Cluster, the matching metrics::History and a policy, deterministically
// (std::mt19937_64 and integer arithmetic only, so a seed names one cluster on
// every platform).  What varies:
//  - GPU models: any of the catalog's, MIG-capable or not, one to several
//    pools, GPUs per node 1..16;
//  - owners: Deployments and StatefulSets with 1..N replicas (ReplicaSet ->
//    Pod chains), ReplicaSets without a Deployment, Jobs, DaemonSets, bare pods,
//    multi-GPU pods, pods already on slices;
//  - usage: peaks from 0 to above the GPU's memory, compute idle to busy, no
//    history, too little history, unparseable samples;
//  - PDBs (disruptionsAllowed 0..2, minAvailable = replicas), cordons, NotReady
//    nodes, taints with and without tolerations, safe-to-evict "false", local
//    storage, nodes already partitioned;
//  - the policy: every disruption rule, allowed profiles, headroom,
//    time-slicing namespaces and maxReplicas, maxNodesPerPool.
// Shrink() makes a smaller cluster of the same draw (fewer nodes, their pods
// only) so that a failure can be reported on a small case.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/history.h"
#include "mig/catalog.h"
#include "model/cluster.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan::testing {

struct Shape {
  int nodes = 10;
  int pools = 2;               // GPU models drawn (distinct when the catalog has enough)
  bool mig_only = false;       // draw only MIG-capable models
  int gpus_per_node = 0;       // 0: drawn per pool from 1..16
  double fill = 0.8;           // share of GPUs held by pods
  int max_replicas = 6;        // replicas per owner are drawn from 1..max_replicas
  bool rare_features = true;   // PDBs, taints, cordons, odd owners and odd usage
  // The issue-32 shape: one single-replica Deployment per GPU, peaks from
  // {4, 8, 15, 30, 60, 78} GB, compute from {5, 10, 20, 90} %, on A100-80GB.
  bool one_deployment_per_gpu = false;
};

struct Generated {
  model::Cluster cluster;
  metrics::History history;
  policy::GpuPolicy policy;
  std::string description;  // the shape and seed, for failure messages
};

// REQUIRES: shape.nodes >= 1.
Generated Generate(const Shape& shape, uint64_t seed, const mig::MigCatalog& catalog);

// The same cluster cut to its first `nodes` GPU nodes and the pods on them
// (and their controllers, PDBs and history).
Generated Shrink(const Generated& g, int nodes);

// A compact text of the cluster (nodes, pods with owners, usage, PDBs) for a
// failure message; at most max_lines lines.
std::string Describe(const Generated& g, int max_lines = 80);

}  // namespace kubeon::plan::testing
