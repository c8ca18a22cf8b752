// gen-cluster's library: generates a realistic, deterministic GPU cluster and
// its DCGM history, writes them as the files `kubeon-gpu plan` reads, or
// builds them in memory for benchmarks.
//
// Presets:
//  * demo: 12 nodes in 5 pools (system; 3x p4d.24xlarge A100-40GB with MIG;
//    2x p5.48xlarge H100 with MIG, priced by annotation, scraped through a
//    ServiceMonitor; 3x g5.12xlarge A10G; 3x g6.12xlarge L4, one cordoned),
//    48 GPU pods in production, inference, ml-dev and notebooks, covering
//    every planner case: MIG candidates of each size, busy training, a
//    2-GPU pod, a Job pod, a bare pod, a rollout inside the history window,
//    10 hours of history, no history, NaN samples, time-sliced namespaces,
//    GPUs without MIG.  3 days of history, 10-minute samples by default
//    (history.om about 25 MB; 1-minute samples make it about 250 MB).
//  * scale: `nodes` nodes with `gpus_per_node` GPUs each (A100 40/80GB, H100,
//    A10G, L4 in fixed shares), 60-80% of each pool's GPUs held, mostly by
//    1-GPU pods; a few samples per series by default (history_samples).
//
// Contract: Generate is a pure function of Options: the same options give
// the same SyntheticCluster, hence the same bytes in every file.  Options are
// validated (Status errors name the option).
#pragma once

#include <cstdint>
#include <string>

#include "metrics/history.h"
#include "model/cluster.h"
#include "model/status.h"
#include "gen-cluster/spec.h"

namespace kubeon::gencluster {

inline constexpr uint64_t kDefaultSeed = 20251103;

enum class Preset { kDemo, kScale, kFull };

struct Options {
  Preset preset = Preset::kDemo;
  uint64_t seed = kDefaultSeed;
  int nodes = 10000;        // scale only
  int gpus_per_node = 8;    // scale only: 1..16 (real instance types for 1, 2, 4, 8)
  int history_days = 3;     // length of the history window
  // Sampling: at most one of the two may be set (> 0).  history_samples N
  // spreads N samples per series over the window; interval_seconds fixes the
  // step.  Defaults: demo 600 s, scale 24 samples.
  int64_t history_samples = 0;
  int64_t interval_seconds = 0;
  bool history = true;  // false: no history (no history.om; empty in memory)
  // true: cluster.json holds only what kubeon reads, one item per line
  // (WriteClusterJson's compact form; the same model::Cluster).
  bool compact = false;
};

Result<SyntheticCluster> Generate(const Options& options);

// policy.yaml: one GpuPolicy (gpu.kubeon.io/v1) proposing MIG for production
// and time-slicing for ml-dev and notebooks.
std::string PolicyYaml(const SyntheticCluster& cluster);

// prices.yaml: instance type -> USD per hour for every instance type of the
// cluster (and the other known ones), as model/prices.h reads it.
std::string PricesYaml(const SyntheticCluster& cluster);

// Writes DIR/cluster.json, DIR/history.om (unless !cluster.history),
// DIR/policy.yaml and DIR/prices.yaml; creates DIR when missing.  Each file
// is written to a temporary name and renamed into place.
Status WriteFiles(const SyntheticCluster& cluster, const std::string& dir);

// The same cluster and history without files: what model::LoadClusterFile
// and metrics::ReadHistoryFile would return for the written files.
struct InMemory {
  model::Cluster cluster;
  metrics::History history;
};
InMemory BuildInMemory(const SyntheticCluster& cluster);

}  // namespace kubeon::gencluster
