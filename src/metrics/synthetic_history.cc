// See synthetic_history.h for the contract.
#include "metrics/synthetic_history.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "metrics/history.h"

namespace kubeon::metrics {
namespace {

constexpr size_t kFlushBytes = 1 << 20;
constexpr int kFamilies = 5;
constexpr const char* kDramActive = "DCGM_FI_PROF_DRAM_ACTIVE";
const char* const kFamilyName[kFamilies] = {kFbUsedMetric, kFbFreeMetric, kGrEngineActiveMetric,
                                            kGpuUtilMetric, kDramActive};
const char* const kFamilyHelp[kFamilies] = {
    "Framebuffer memory used (in MiB).", "Framebuffer memory free (in MiB).",
    "Ratio of time the graphics engine is active.", "GPU utilization (in %).",
    "Ratio of cycles the device memory interface is active sending or receiving data."};
constexpr bool kFamilyUsed[kFamilies] = {true, false, true, true, false};

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
uint64_t Hash(uint64_t seed, uint64_t a, uint64_t b) { return Mix(Mix(Mix(seed) ^ a) ^ b); }
// Uniform in [0, 1).
double Unit(uint64_t h) { return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0); }

bool IsMig(int64_t device) { return device % 5 == 1; }
bool IsIdle(int64_t device) { return device % 10 == 9; }
bool IsH100(int64_t device) { return (device / 8) % 3 == 2; }

int FamilyOf(int64_t series) {
  int slot = static_cast<int>(series % 4);
  return slot == 3 && IsMig(series / 4) ? 4 : slot;
}

int64_t TotalMib(int64_t device) {
  if (IsMig(device)) return IsH100(device) ? 9856 : 4864;
  return IsH100(device) ? 81559 : 40536;
}

class Writer {
 public:
  Writer(const SyntheticOptions& o, const std::function<bool(std::string_view)>& sink)
      : o_(o), sink_(sink) {
    buf_.reserve(kFlushBytes + 4096);
  }

  Status Run() {
    if (o_.format == SyntheticOptions::Format::kCsv) {
      Csv();
    } else {
      OpenMetrics();
    }
    Flush();
    if (failed_) return Status::Error("synthetic history: the output could not be written");
    return Status::Ok();
  }

 private:
  void Flush() {
    if (!failed_ && !buf_.empty() && !sink_(buf_)) failed_ = true;
    buf_.clear();
  }
  void MaybeFlush() {
    if (buf_.size() >= kFlushBytes) Flush();
  }
  void Int(int64_t v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
    buf_.append(tmp, r.ptr);
  }
  void Ratio(double v) {
    char tmp[32];
    auto r = std::to_chars(tmp, tmp + sizeof(tmp), v, std::chars_format::fixed, 6);
    buf_.append(tmp, r.ptr);
  }

  // Device g's usage at sample k.
  double ComputeAt(int64_t g, int64_t k) const {
    if (IsIdle(g)) return 0;
    double base = 0.05 + 0.6 * Unit(Hash(o_.seed, g, 1));
    return std::min(1.0, base * (0.5 + Unit(Hash(o_.seed, g, 1000 + k))));
  }
  int64_t MemoryAt(int64_t g, int64_t k) const {
    if (IsIdle(g)) return static_cast<int64_t>(Unit(Hash(o_.seed, g, 2)) * 4);
    double base = TotalMib(g) * (0.1 + 0.6 * Unit(Hash(o_.seed, g, 3)));
    return static_cast<int64_t>(base * (0.8 + 0.2 * Unit(Hash(o_.seed, g, 2000000 + k))));
  }
  void Value(int family, int64_t g, int64_t k) {
    switch (family) {
      case 0:
        Int(MemoryAt(g, k));
        break;
      case 1:
        Int(TotalMib(g) - MemoryAt(g, k));
        break;
      case 2:
        Ratio(ComputeAt(g, k));
        break;
      case 3:
        Int(std::llround(std::min(100.0, ComputeAt(g, k) * 110.0)));
        break;
      default:
        Ratio(ComputeAt(g, k) * 0.5);
        break;
    }
  }

