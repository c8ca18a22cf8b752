// The synthetic world gen-cluster writes: GPU and instance types, nodes,
// workloads, pods and the history window, as plain data.
//
// Everything the writers (kube_json.h, openmetrics_writer.h) and the in-memory
// builders print or fill is decided here, once, by Generate() in synthetic.h;
// the writers only format it.  So the cluster file, the history file and the
// in-memory model are three views of one SyntheticCluster and always agree.
//
// Determinism: Rng is std::mt19937_64 with its own uniform/normal helpers
// (the standard distributions are implementation-defined), and every
// per-series stream is seeded from (seed, stable name hash), never from
// addresses or std::hash.
//
// Invariants of a generated SyntheticCluster (synthetic_test checks them):
//  - node, workload and pod names are unique (pods per namespace);
//  - a pod's GPUs are distinct indices below its node's GPU count and no two
//    snapshot pods share a GPU; pods of the old ReplicaSet are not in the
//    snapshot and ran before the current ones, on the same GPUs;
//  - history windows lie on the sample grid inside [history_start, history_end];
//  - each workload with history has exactly one (pod, GPU, time) marked as
//    its peak, inside that pod's window.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace kubeon::gencluster {

// ---- randomness -------------------------------------------------------------

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Uniform integer in [lo, hi].  REQUIRES: lo <= hi.
  int64_t Int(int64_t lo, int64_t hi);
  // Normal (Box-Muller, one draw per call).
  double Normal(double mean, double sd);
  bool Chance(double p) { return Uniform() < p; }
  // n characters drawn from `alphabet`.
  std::string Chars(std::string_view alphabet, int n);

 private:
  std::mt19937_64 engine_;
};

// Kubernetes' rand.String / pod-template-hash alphabet (no vowels, no 0/1/3).
inline constexpr std::string_view kKubeAlphabet = "bcdfghjklmnpqrstvwxz2456789";
inline constexpr std::string_view kHexAlphabet = "0123456789abcdef";

// A stable 64-bit seed from a seed and a name (FNV-1a then splitmix64).
uint64_t DeriveSeed(uint64_t seed, std::string_view name, uint64_t salt = 0);

// "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx" (a version-4 UUID layout).
std::string NewUid(Rng& rng);

// Unix seconds -> "2025-05-05T00:00:00Z".
std::string Rfc3339(int64_t unix_seconds);

// ---- hardware -----------------------------------------------------------------

struct GpuType {
  std::string id;          // MIG catalog id, e.g. "A100-40GB"
  std::string product;     // GFD nvidia.com/gpu.product, e.g. "NVIDIA-A100-SXM4-40GB"
  std::string model_name;  // NVML name as dcgm-exporter's modelName, e.g. "NVIDIA A100-SXM4-40GB"
  int64_t memory_mib = 0;  // GFD nvidia.com/gpu.memory (= FB_USED + FB_FREE + reserved)
  int64_t reserved_mib = 0;
  bool mig_capable = false;
  std::string family;  // GFD nvidia.com/gpu.family
  int compute_major = 0;
  int compute_minor = 0;
};

// The GPU types gen-cluster knows (A100 40/80GB, H100 80GB, A10G, L4).
const std::vector<GpuType>& KnownGpuTypes();
// nullptr when unknown.
const GpuType* FindGpuType(std::string_view id);

struct InstanceType {
  std::string name;     // node.kubernetes.io/instance-type
  std::string gpu;      // GpuType id, "" for a CPU instance
  int gpus = 0;
  int cpus = 0;
  int64_t memory_mib = 0;
  int max_pods = 110;
  double usd_per_hour = 0;  // on-demand list price (us-east-1 / us-central1)
  bool custom = false;      // made up for an unusual GPU count (scale preset)
};

// Real instance types with their list prices.
const std::vector<InstanceType>& KnownInstanceTypes();

// PCI bus id of GPU `index` on the instance ("00000000:10:1C.0" on p4d).
std::string PciBusId(const InstanceType& type, int index);

// ---- cluster ------------------------------------------------------------------

// How dcgm-exporter's series of a node are labelled.
enum class DcgmStyle {
  kOldHostname,     // older dcgm-exporter (3.1): `Hostname`, no pci_bus_id
  kNewHostname,     // newer: `hostname`, pci_bus_id and DCGM_FI_DRIVER_VERSION
  kServiceMonitor,  // scraped through a ServiceMonitor: the workload's pod in exported_*
};

// The dcgm-exporter DaemonSet serving nodes of a DcgmStyle: the operator's
// older exporter, or a newer Helm-installed one.
struct ExporterInfo {
  const char* namespace_;
  const char* daemonset;
  const char* container;
  const char* image;
};
const ExporterInfo& ExporterFor(DcgmStyle style);

struct NodeSpec {
  std::string name;  // also kubernetes.io/hostname and dcgm's hostname
  std::string uid;
  std::string pool;  // label kubeon.io/pool (and the EKS node group)
  std::string zone;  // topology.kubernetes.io/zone
  std::string ip;
  std::string instance_id;  // i-0123456789abcdef0
  int instance = 0;         // index into SyntheticCluster::instance_types
  int64_t created = 0;      // Unix s
  bool cordoned = false;
  std::optional<double> price_annotation;  // kubeon.io/hourly-price-usd
  DcgmStyle dcgm = DcgmStyle::kOldHostname;
  std::string driver_version;  // e.g. "550.90.07"
  // dcgm-exporter DaemonSet pod on this node ("" when not in the snapshot).
  std::string exporter_pod, exporter_uid, exporter_ip;
  std::vector<std::string> gpu_uuids;  // one per GPU
};

