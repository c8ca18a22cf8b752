// See spec.h.
#include "gen-cluster/spec.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <numbers>

namespace kubeon::gencluster {

int64_t Rng::Int(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(engine_());  // the full 64-bit range
  return lo + static_cast<int64_t>(engine_() % span);
}

double Rng::Normal(double mean, double sd) {
  double u1 = Uniform();
  const double u2 = Uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  return mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::string Rng::Chars(std::string_view alphabet, int n) {
  std::string out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out += alphabet[engine_() % alphabet.size()];
  return out;
}

uint64_t DeriveSeed(uint64_t seed, std::string_view name, uint64_t salt) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  uint64_t z = h ^ (seed * 0x9E3779B97F4A7C15ULL) ^ (salt * 0xC2B2AE3D27D4EB4FULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::string NewUid(Rng& rng) {
  std::string s = rng.Chars(kHexAlphabet, 32);
  s[12] = '4';
  s[16] = "89ab"[rng.Next() % 4];
  return s.substr(0, 8) + "-" + s.substr(8, 4) + "-" + s.substr(12, 4) + "-" + s.substr(16, 4) + "-" +
         s.substr(20, 12);
}

std::string Rfc3339(int64_t unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[80];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

const std::vector<GpuType>& KnownGpuTypes() {
  // Memory: GFD's nvidia.com/gpu.memory (NVML total, MiB).  Reserved: the
  // part of the framebuffer NVML reports as neither used nor free.
  static const std::vector<GpuType> kTypes = {
      {"A100-40GB", "NVIDIA-A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", 40960, 567, true, "ampere", 8, 0},
      {"A100-80GB", "NVIDIA-A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", 81920, 613, true, "ampere", 8, 0},
      {"H100-80GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA H100 80GB HBM3", 81559, 584, true, "hopper", 9, 0},
      {"A10G", "NVIDIA-A10G", "NVIDIA A10G", 23028, 325, false, "ampere", 8, 6},
      {"L4", "NVIDIA-L4", "NVIDIA L4", 23034, 283, false, "ada-lovelace", 8, 9},
  };
  return kTypes;
}

const GpuType* FindGpuType(std::string_view id) {
  for (const auto& t : KnownGpuTypes()) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const std::vector<InstanceType>& KnownInstanceTypes() {
  // On-demand list prices, USD per hour (AWS us-east-1, GCP us-central1), late 2025.
  static const std::vector<InstanceType> kTypes = {
      {"p4d.24xlarge", "A100-40GB", 8, 96, 1179648, 737, 32.7726, false},
      {"p4de.24xlarge", "A100-80GB", 8, 96, 1179648, 737, 40.9657, false},
      {"p5.48xlarge", "H100-80GB", 8, 192, 2097152, 100, 55.04, false},  // after the June 2025 cut
      {"g5.xlarge", "A10G", 1, 4, 16384, 58, 1.006, false},
      {"g5.12xlarge", "A10G", 4, 48, 196608, 737, 5.672, false},
      {"g5.48xlarge", "A10G", 8, 192, 786432, 345, 16.288, false},
      {"g6.xlarge", "L4", 1, 4, 16384, 58, 0.8048, false},
      {"g6.12xlarge", "L4", 4, 48, 196608, 234, 4.6016, false},
      {"g6.48xlarge", "L4", 8, 192, 786432, 737, 13.3504, false},
      {"a2-highgpu-1g", "A100-40GB", 1, 12, 87040, 110, 3.673385, false},
      {"a2-highgpu-2g", "A100-40GB", 2, 24, 174080, 110, 7.34677, false},
      {"a2-highgpu-4g", "A100-40GB", 4, 48, 348160, 110, 14.69354, false},
      {"a2-highgpu-8g", "A100-40GB", 8, 96, 696320, 110, 29.38708, false},
      {"m6i.4xlarge", "", 0, 16, 65536, 234, 0.768, false},
  };
  return kTypes;
}

std::string PciBusId(const InstanceType& type, int index) {
  static const std::map<std::string, std::vector<std::string>> kBusIds = {
      {"p4d.24xlarge", {"10:1C", "10:1D", "20:1C", "20:1D", "90:1C", "90:1D", "A0:1C", "A0:1D"}},
      {"p4de.24xlarge", {"10:1C", "10:1D", "20:1C", "20:1D", "90:1C", "90:1D", "A0:1C", "A0:1D"}},
      {"p5.48xlarge", {"53:00", "64:00", "75:00", "86:00", "97:00", "A8:00", "B9:00", "CA:00"}},
      {"g5.xlarge", {"00:1E"}},
      {"g5.12xlarge", {"00:1B", "00:1C", "00:1D", "00:1E"}},
      {"g5.48xlarge", {"00:16", "00:17", "00:18", "00:19", "00:1A", "00:1B", "00:1C", "00:1D"}},
      {"g6.xlarge", {"31:00"}},
      {"g6.12xlarge", {"38:00", "3A:00", "3C:00", "3E:00"}},
      {"g6.48xlarge", {"9A:00", "9C:00", "9E:00", "A0:00", "BA:00", "BC:00", "BE:00", "C0:00"}},
  };
  auto it = kBusIds.find(type.name);
  char buf[32];
  if (it != kBusIds.end() && index >= 0 && index < static_cast<int>(it->second.size())) {
    std::snprintf(buf, sizeof(buf), "00000000:%s.0", it->second[index].c_str());
  } else {
    std::snprintf(buf, sizeof(buf), "00000000:%02X:00.0", (0x10 + 0x10 * index) & 0xFF);
  }
  return buf;
}

const ExporterInfo& ExporterFor(DcgmStyle style) {
  static const ExporterInfo kOperator = {"gpu-operator", "nvidia-dcgm-exporter", "nvidia-dcgm-exporter",
                                         "nvcr.io/nvidia/k8s/dcgm-exporter:3.1.8-3.1.5-ubuntu20.04"};
  static const ExporterInfo kHelm = {"monitoring", "dcgm-exporter", "exporter",
                                     "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04"};
  return style == DcgmStyle::kOldHostname ? kOperator : kHelm;
}

const char* KindName(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::kDeployment: return "Deployment";
    case WorkloadKind::kStatefulSet: return "StatefulSet";
    case WorkloadKind::kJob: return "Job";
    case WorkloadKind::kBarePod: return "Pod";
  }
  return "Pod";
}

std::string SyntheticCluster::ControllerName(const PodSpec& p) const {
  const WorkloadSpec& w = workloads[p.workload];
  switch (w.kind) {
    case WorkloadKind::kDeployment: return w.name + "-" + (p.old_replicaset ? w.old_rs_hash : w.rs_hash);
    case WorkloadKind::kStatefulSet: return w.name;
    case WorkloadKind::kJob: return w.job_name;
    case WorkloadKind::kBarePod: return "";
  }
  return "";
}

int64_t SyntheticCluster::SampleCount(int64_t from, int64_t to) const {
  if (from > to) return 0;
  return (to - from) / interval_seconds + 1;
}

}  // namespace kubeon::gencluster