  std::string Uuid(int64_t g) const {
    uint64_t h = Hash(o_.seed, g, 77), h2 = Hash(o_.seed, g, 78);
    char tmp[48];
    std::snprintf(tmp, sizeof(tmp), "GPU-%08x-%04x-%04x-%04x-%012llx",
                  static_cast<unsigned>(h >> 32), static_cast<unsigned>((h >> 16) & 0xffff),
                  static_cast<unsigned>(h & 0xffff), static_cast<unsigned>(h2 >> 48),
                  static_cast<unsigned long long>(h2 & 0xffffffffffffULL));
    return tmp;
  }
  static std::string KubeHash(uint64_t h, int n) {
    static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::string out;
    for (int i = 0; i < n; ++i) {
      out += kAlphabet[h % 27];
      h /= 27;
    }
    return out;
  }
  std::string Namespace(int64_t g) const {
    char tmp[16];
    std::snprintf(tmp, sizeof(tmp), "team-%02d", static_cast<int>((g / 2) % 12));
    return tmp;
  }
  std::string Pod(int64_t g) const {
    int64_t w = g / 2;
    char tmp[40];
    std::snprintf(tmp, sizeof(tmp), "model-%05lld-", static_cast<long long>(w));
    return tmp + KubeHash(Hash(o_.seed, w, 5), 10) + "-" + KubeHash(Hash(o_.seed, g, 6), 5);
  }
  std::string Hostname(int64_t g) const {
    char tmp[40];
    std::snprintf(tmp, sizeof(tmp), "gpu-node-%05lld", static_cast<long long>(g / 8));
    return tmp;
  }
  std::string ExporterPod(int64_t g) const {
    return "nvidia-dcgm-exporter-" + KubeHash(Hash(o_.seed, g / 8, 9), 5);
  }
  const char* Model(int64_t g) const {
    return IsH100(g) ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-40GB";
  }
  const char* Profile(int64_t g) const { return IsH100(g) ? "1g.10gb" : "1g.5gb"; }
  int GpuInstance(int64_t g) const { return 7 + static_cast<int>(g % 7); }

  // dcgm-exporter's label order: gpu, UUID, pci_bus_id, device, modelName,
  // [GPU_I_PROFILE, GPU_I_ID], Hostname, DCGM_FI_DRIVER_VERSION, pod mapping.
  std::string Labels(int64_t g) const {
    int idx = static_cast<int>(g % 8);
    char head[160];
    std::snprintf(head, sizeof(head),
                  "gpu=\"%d\",UUID=\"%s\",pci_bus_id=\"00000000:%02X:00.0\",device=\"nvidia%d\","
                  "modelName=\"%s\",",
                  idx, Uuid(g).c_str(), 0x1A + idx * 0x10, idx, Model(g));
    std::string out = head;
    if (IsMig(g)) {
      out += "GPU_I_PROFILE=\"" + std::string(Profile(g)) + "\",GPU_I_ID=\"" +
             std::to_string(GpuInstance(g)) + "\",";
    }
    out += "Hostname=\"" + Hostname(g) + "\",DCGM_FI_DRIVER_VERSION=\"535.129.03\"";
    if (!IsIdle(g)) {
      std::string p = o_.exported_labels ? "exported_" : "";
      out += "," + p + "container=\"server\"," + p + "namespace=\"" + Namespace(g) + "\"," + p +
             "pod=\"" + Pod(g) + "\"";
    }
    if (o_.exported_labels) {
      out += ",container=\"nvidia-dcgm-exporter\",namespace=\"gpu-operator\",pod=\"" +
             ExporterPod(g) + "\"";
    }
    return out;
  }

  void Sample(int family, int64_t series, const std::string& labels, int64_t k) {
    buf_ += kFamilyName[family];
    buf_ += '{';
    buf_ += labels;
    buf_ += "} ";
    Value(family, series / 4, k);
    buf_ += ' ';
    Int(o_.start_unix_seconds + k * o_.interval_seconds);
    buf_ += '\n';
    MaybeFlush();
  }

  void OpenMetrics() {
    for (int f = 0; f < kFamilies; ++f) {
      std::vector<int64_t> members;
      for (int64_t i = 0; i < o_.series; ++i) {
        if (FamilyOf(i) == f) members.push_back(i);
      }
      if (members.empty()) continue;
      buf_ += std::string("# HELP ") + kFamilyName[f] + " " + kFamilyHelp[f] + "\n";
      buf_ += std::string("# TYPE ") + kFamilyName[f] + " gauge\n";
      if (o_.order == SyntheticOptions::Order::kSeries) {
        for (int64_t i : members) {
          std::string labels = Labels(i / 4);
          for (int64_t k = 0; k < o_.samples_per_series; ++k) Sample(f, i, labels, k);
        }
      } else {
        std::vector<std::string> labels;
        labels.reserve(members.size());
        for (int64_t i : members) labels.push_back(Labels(i / 4));
        for (int64_t k = 0; k < o_.samples_per_series; ++k) {
          for (size_t m = 0; m < members.size(); ++m) Sample(f, members[m], labels[m], k);
        }
      }
      if (failed_) return;
    }
    buf_ += "# EOF\n";
  }