enum class WorkloadKind { kDeployment, kStatefulSet, kJob, kBarePod };
const char* KindName(WorkloadKind kind);  // "Deployment", "StatefulSet", "Job", "Pod"

enum class UsageShape {
  kInference,  // weights resident, cache and compute follow a daily load curve
  kTraining,   // memory near its peak, compute near its peak, all day
  kNotebook,   // idle most of the time, bursts during working hours
};

enum class HistoryKind {
  kFull,         // the whole window
  kShort,        // only the last WorkloadSpec::history_seconds
  kNone,         // no series at all
  kBadSamples,   // the whole window, a few FB_USED samples are NaN
};

struct UsageSpec {
  UsageShape shape = UsageShape::kInference;
  int64_t peak_memory_mib = 0;  // exact maximum of FB_USED over the workload's pods
  int64_t base_memory_mib = 0;  // resident floor (weights, CUDA context)
  double peak_compute = 0;      // exact maximum of GR_ENGINE_ACTIVE
  double base_compute = 0;      // compute at the lowest load
};

struct PdbSpec {
  std::string name;
  std::string min_available;    // "" | "3" | "66%"
  std::string max_unavailable;  // "" | "1" | "25%"
};

struct WorkloadSpec {
  std::string namespace_;
  std::string name;  // also label app=<name>
  std::string uid;
  WorkloadKind kind = WorkloadKind::kDeployment;
  int64_t created = 0;
  int replicas = 1;
  int gpus_per_pod = 1;          // 0: a CPU workload
  bool gpu_in_requests = false;  // nvidia.com/gpu also under requests (else limits only)
  std::string container;
  std::string image;
  std::string cpu_request, cpu_limit, memory_request, memory_limit;
  std::string pool;  // nodeSelector kubeon.io/pool; "" = the CPU pool
  UsageSpec usage;
  HistoryKind history = HistoryKind::kFull;
  int64_t history_seconds = 0;  // kShort
  std::optional<PdbSpec> pdb;
  // Deployment: the current ReplicaSet; when a rollout happened inside the
  // history window, also the previous one (scaled to 0, kept in the snapshot
  // as Kubernetes keeps revisionHistoryLimit ReplicaSets).
  std::string rs_hash, rs_uid;
  int64_t rs_created = 0;
  std::string old_rs_hash, old_rs_uid;
  int64_t old_rs_created = 0;
  int64_t rollout = 0;  // Unix s when the current ReplicaSet's pods replaced the old ones
  int revision = 1;     // deployment.kubernetes.io/revision
  // StatefulSet: controller-revision-hash suffix.  Job: its name is
  // "<name>-<scheduled minute>" (CronJob naming); job_uid is the Job's uid.
  std::string revision_hash;
  std::string job_name, job_uid;
};

struct PodSpec {
  std::string name;
  std::string uid;
  std::string ip;
  int workload = -1;
  int node = -1;
  std::vector<int> gpus;  // GPU indices on the node
  int64_t created = 0;    // Unix s (also start and condition times)
  bool in_snapshot = true;    // false: replaced by a rollout, only in the history
  bool old_replicaset = false;
  int ordinal = -1;  // StatefulSet
  // History window on the sample grid, inclusive; empty when from > to.
  int64_t history_from = 0;
  int64_t history_to = -1;
  // The workload's peak sample: GPU ordinal (index into gpus) and time; -1 = none here.
  int peak_gpu = -1;
  int64_t peak_ts = 0;
  bool HasHistory() const { return history_from <= history_to; }
};

struct PolicySpec {
  std::string name;
  std::vector<std::string> allowed_profiles;
  std::string headroom = "20%";
  std::vector<std::string> time_slicing_namespaces;
  int max_replicas = 4;
  std::string window;
};

struct SyntheticCluster {
  std::string preset;  // "demo" | "scale" | "full"
  uint64_t seed = 0;
  int64_t snapshot_time = 0;  // Unix s; also the end of the history
  int64_t history_start = 0;
  int64_t history_end = 0;    // last sample time (== snapshot_time)
  int64_t interval_seconds = 60;
  bool history = true;        // false: --no-history
  bool compact = false;       // --compact: cluster.json without the fields kubeon does not read
  int bad_samples_per_series = 0;  // NaN FB_USED samples per kBadSamples series
  std::vector<InstanceType> instance_types;
  std::vector<NodeSpec> nodes;
  std::vector<WorkloadSpec> workloads;
  std::vector<PodSpec> pods;
  PolicySpec policy;

  const InstanceType& InstanceOf(const NodeSpec& n) const { return instance_types[n.instance]; }
  // nullptr for a CPU node.
  const GpuType* GpuOf(const NodeSpec& n) const { return FindGpuType(InstanceOf(n).gpu); }
  // Name of the pod's direct controller: ReplicaSet, StatefulSet or Job; "" for a bare pod.
  std::string ControllerName(const PodSpec& p) const;
  // Number of samples between from and to on the grid (0 when empty).
  int64_t SampleCount(int64_t from, int64_t to) const;
};

}  // namespace kubeon::gencluster
