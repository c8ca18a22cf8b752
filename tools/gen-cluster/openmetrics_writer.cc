// See openmetrics_writer.h.
#include "gen-cluster/openmetrics_writer.h"

#include <charconv>
#include <string>
#include <vector>

#include "gen-cluster/usage.h"

namespace kubeon::gencluster {
namespace {

enum class Family { kFbUsed, kFbFree, kGrEngineActive, kGpuUtil };

struct FamilyInfo {
  Family family;
  const char* name;
  const char* help;
};

constexpr FamilyInfo kFamilies[] = {
    {Family::kFbUsed, metrics::kFbUsedMetric, "Framebuffer memory used (in MiB)."},
    {Family::kFbFree, metrics::kFbFreeMetric, "Framebuffer memory free (in MiB)."},
    {Family::kGrEngineActive, metrics::kGrEngineActiveMetric, "Ratio of time the graphics engine is active."},
    {Family::kGpuUtil, metrics::kGpuUtilMetric, "GPU utilization (in %)."},
};

constexpr size_t kChunk = 1 << 20;

void Label(std::string& out, const char* name, const std::string& value) {
  if (out.size() > 1) out += ',';
  out += name;
  out += "=\"";
  out += value;  // generated values hold no '"', '\\' or newline
  out += '"';
}

// "{gpu="0",...}" for GPU `ordinal` of pod `p`.
std::string SeriesLabels(const SyntheticCluster& c, const PodSpec& p, int ordinal) {
  const NodeSpec& n = c.nodes[p.node];
  const WorkloadSpec& w = c.workloads[p.workload];
  const GpuType* gpu = c.GpuOf(n);
  const int index = p.gpus[ordinal];
  std::string s = "{";
  Label(s, "gpu", std::to_string(index));
  Label(s, "UUID", n.gpu_uuids[index]);
  if (n.dcgm != DcgmStyle::kOldHostname) Label(s, "pci_bus_id", PciBusId(c.InstanceOf(n), index));
  Label(s, "device", "nvidia" + std::to_string(index));
  Label(s, "modelName", gpu->model_name);
  switch (n.dcgm) {
    case DcgmStyle::kOldHostname:
      Label(s, "Hostname", n.name);
      Label(s, "container", w.container);
      Label(s, "namespace", w.namespace_);
      Label(s, "pod", p.name);
      break;
    case DcgmStyle::kNewHostname:
      Label(s, "hostname", n.name);
      Label(s, "DCGM_FI_DRIVER_VERSION", n.driver_version);
      Label(s, "container", w.container);
      Label(s, "namespace", w.namespace_);
      Label(s, "pod", p.name);
      break;
    case DcgmStyle::kServiceMonitor: {
      const ExporterInfo& e = ExporterFor(n.dcgm);
      Label(s, "hostname", n.name);
      Label(s, "DCGM_FI_DRIVER_VERSION", n.driver_version);
      Label(s, "container", e.container);
      Label(s, "namespace", e.namespace_);
      Label(s, "pod", n.exporter_pod);
      Label(s, "exported_container", w.container);
      Label(s, "exported_namespace", w.namespace_);
      Label(s, "exported_pod", p.name);
      Label(s, "instance", n.exporter_ip + ":9400");
      Label(s, "job", e.daemonset);
      break;
    }
  }
  s += '}';
  return s;
}

void AppendInt(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}

// A ratio with up to 6 decimals, trailing zeros dropped ("0.0812", "1", "0").
void AppendRatio(std::string& out, double v) {
  const int64_t micros = std::llround(v * 1e6);
  AppendInt(out, micros / 1000000);
  int64_t frac = micros % 1000000;
  if (frac == 0) return;
  char digits[7];
  for (int i = 5; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + frac % 10);
    frac /= 10;
  }
  int len = 6;
  while (len > 0 && digits[len - 1] == '0') --len;
  out += '.';
  out.append(digits, len);
}

}  // namespace

