// See memory_series.h.
#include "metrics/memory_series.h"

#include <algorithm>
#include <map>

namespace kubeon::metrics {

Result<std::vector<MemoryPoint>> ReadMemorySamples(const std::vector<std::string>& files,
                                                   const std::set<PodKey>& pods, IngestOptions options) {
  std::map<int64_t, double> by_time;  // max over pods
  options.on_memory_sample = [&](const PodKey& pod, int64_t ts_ms, double mib) {
    if (!pods.count(pod)) return;
    auto [it, inserted] = by_time.try_emplace(ts_ms, mib);
    if (!inserted && mib > it->second) it->second = mib;
  };
  for (const auto& f : files) {
    Result<History> h = ReadHistoryFile(f, options);
    if (!h.ok()) return h.status();
  }
  std::vector<MemoryPoint> out;
  out.reserve(by_time.size());
  for (const auto& [t, v] : by_time) out.push_back({t, v});
  return out;
}

std::vector<MemoryPoint> DownsampleMax(const std::vector<MemoryPoint>& series, int max_points) {
  if (max_points < 1) max_points = 1;
  if (series.size() <= static_cast<size_t>(max_points)) return series;
  const int64_t t0 = series.front().unix_ms;
  const int64_t span = series.back().unix_ms - t0 + 1;
  std::vector<MemoryPoint> out;
  out.reserve(static_cast<size_t>(max_points));
  int64_t bucket = -1;
  for (const auto& p : series) {
    // Bucket index in [0, max_points): (t - t0) * n / span (long double: no overflow).
    const int64_t b = std::min<int64_t>(
        max_points - 1, static_cast<int64_t>(static_cast<long double>(p.unix_ms - t0) * max_points / span));
    if (b != bucket) {
      out.push_back(p);
      bucket = b;
    } else if (p.mib > out.back().mib) {
      out.back() = p;
    }
  }
  return out;
}

}  // namespace kubeon::metrics