  void CsvRow(int64_t g, int64_t k) {
    Int(o_.start_unix_seconds + k * o_.interval_seconds);
    buf_ += ',';
    if (!IsIdle(g)) {
      std::string tail = Namespace(g) + "," + Pod(g) + ",server";
      if (o_.exported_labels) {
        buf_ += "gpu-operator," + ExporterPod(g) + ",nvidia-dcgm-exporter," + tail;
      } else {
        buf_ += tail;
      }
    } else {
      buf_ += o_.exported_labels ? "gpu-operator," + ExporterPod(g) + ",nvidia-dcgm-exporter,,,"
                                 : ",,";
    }
    buf_ += "," + Hostname(g) + "," + std::to_string(g % 8) + "," + Uuid(g) + "," + Model(g);
    if (IsMig(g)) {
      buf_ += "," + std::string(Profile(g)) + "," + std::to_string(GpuInstance(g));
    } else {
      buf_ += ",,";
    }
    // Cells per family, empty where the device has no such series.
    for (int f = 0; f < kFamilies; ++f) {
      buf_ += ',';
      for (int slot = 0; slot < 4; ++slot) {
        int64_t i = g * 4 + slot;
        if (i < o_.series && FamilyOf(i) == f) Value(f, g, k);
      }
    }
    buf_ += '\n';
    MaybeFlush();
  }

  void Csv() {
    buf_ += "timestamp,";
    buf_ += o_.exported_labels
                ? "namespace,pod,container,exported_namespace,exported_pod,exported_container"
                : "namespace,pod,container";
    buf_ += ",Hostname,gpu,UUID,modelName,GPU_I_PROFILE,GPU_I_ID";
    for (int f = 0; f < kFamilies; ++f) buf_ += std::string(",") + kFamilyName[f];
    buf_ += '\n';
    int64_t devices = (o_.series + 3) / 4;
    if (o_.order == SyntheticOptions::Order::kSeries) {
      for (int64_t g = 0; g < devices && !failed_; ++g) {
        for (int64_t k = 0; k < o_.samples_per_series; ++k) CsvRow(g, k);
      }
    } else {
      for (int64_t k = 0; k < o_.samples_per_series && !failed_; ++k) {
        for (int64_t g = 0; g < devices; ++g) CsvRow(g, k);
      }
    }
  }

  const SyntheticOptions& o_;
  const std::function<bool(std::string_view)>& sink_;
  std::string buf_;
  bool failed_ = false;
};

}  // namespace

SyntheticCounts ExpectedCounts(const SyntheticOptions& options) {
  SyntheticCounts c;
  const uint64_t m = static_cast<uint64_t>(options.samples_per_series);
  int64_t last_pod_device = -1;
  int64_t last_exporter_node = -1;
  for (int64_t i = 0; i < options.series; ++i) {
    int f = FamilyOf(i);
    int64_t g = i / 4;
    if (!kFamilyUsed[f]) {
      c.ignored += m;
    } else if (!IsIdle(g)) {
      c.samples += m;
      if (g != last_pod_device) ++c.pods;
      last_pod_device = g;
    } else if (!options.exported_labels) {
      c.unattributed += m;
    } else {
      // Behind a ServiceMonitor an idle device carries only the exporter's
      // own namespace/pod (one exporter pod per node), see history.h.
      c.samples += m;
      if (g / 8 != last_exporter_node) ++c.pods;
      last_exporter_node = g / 8;
    }
  }
  return c;
}

Status WriteSyntheticHistory(const SyntheticOptions& options,
                             const std::function<bool(std::string_view)>& sink) {
  if (options.series < 1 || options.samples_per_series < 1 || options.interval_seconds < 1) {
    return Status::Error(
        "synthetic history: series, samples per series and interval must be at least 1");
  }
  return Writer(options, sink).Run();
}

Result<std::string> SyntheticHistoryText(const SyntheticOptions& options) {
  std::string out;
  Status s = WriteSyntheticHistory(options, [&out](std::string_view piece) {
    out.append(piece);
    return true;
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace kubeon::metrics