Status WriteHistory(const SyntheticCluster& c, const std::function<bool(std::string_view)>& sink) {
  std::string buf;
  buf.reserve(kChunk + 4096);
  auto flush = [&](bool force) {
    if (buf.size() < kChunk && !force) return true;
    const bool ok = buf.empty() || sink(buf);
    buf.clear();
    return ok;
  };
  for (const FamilyInfo& f : kFamilies) {
    buf.append("# HELP ").append(f.name).append(" ").append(f.help).append("\n");
    buf.append("# TYPE ").append(f.name).append(" gauge\n");
    for (const PodSpec& p : c.pods) {
      if (!p.HasHistory()) continue;
      for (int g = 0; g < static_cast<int>(p.gpus.size()); ++g) {
        const std::string labels = std::string(f.name) + SeriesLabels(c, p, g) + " ";
        const GpuType* gpu = c.GpuOf(c.nodes[p.node]);
        SeriesSampler sampler(c, p, g);
        Sample s;
        while (sampler.Next(&s)) {
          buf += labels;
          switch (f.family) {
            case Family::kFbUsed:
              if (s.fb_used_bad) {
                buf += "NaN";
              } else {
                AppendInt(buf, s.fb_used_mib);
              }
              break;
            case Family::kFbFree: AppendInt(buf, gpu->memory_mib - gpu->reserved_mib - s.fb_used_mib); break;
            case Family::kGrEngineActive: AppendRatio(buf, s.gr_engine_active); break;
            case Family::kGpuUtil: AppendInt(buf, s.gpu_util); break;
          }
          buf += ' ';
          AppendInt(buf, s.ts);
          buf += '\n';
          if (!flush(false)) return Status::Error("history: write failed");
        }
      }
    }
  }
  buf += "# EOF\n";
  if (!flush(true)) return Status::Error("history: write failed");
  return Status::Ok();
}

metrics::History BuildHistory(const SyntheticCluster& c) {
  metrics::History h;
  h.source = "synthetic " + c.preset + " history";
  metrics::IngestStats& st = h.stats;
  st.lines = 2 * std::size(kFamilies) + 1;  // # HELP, # TYPE per family; # EOF
  for (size_t i = 0; i < c.pods.size(); ++i) {
    const PodSpec& p = c.pods[i];
    if (!p.HasHistory()) continue;
    const WorkloadSpec& w = c.workloads[p.workload];
    const NodeSpec& n = c.nodes[p.node];
    metrics::PodUsage& u = h.pods[metrics::PodKey{w.namespace_, p.name}];
    for (int g = 0; g < static_cast<int>(p.gpus.size()); ++g) {
      SeriesSampler sampler(c, p, g);
      Sample s;
      while (sampler.Next(&s)) {
        const int64_t ts_ms = s.ts * 1000;
        uint64_t accepted = 2;  // GR_ENGINE_ACTIVE and GPU_UTIL
        if (s.fb_used_bad) {
          ++u.bad_samples;
          ++st.bad_lines;
        } else {
          u.peak_memory_mib = std::max(u.peak_memory_mib, s.fb_used_mib);
          ++accepted;
        }
        u.compute.Add(s.gr_engine_active);
        u.gpu_util.Add(s.gpu_util / 100.0);
        if (u.samples == 0) {
          u.first_ts_ms = ts_ms;
          u.last_ts_ms = ts_ms;
        } else {
          u.first_ts_ms = std::min(u.first_ts_ms, ts_ms);
          // Coverage as the reader counts it (metrics/history_builder.cc):
          // the gap to a sample newer than every one before.
          if (ts_ms > u.last_ts_ms) u.gaps.Add(ts_ms - u.last_ts_ms);
          u.last_ts_ms = std::max(u.last_ts_ms, ts_ms);
        }
        u.samples += accepted;
        st.samples += accepted;
        st.data_lines += std::size(kFamilies);
        st.lines += std::size(kFamilies);
        ++st.ignored_metric_lines;  // FB_FREE
      }
      // Last seen in file order: the pod's last series of the last family.
      u.hostname = n.name;
      u.gpu_uuid = n.gpu_uuids[p.gpus[g]];
      u.model_name = c.GpuOf(n)->model_name;
      u.container = w.container;
      u.gpus.insert(n.gpu_uuids[p.gpus[g]]);
    }
  }
  if (st.data_lines > 0) {
    for (const FamilyInfo& f : kFamilies) st.metrics_seen.insert(f.name);
  }
  return h;
}

}  // namespace kubeon::gencluster
