// See usage.h.
#include "gen-cluster/usage.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace kubeon::gencluster {
namespace {

double Clamp(double v, double lo, double hi) { return std::min(hi, std::max(lo, v)); }

double Round6(double v) { return std::round(v * 1e6) / 1e6; }

// 0 = Sunday.
int DayOfWeek(int64_t ts) { return static_cast<int>(((ts / 86400) + 4) % 7); }

double HourOfDay(int64_t ts) { return static_cast<double>(ts % 86400) / 3600.0; }

bool WorkingHours(int64_t ts) {
  const int dow = DayOfWeek(ts);
  const double h = HourOfDay(ts);
  return dow >= 1 && dow <= 5 && h >= 8 && h < 19;
}

// Probability per sample of an event that has probability p per minute.
double PerSample(double p_per_minute, int64_t interval_seconds) {
  return 1.0 - std::pow(1.0 - p_per_minute, static_cast<double>(interval_seconds) / 60.0);
}

}  // namespace

SeriesSampler::SeriesSampler(const SyntheticCluster& cluster, const PodSpec& pod, int gpu_ordinal)
    : cluster_(cluster),
      pod_(pod),
      usage_(cluster.workloads[pod.workload].usage),
      rng_(DeriveSeed(cluster.seed, cluster.workloads[pod.workload].namespace_ + "/" + pod.name, gpu_ordinal)),
      gpu_ordinal_(gpu_ordinal) {
  count_ = cluster.SampleCount(pod.history_from, pod.history_to);
  if (pod.peak_gpu == gpu_ordinal && pod.peak_ts >= pod.history_from && pod.peak_ts <= pod.history_to) {
    peak_k_ = (pod.peak_ts - pod.history_from) / cluster.interval_seconds;
  }
  const GpuType* gpu = cluster.GpuOf(cluster.nodes[pod.node]);
  usable_mib_ = gpu ? gpu->memory_mib - gpu->reserved_mib : usage_.peak_memory_mib + 1;
  if (cluster.workloads[pod.workload].history == HistoryKind::kBadSamples) bad_ = cluster.bad_samples_per_series;
  noise_ = rng_.Normal(0, 0.05);
}

bool SeriesSampler::IsBad(int64_t k) const {
  if (bad_ <= 0 || k == peak_k_ || count_ < 2 * (bad_ + 1)) return false;
  // Evenly spread, never the first or last sample (the window stays whole).
  for (int j = 1; j <= bad_; ++j) {
    if (k == j * count_ / (bad_ + 1)) return true;
  }
  return false;
}

double SeriesSampler::Load(int64_t ts) {
  const double h = HourOfDay(ts);
  double load = 0.5 + 0.42 * std::sin(2.0 * std::numbers::pi * (h - 10.0) / 24.0);
  const int dow = DayOfWeek(ts);
  if (dow == 0 || dow == 6) load *= 0.65;
  noise_ = 0.85 * noise_ + rng_.Normal(0, 0.035);
  return Clamp(load + noise_, 0.0, 1.0);
}

void SeriesSampler::Inference(int64_t ts, Sample* s) {
  const double load = Load(ts);
  const double span_mib = static_cast<double>(usage_.peak_memory_mib - usage_.base_memory_mib);
  const double mem_level = Clamp(0.12 + 0.8 * load + rng_.Normal(0, 0.02), 0.0, 0.965);
  s->fb_used_mib = usage_.base_memory_mib + std::llround(span_mib * mem_level);
  const double c_level = Clamp(load + rng_.Normal(0, 0.03), 0.0, 0.985);
  s->gr_engine_active = usage_.base_compute + (usage_.peak_compute - usage_.base_compute) * c_level;
}

void SeriesSampler::Training(Sample* s) {
  s->fb_used_mib = usage_.peak_memory_mib - rng_.Int(40, 420);
  double level = 1.0 - std::abs(rng_.Normal(0, 0.02)) - 0.002;
  if (rng_.Chance(0.02)) level = rng_.Uniform(0.2, 0.6);  // evaluation / checkpoint
  s->gr_engine_active = usage_.peak_compute * Clamp(level, 0.0, 0.998);
}

void SeriesSampler::Notebook(int64_t ts, Sample* s) {
  const int64_t iv = cluster_.interval_seconds;
  const bool work = WorkingHours(ts);
  if (!session_) {
    if (rng_.Chance(PerSample(work ? 0.006 : 0.0004, iv))) {
      session_ = true;
      session_level_ = rng_.Uniform(0.25, 0.95);
    }
  } else if (rng_.Chance(PerSample(work ? 0.008 : 0.03, iv))) {
    session_ = false;
  }
  const double span_mib = static_cast<double>(usage_.peak_memory_mib - usage_.base_memory_mib);
  if (session_) {
    s->fb_used_mib = usage_.base_memory_mib + std::llround(span_mib * session_level_) + rng_.Int(-24, 24);
    const double burst = rng_.Chance(0.35) ? rng_.Uniform(0.3, 0.99) : rng_.Uniform(0.0, 0.06);
    s->gr_engine_active = usage_.peak_compute * burst;
  } else {
    s->fb_used_mib = usage_.base_memory_mib + rng_.Int(-8, 8);
    s->gr_engine_active = 0;
  }
}

bool SeriesSampler::Next(Sample* out) {
  if (next_ >= count_) return false;
  const int64_t k = next_++;
  Sample s;
  s.ts = pod_.history_from + k * cluster_.interval_seconds;
  switch (usage_.shape) {
    case UsageShape::kInference: Inference(s.ts, &s); break;
    case UsageShape::kTraining: Training(&s); break;
    case UsageShape::kNotebook: Notebook(s.ts, &s); break;
  }
  if (k == peak_k_) {
    s.fb_used_mib = usage_.peak_memory_mib;
    s.gr_engine_active = usage_.peak_compute;
  } else {
    s.fb_used_mib = std::clamp<int64_t>(s.fb_used_mib, 0, usage_.peak_memory_mib - 1);
    s.gr_engine_active = Clamp(s.gr_engine_active, 0.0, usage_.peak_compute);
  }
  s.fb_used_mib = std::min(s.fb_used_mib, usable_mib_);
  s.gr_engine_active = Round6(s.gr_engine_active);
  // GPU_UTIL counts any kernel running: it reads higher than the engine-active ratio.
  const double util = s.gr_engine_active > 0 ? s.gr_engine_active * 1.18 + 0.02 : 0.0;
  s.gpu_util = static_cast<int>(std::lround(100.0 * Clamp(util, 0.0, 1.0)));
  s.fb_used_bad = IsBad(k);
  *out = s;
  return true;
}

}  // namespace kubeon::gencluster
