// SeriesSampler: the samples of one GPU of one pod, as dcgm-exporter would
// have reported them over the pod's history window.
//
// Contract:
//  * Deterministic: the samples are a function of (cluster seed, namespace,
//    pod name, GPU ordinal) only, so the history writer (which walks every
//    series once per metric family) and the in-memory builder see the same
//    values.
//  * Timestamps are pod.history_from, + interval, ..., pod.history_to.
//  * FB_USED never exceeds the workload's usage.peak_memory_mib, and equals it
//    exactly at the workload's peak sample (PodSpec::peak_gpu/peak_ts) and
//    nowhere else; GR_ENGINE_ACTIVE never exceeds usage.peak_compute and equals
//    it at the peak sample.  FB_USED stays below the GPU's usable memory.
//  * GR_ENGINE_ACTIVE is rounded to 6 decimals (what the writer prints), so a
//    reader parsing the text gets exactly Sample::gr_engine_active.
//  * For a HistoryKind::kBadSamples workload, cluster.bad_samples_per_series
//    samples spread over the window (never the peak) have fb_used_bad set:
//    the writer prints NaN for them.
//  * The shape follows UsageSpec::shape: inference follows a daily load curve
//    (busiest around 16:00 UTC, quieter at weekends) with correlated noise;
//    training sits near its peaks; notebooks idle, with sessions during
//    working hours whose memory rises to a per-session level.
#pragma once

#include <cstdint>

#include "gen-cluster/spec.h"

namespace kubeon::gencluster {

struct Sample {
  int64_t ts = 0;  // Unix seconds
  int64_t fb_used_mib = 0;
  double gr_engine_active = 0;  // ratio 0..1, 6 decimals
  int gpu_util = 0;             // percent 0..100
  bool fb_used_bad = false;     // FB_USED written as NaN
};

class SeriesSampler {
 public:
  // REQUIRES: pod.HasHistory(); 0 <= gpu_ordinal < pod.gpus.size(); the pod's
  // workload and node exist in `cluster`, which outlives the sampler.
  SeriesSampler(const SyntheticCluster& cluster, const PodSpec& pod, int gpu_ordinal);

  // The next sample; false after the last one.
  bool Next(Sample* out);
  int64_t count() const { return count_; }

 private:
  double Load(int64_t ts);
  void Inference(int64_t ts, Sample* s);
  void Training(Sample* s);
  void Notebook(int64_t ts, Sample* s);
  bool IsBad(int64_t k) const;

  const SyntheticCluster& cluster_;
  const PodSpec& pod_;
  const UsageSpec& usage_;
  Rng rng_;
  int gpu_ordinal_;
  int64_t count_ = 0;
  int64_t next_ = 0;
  int64_t peak_k_ = -1;          // sample index of the workload peak in this series
  int64_t usable_mib_ = 0;       // GPU memory minus reserved
  double noise_ = 0;             // AR(1) load noise
  double session_level_ = 0;     // notebook: fraction of (peak - base) in this session
  bool session_ = false;         // notebook: a session is active
  int bad_ = 0;                  // kBadSamples: NaN samples in this series
};

}  // namespace kubeon::gencluster
