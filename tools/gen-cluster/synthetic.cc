// See synthetic.h.  Generation order matters for determinism: every random
// draw comes from one Rng in a fixed order (or from a stream derived from a
// name), so nothing here may iterate an unordered container.
#include "gen-cluster/synthetic.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_set>

#include "gen-cluster/kube_json.h"
#include "gen-cluster/openmetrics_writer.h"

namespace kubeon::gencluster {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 86400;
// 2025-11-03T09:00:00Z, a Monday morning: the history covers Friday 09:00 to
// Monday 09:00, a weekend included.
constexpr int64_t kSnapshotTime = 1762160400;
constexpr const char* kOldDriver = "535.161.08";
constexpr const char* kNewDriver = "550.90.07";
const char* const kZones[] = {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"};

int64_t MiB(double gib) { return std::llround(gib * 1024.0); }

// Memory quantity for a container: whole GiB.
std::string Gi(int64_t gib) { return std::to_string(gib) + "Gi"; }

class Builder {
 public:
  Builder(const Options& o, int64_t interval, int64_t samples) : rng_(o.seed) {
    c_.preset = o.preset == Preset::kDemo ? "demo" : o.preset == Preset::kScale ? "scale" : "full";
    c_.seed = o.seed;
    c_.history = o.history;
    c_.compact = o.compact;
    c_.snapshot_time = kSnapshotTime;
    c_.history_end = kSnapshotTime;
    c_.interval_seconds = interval;
    c_.history_start = kSnapshotTime - interval * (samples - 1);
    c_.bad_samples_per_series = 6;
    c_.policy = {"gpu-sharing",
                 {"1g.5gb", "2g.10gb", "3g.20gb", "1g.10gb", "2g.20gb", "3g.40gb"},
                 "20%",
                 {"ml-dev", "notebooks"},
                 4,
                 "Sat 02:00-06:00 UTC"};
  }

  SyntheticCluster Take() { return std::move(c_); }
  Rng& rng() { return rng_; }
  SyntheticCluster& cluster() { return c_; }

  // Index of the instance type, added from the known list (or as a custom
  // type with per-GPU pricing of the known 8-GPU type) on first use.
  int Instance(const std::string& gpu, int gpus, const std::string& name = "") {
    for (size_t i = 0; i < c_.instance_types.size(); ++i) {
      const InstanceType& t = c_.instance_types[i];
      if (name.empty() ? (t.gpu == gpu && t.gpus == gpus) : t.name == name) return static_cast<int>(i);
    }
    for (const InstanceType& t : KnownInstanceTypes()) {
      if (name.empty() ? (t.gpu == gpu && t.gpus == gpus) : t.name == name) {
        c_.instance_types.push_back(t);
        return static_cast<int>(c_.instance_types.size() - 1);
      }
    }
    InstanceType t;
    for (const InstanceType& k : KnownInstanceTypes()) {
      if (k.gpu == gpu && k.gpus == 8) t = k;
    }
    std::string lower = gpu;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    t.name = lower + "-x" + std::to_string(gpus);
    t.usd_per_hour = std::round(t.usd_per_hour / 8 * gpus * 10000) / 10000;
    t.cpus = std::max(4, t.cpus / 8 * gpus);
    t.memory_mib = std::max<int64_t>(16384, t.memory_mib / 8 * gpus);
    t.gpus = gpus;
    t.custom = true;
    c_.instance_types.push_back(t);
    return static_cast<int>(c_.instance_types.size() - 1);
  }

  // A unique address in the zone's /12 (10.<16z..16z+15>.x.y).
  std::string Ip(int zone) {
    for (;;) {
      const uint32_t a = static_cast<uint32_t>(16 * zone + rng_.Int(0, 15));
      const uint32_t b = static_cast<uint32_t>(rng_.Int(0, 255));
      const uint32_t d = static_cast<uint32_t>(rng_.Int(4, 254));
      const uint32_t key = (a << 16) | (b << 8) | d;
      if (!ips_.insert(key).second) continue;
      return "10." + std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(d);
    }
  }

  int AddNode(const std::string& pool, int instance, int zone, DcgmStyle style, int64_t created) {
    NodeSpec n;
    n.ip = Ip(zone);
    std::string dashed = n.ip;
    std::replace(dashed.begin(), dashed.end(), '.', '-');
    n.name = "ip-" + dashed + ".ec2.internal";
    n.uid = NewUid(rng_);
    n.pool = pool;
    n.zone = kZones[zone];
    n.instance_id = "i-0" + rng_.Chars(kHexAlphabet, 16);
    n.instance = instance;
    n.created = created;
    n.dcgm = style;
    n.driver_version = style == DcgmStyle::kOldHostname ? kOldDriver : kNewDriver;
    const InstanceType& it = c_.instance_types[instance];
    for (int g = 0; g < it.gpus; ++g) {
      std::string u = NewUid(rng_);
      u[14] = rng_.Chars(kHexAlphabet, 1)[0];  // GPU UUIDs are not version-4 UUIDs
      n.gpu_uuids.push_back("GPU-" + u);
    }
    if (it.gpus > 0) {
      n.exporter_pod = std::string(ExporterFor(style).daemonset) + "-" + UniquePodSuffix(ExporterFor(style).namespace_,
                                                                                          ExporterFor(style).daemonset);
      n.exporter_uid = NewUid(rng_);
      n.exporter_ip = Ip(zone);
    }
    free_.emplace_back(it.gpus, true);
    zone_.push_back(zone);
    c_.nodes.push_back(std::move(n));
    return static_cast<int>(c_.nodes.size() - 1);
  }

  // Fills the Kubernetes identity of a workload (uids, hashes, times).
  int AddWorkload(WorkloadSpec w) {
    w.uid = NewUid(rng_);
    if (w.created == 0) w.created = c_.history_start - rng_.Int(20 * kDay, 200 * kDay);
    if (w.kind == WorkloadKind::kDeployment) {
      w.rs_hash = rng_.Chars(kKubeAlphabet, 10);
      w.rs_uid = NewUid(rng_);
      if (w.revision >= 2) {
        w.old_rs_hash = rng_.Chars(kKubeAlphabet, 10);
        w.old_rs_uid = NewUid(rng_);
        w.old_rs_created = w.created;
        const int64_t lo = w.created + kDay, hi = c_.history_start - 3 * kDay;
        w.rs_created = w.rollout != 0 ? w.rollout - rng_.Int(30, 120) : lo < hi ? rng_.Int(lo, hi) : w.created + 30;
      } else {
        w.rs_created = w.created;
      }
    } else if (w.kind == WorkloadKind::kStatefulSet) {
      w.revision_hash = rng_.Chars(kKubeAlphabet, 10);
    } else if (w.kind == WorkloadKind::kJob) {
      w.job_name = w.name + "-" + std::to_string(w.created / 60);
      w.job_uid = NewUid(rng_);
    }
    c_.workloads.push_back(std::move(w));
    return static_cast<int>(c_.workloads.size() - 1);
  }

  // Node indices of a pool, in creation order.
  std::vector<int> PoolNodes(const std::string& pool) const {
    std::vector<int> out;
    for (size_t i = 0; i < c_.nodes.size(); ++i) {
      if (c_.nodes[i].pool == pool) out.push_back(static_cast<int>(i));
    }
    return out;
  }

  int FreeGpus(int node) const { return static_cast<int>(std::count(free_[node].begin(), free_[node].end(), true)); }

  // Places one pod of workload `wi` on `node`, taking its lowest free GPUs.
  // REQUIRES: FreeGpus(node) >= the workload's gpus_per_pod.
  int AddPod(int wi, int node, int ordinal) {
    const WorkloadSpec& w = c_.workloads[wi];
    PodSpec p;
    p.workload = wi;
    p.node = node;
    p.ordinal = ordinal;
    for (int g = 0; g < static_cast<int>(free_[node].size()) && static_cast<int>(p.gpus.size()) < w.gpus_per_pod; ++g) {
      if (free_[node][g]) {
        free_[node][g] = false;
        p.gpus.push_back(g);
      }
    }
    switch (w.kind) {
      case WorkloadKind::kDeployment:
        p.name = w.name + "-" + w.rs_hash + "-" + UniquePodSuffix(w.namespace_, w.name + "-" + w.rs_hash);
        break;
      case WorkloadKind::kStatefulSet: p.name = w.name + "-" + std::to_string(ordinal); break;
      case WorkloadKind::kJob: p.name = w.job_name + "-" + UniquePodSuffix(w.namespace_, w.job_name); break;
      case WorkloadKind::kBarePod: p.name = w.name; break;
    }
    p.uid = NewUid(rng_);
    p.ip = Ip(zone_[node]);
    // Creation and history window.
    if (w.kind == WorkloadKind::kJob || w.history == HistoryKind::kShort || w.history == HistoryKind::kNone) {
      p.created = w.created + rng_.Int(5, 40);
    } else if (w.rollout != 0) {
      p.created = w.rollout + rng_.Int(5, 90);
    } else {
      const int64_t owner_created = w.kind == WorkloadKind::kDeployment ? w.rs_created : w.created;
      p.created = std::max(owner_created + 60, c_.history_start - rng_.Int(2 * kHour, 12 * kDay));
    }
    if (c_.history && w.gpus_per_pod > 0 && w.history != HistoryKind::kNone) {
      p.history_from = GridCeil(p.created);
      p.history_to = c_.history_end;
    }
    c_.pods.push_back(p);
    return static_cast<int>(c_.pods.size() - 1);
  }

  // The pods a rollout replaced: same GPUs, history from the window start
  // until just before the rollout; not in the snapshot.
  void AddReplacedPods(int wi) {
    WorkloadSpec& w = c_.workloads[wi];
    const size_t n = c_.pods.size();
    for (size_t i = 0; i < n; ++i) {
      if (c_.pods[i].workload != wi || !c_.pods[i].in_snapshot) continue;
      PodSpec p = c_.pods[i];
      p.in_snapshot = false;
      p.old_replicaset = true;
      p.name = w.name + "-" + w.old_rs_hash + "-" + UniquePodSuffix(w.namespace_, w.name + "-" + w.old_rs_hash);
      p.uid = NewUid(rng_);
      p.created = std::max(w.old_rs_created + 60, c_.history_start - rng_.Int(2 * kHour, 9 * kDay));
      if (c_.history) {
        p.history_from = GridCeil(p.created);
        p.history_to = GridFloor(w.rollout - 1);
      }
      c_.pods.push_back(p);
    }
  }

  // Marks one sample of workload `wi` as its peak: on one of its pods with
  // history (the replaced ones when `replaced`), at a busy time when there is one.
  void ChoosePeak(int wi, bool replaced) {
    const WorkloadSpec& w = c_.workloads[wi];
    std::vector<int> candidates;
    for (size_t i = 0; i < c_.pods.size(); ++i) {
      const PodSpec& p = c_.pods[i];
      if (p.workload == wi && p.HasHistory() && p.old_replicaset == replaced) candidates.push_back(static_cast<int>(i));
    }
    if (candidates.empty()) return;
    PodSpec& p = c_.pods[candidates[rng_.Int(0, static_cast<int64_t>(candidates.size()) - 1)]];
    p.peak_gpu = static_cast<int>(rng_.Int(0, static_cast<int64_t>(p.gpus.size()) - 1));
    auto busy = [&](int64_t t) {
      const int dow = static_cast<int>(((t / kDay) + 4) % 7);
      const int64_t hour = (t % kDay) / kHour;
      return w.usage.shape == UsageShape::kTraining || (dow >= 1 && dow <= 5 && hour >= 13 && hour < 18);
    };
    const int64_t iv = c_.interval_seconds;
    int64_t n_busy = 0;
    for (int64_t t = p.history_from; t <= p.history_to; t += iv) n_busy += busy(t) ? 1 : 0;
    if (n_busy == 0) {
      p.peak_ts = p.history_from + iv * rng_.Int(0, c_.SampleCount(p.history_from, p.history_to) - 1);
      return;
    }
    int64_t k = rng_.Int(0, n_busy - 1);
    for (int64_t t = p.history_from; t <= p.history_to; t += iv) {
      if (busy(t) && k-- == 0) {
        p.peak_ts = t;
        return;
      }
    }
  }

  int64_t GridCeil(int64_t t) const {
    if (t <= c_.history_start) return c_.history_start;
    const int64_t k = (t - c_.history_start + c_.interval_seconds - 1) / c_.interval_seconds;
    return c_.history_start + k * c_.interval_seconds;
  }
  int64_t GridFloor(int64_t t) const {
    if (t < c_.history_start) return c_.history_start - c_.interval_seconds;  // empty window
    return c_.history_start + (t - c_.history_start) / c_.interval_seconds * c_.interval_seconds;
  }

 private:
  std::string UniquePodSuffix(const std::string& ns, const std::string& prefix) {
    for (;;) {
      std::string s = rng_.Chars(kKubeAlphabet, 5);
      if (pod_names_.insert(ns + "/" + prefix + "-" + s).second) return s;
    }
  }

  SyntheticCluster c_;
  Rng rng_;
  std::unordered_set<uint32_t> ips_;
  std::unordered_set<std::string> pod_names_;
  std::vector<std::vector<bool>> free_;  // per node: GPU free
  std::vector<int> zone_;                // per node
};

// ---- demo -----------------------------------------------------------------------

struct DemoWorkload {
  const char* ns;
  const char* name;
  WorkloadKind kind;
  int replicas;
  int gpus;
  bool gpu_in_requests;
  const char* pool;
  const char* placement;  // per replica, the index of its node in the pool
  UsageShape shape;
  double peak_gib, base_gib, peak_compute, base_compute;
  HistoryKind history;
  const char* pdb_min;
  const char* pdb_max;
  const char* image;
  const char* container;
  const char* cpu;     // request; the limit is twice as much
  int memory_gib;      // host memory request and limit
};

constexpr WorkloadKind kDep = WorkloadKind::kDeployment;
constexpr WorkloadKind kSts = WorkloadKind::kStatefulSet;
constexpr WorkloadKind kJob = WorkloadKind::kJob;
constexpr WorkloadKind kBare = WorkloadKind::kBarePod;
constexpr UsageShape kInf = UsageShape::kInference;
constexpr UsageShape kTrain = UsageShape::kTraining;
constexpr UsageShape kNb = UsageShape::kNotebook;
constexpr HistoryKind kFull = HistoryKind::kFull;

// Peaks and the slice the planner should pick with 20% headroom are in
// examples/demo/README.md; keep the two in step.  Placement is explicit, as
// a snapshot would show it: in each pool the workloads that stay on whole
// GPUs share a node with some movable ones, the other nodes hold only
// movable workloads (so consolidating them can free a node).
const DemoWorkload kDemoWorkloads[] = {
    // a100-pool: p4d.24xlarge, 8x A100-SXM4-40GB, MIG (mixed strategy).
    {"production", "embedder", kDep, 4, 1, true, "a100-pool", "0112", kInf, 3.6, 2.9, 0.085, 0.01, kFull, "3", "",
     "registry.example.com/search/embedder:2.14.1", "embedder", "4", 16},
    {"production", "reranker", kDep, 3, 1, false, "a100-pool", "012", kInf, 7.2, 5.5, 0.105, 0.02, kFull, "", "1",
     "registry.example.com/search/reranker:1.9.0", "reranker", "4", 24},
    {"production", "fraud-scorer", kSts, 3, 1, false, "a100-pool", "112", kInf, 5.4, 4.2, 0.19, 0.04, kFull, "66%", "",
     "registry.example.com/risk/fraud-scorer:5.2.3", "scorer", "6", 24},
    {"inference", "sentiment", kDep, 2, 1, false, "a100-pool", "12", kInf, 2.7, 2.1, 0.06, 0.005, kFull, "", "",
     "nvcr.io/nvidia/tritonserver:24.08-py3", "triton", "2", 12},
    {"inference", "llm-7b", kDep, 3, 1, true, "a100-pool", "012", kInf, 15.1, 13.8, 0.33, 0.06, kFull, "2", "",
     "vllm/vllm-openai:v0.6.3", "vllm", "8", 48},
    {"production", "recsys-trainer", kSts, 2, 1, false, "a100-pool", "00", kTrain, 38.6, 38.0, 0.93, 0.9, kFull, "", "",
     "registry.example.com/recsys/trainer:2025.10.28", "trainer", "10", 96},
    {"production", "llm-finetune", kSts, 1, 2, false, "a100-pool", "0", kTrain, 36.2, 35.0, 0.9, 0.85, kFull, "", "",
     "nvcr.io/nvidia/nemo:24.07", "nemo", "16", 160},
    {"production", "nightly-eval", kJob, 1, 1, false, "a100-pool", "0", kInf, 11.0, 9.5, 0.55, 0.3, kFull, "", "",
     "registry.example.com/ml/eval-harness:0.9.4", "eval", "8", 64},
    // h100-pool: p5.48xlarge, 8x H100 80GB HBM3, MIG; dcgm-exporter behind a ServiceMonitor.
    {"inference", "llm-8b", kDep, 4, 1, true, "h100-pool", "0111", kInf, 26.4, 24.0, 0.31, 0.05, kFull, "75%", "",
     "vllm/vllm-openai:v0.6.3", "vllm", "12", 64},
    {"production", "asr-whisper", kDep, 3, 1, false, "h100-pool", "011", kInf, 9.1, 6.0, 0.15, 0.02, kFull, "3", "",
     "registry.example.com/speech/whisper-server:3.1.0", "whisper", "8", 32},
    {"production", "embeddings-xl", kDep, 2, 1, false, "h100-pool", "01", kInf, 4.4, 3.6, 0.07, 0.01, kFull, "", "",
     "ghcr.io/huggingface/text-embeddings-inference:1.5", "tei", "4", 16},
    {"production", "ranker-train", kSts, 1, 1, false, "h100-pool", "0", kTrain, 77.2, 76.0, 0.92, 0.88, kFull, "", "",
     "registry.example.com/search/ranker-train:2025.11.01", "trainer", "16", 128},
    {"inference", "llm-canary", kDep, 1, 1, true, "h100-pool", "0", kInf, 24.9, 23.5, 0.28, 0.04, HistoryKind::kShort, "",
     "", "vllm/vllm-openai:v0.6.4", "vllm", "12", 64},
    {"inference", "new-model", kDep, 1, 1, true, "h100-pool", "0", kInf, 20.0, 18.0, 0.3, 0.05, HistoryKind::kNone, "", "",
     "ghcr.io/huggingface/text-generation-inference:2.4.0", "tgi", "12", 64},
    // a10g-pool: g5.12xlarge, 4x A10G, no MIG.
    {"notebooks", "alice-nb", kSts, 1, 1, false, "a10g-pool", "0", kNb, 5.6, 0.4, 0.35, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2", "alice-nb", "2", 16},
    {"notebooks", "bob-nb", kSts, 1, 1, false, "a10g-pool", "1", kNb, 1.8, 0.35, 0.12, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2", "bob-nb", "2", 16},
    {"notebooks", "carol-nb", kSts, 1, 1, false, "a10g-pool", "1", kNb, 3.9, 0.4, 0.22, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2", "carol-nb", "2", 16},
    {"notebooks", "dave-nb", kSts, 1, 1, false, "a10g-pool", "1", kNb, 2.4, 0.35, 0.18, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-tensorflow-cuda-full:v1.9.2", "dave-nb", "2", 16},
    {"notebooks", "erin-nb", kSts, 1, 1, false, "a10g-pool", "2", kNb, 1.1, 0.3, 0.08, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2", "erin-nb", "2", 16},
    {"ml-dev", "feature-exp", kDep, 2, 1, false, "a10g-pool", "22", kInf, 5.2, 3.0, 0.22, 0.02, kFull, "", "",
     "pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime", "main", "4", 24},
    {"ml-dev", "gpu-debug-shell", kBare, 1, 1, false, "a10g-pool", "0", kNb, 1.3, 0.3, 0.05, 0, kFull, "", "",
     "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "shell", "1", 4},
    {"ml-dev", "tokenizer-bench", kDep, 1, 1, false, "a10g-pool", "0", kInf, 3.1, 1.2, 0.4, 0.05, HistoryKind::kBadSamples,
     "", "", "registry.example.com/ml/tokenizer-bench:0.3.0", "bench", "4", 16},
    // l4-pool: g6.12xlarge, 4x L4, no MIG; its third node is cordoned.
    {"inference", "ocr", kDep, 3, 1, false, "l4-pool", "012", kInf, 6.3, 4.8, 0.27, 0.03, kFull, "", "34%",
     "registry.example.com/docs/ocr-service:4.0.2", "ocr", "4", 16},
    {"notebooks", "frank-nb", kSts, 1, 1, false, "l4-pool", "0", kNb, 4.7, 0.4, 0.25, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2", "frank-nb", "2", 16},
    {"notebooks", "grace-nb", kSts, 1, 1, false, "l4-pool", "1", kNb, 2.2, 0.35, 0.15, 0, kFull, "", "",
     "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2", "grace-nb", "2", 16},
    {"ml-dev", "asr-experiments", kDep, 2, 1, false, "l4-pool", "21", kInf, 7.9, 5.0, 0.3, 0.03, kFull, "", "",
     "registry.example.com/speech/asr-exp:dev-7f3c2a1", "asr", "4", 16},
    {"ml-dev", "summarizer-dev", kDep, 1, 1, false, "l4-pool", "0", kInf, 14.2, 12.0, 0.41, 0.05, kFull, "", "",
     "registry.example.com/ml/summarizer:dev-1e9b0d4", "summarizer", "4", 32},
    // system-pool: no GPU.
    {"production", "api-gateway", kDep, 2, 0, false, "system-pool", "00", kInf, 0, 0, 0, 0, HistoryKind::kNone, "", "1",
     "registry.example.com/platform/api-gateway:1.22.0", "gateway", "1", 2},
};

WorkloadSpec FromDemo(const DemoWorkload& d) {
  WorkloadSpec w;
  w.namespace_ = d.ns;
  w.name = d.name;
  w.kind = d.kind;
  w.replicas = d.replicas;
  w.gpus_per_pod = d.gpus;
  w.gpu_in_requests = d.gpu_in_requests;
  w.pool = d.pool;
  w.usage = {d.shape, MiB(d.peak_gib), MiB(d.base_gib), d.peak_compute, d.base_compute};
  w.history = d.history;
  if (*d.pdb_min || *d.pdb_max) w.pdb = PdbSpec{w.name, d.pdb_min, d.pdb_max};
  w.image = d.image;
  w.container = d.container;
  w.cpu_request = d.cpu;
  w.cpu_limit = std::to_string(2 * std::stoi(d.cpu));
  w.memory_request = Gi(d.memory_gib);
  w.memory_limit = Gi(d.memory_gib);
  return w;
}

SyntheticCluster GenerateDemo(Builder& b) {
  SyntheticCluster& c = b.cluster();
  const int64_t t0 = c.snapshot_time;
  // Pools: name, instance type, count, zones, dcgm style.
  struct Pool {
    const char* name;
    const char* instance;
    int count;
    int zones[2];
    DcgmStyle style;
  };
  const Pool pools[] = {
      {"system-pool", "m6i.4xlarge", 1, {0, 0}, DcgmStyle::kOldHostname},
      {"a100-pool", "p4d.24xlarge", 3, {0, 1}, DcgmStyle::kOldHostname},
      {"h100-pool", "p5.48xlarge", 2, {0, 0}, DcgmStyle::kServiceMonitor},
      {"a10g-pool", "g5.12xlarge", 3, {1, 2}, DcgmStyle::kOldHostname},
      {"l4-pool", "g6.12xlarge", 3, {1, 2}, DcgmStyle::kNewHostname},
  };
  for (const Pool& p : pools) {
    const int it = b.Instance("", 0, p.instance);
    for (int i = 0; i < p.count; ++i) {
      b.AddNode(p.name, it, p.zones[i % 2], p.style, t0 - b.rng().Int(30 * kDay, 90 * kDay));
    }
  }
  // The H100 nodes carry their negotiated rate; the others use prices.yaml.
  for (int n : b.PoolNodes("h100-pool")) c.nodes[n].price_annotation = 43.16;
  c.nodes[b.PoolNodes("l4-pool")[2]].cordoned = true;

  for (const DemoWorkload& d : kDemoWorkloads) {
    WorkloadSpec w = FromDemo(d);
    if (w.name == "llm-7b") {
      w.revision = 4;
      w.rollout = t0 - 46 * kHour;  // Saturday 11:00 UTC
    } else if (w.kind == WorkloadKind::kDeployment && b.rng().Chance(0.5)) {
      w.revision = static_cast<int>(b.rng().Int(2, 6));
    }
    if (w.history == HistoryKind::kShort) {
      w.history_seconds = 10 * kHour;
      w.created = t0 - w.history_seconds - 60;
    } else if (w.history == HistoryKind::kNone && w.gpus_per_pod > 0) {
      w.created = t0 - 120;
    } else if (w.kind == WorkloadKind::kJob) {
      w.created = t0 - 7 * kHour;  // 02:00 UTC, the nightly schedule
    }
    const int wi = b.AddWorkload(w);
    const std::vector<int> nodes = b.PoolNodes(d.pool);
    for (int r = 0; r < d.replicas; ++r) b.AddPod(wi, nodes[d.placement[r] - '0'], r);
    if (c.workloads[wi].rollout != 0) b.AddReplacedPods(wi);
    if (d.gpus > 0) b.ChoosePeak(wi, c.workloads[wi].rollout != 0);
  }
  return b.Take();
}

// ---- scale ----------------------------------------------------------------------

struct Share {
  const char* gpu;
  double share;
  DcgmStyle style;
};
const Share kScaleShares[] = {
    {"A100-40GB", 0.30, DcgmStyle::kOldHostname},  {"A100-80GB", 0.15, DcgmStyle::kOldHostname},
    {"H100-80GB", 0.30, DcgmStyle::kServiceMonitor}, {"A10G", 0.15, DcgmStyle::kOldHostname},
    {"L4", 0.10, DcgmStyle::kNewHostname},
};

enum class Category { kSmall, kMedium, kBusy, kNotebook, kDev, kMulti, kJob, kBare, kShort, kNone };
struct CategoryWeight {
  Category category;
  double weight;
};
const CategoryWeight kCategories[] = {
    {Category::kSmall, 0.33}, {Category::kMedium, 0.22}, {Category::kBusy, 0.12}, {Category::kNotebook, 0.10},
    {Category::kDev, 0.09},   {Category::kMulti, 0.04},  {Category::kJob, 0.03},  {Category::kBare, 0.02},
    {Category::kShort, 0.03}, {Category::kNone, 0.02},
};

Category PickCategory(Rng& rng) {
  double x = rng.Uniform();
  for (const CategoryWeight& cw : kCategories) {
    if (x < cw.weight) return cw.category;
    x -= cw.weight;
  }
  return Category::kSmall;
}

const char* Pick(Rng& rng, const std::vector<const char*>& v) { return v[rng.Int(0, static_cast<int64_t>(v.size()) - 1)]; }

// One workload of the scale preset for a pool of `gpu` GPUs with `per_node` per node.
WorkloadSpec ScaleWorkload(Rng& rng, Category cat, const GpuType& gpu, int per_node, const std::string& pool, int serial,
                           int64_t t0) {
  WorkloadSpec w;
  w.pool = pool;
  w.gpu_in_requests = rng.Chance(0.3);
  w.kind = WorkloadKind::kDeployment;
  const double usable_gib = static_cast<double>(gpu.memory_mib - gpu.reserved_mib) / 1024.0;
  double peak = 0, base_frac = 0.75, pc = 0, bc = 0;
  const char* prefix = "svc";
  w.namespace_ = rng.Chance(0.5) ? "production" : "inference";
  switch (cat) {
    case Category::kSmall:
    case Category::kShort:
    case Category::kNone:
      prefix = Pick(rng, {"embedder", "reranker", "classifier", "sentiment", "ner", "moderation", "detector", "tagger"});
      w.replicas = static_cast<int>(rng.Int(1, 6));
      peak = std::min(rng.Uniform(3, 9), 0.45 * usable_gib);
      pc = rng.Uniform(0.05, 0.2);
      bc = pc * 0.1;
      w.image = "registry.example.com/ml/" + std::string(prefix) + ":1." + std::to_string(rng.Int(0, 30)) + ".0";
      break;
    case Category::kMedium:
      prefix = Pick(rng, {"llm-7b", "llm-8b", "vision", "asr", "translate", "summarizer", "codegen"});
      w.replicas = static_cast<int>(rng.Int(1, 4));
      peak = std::min(rng.Uniform(15, 30), 0.8 * usable_gib);
      base_frac = 0.88;
      pc = rng.Uniform(0.3, 0.4);
      bc = 0.05;
      w.image = "vllm/vllm-openai:v0.6.3";
      break;
    case Category::kBusy:
      prefix = Pick(rng, {"trainer", "pretrain", "recsys-train", "ranker-train"});
      w.kind = rng.Chance(0.6) ? WorkloadKind::kStatefulSet : WorkloadKind::kDeployment;
      w.namespace_ = "production";
      w.replicas = static_cast<int>(rng.Int(1, 2));
      peak = usable_gib * rng.Uniform(0.92, 0.98);
      base_frac = 0.98;
      pc = rng.Uniform(0.88, 0.97);
      bc = pc - 0.05;
      w.image = "registry.example.com/ml/trainer:2025.10." + std::to_string(rng.Int(10, 31));
      break;
    case Category::kNotebook:
      prefix = "nb";
      w.kind = WorkloadKind::kStatefulSet;
      w.namespace_ = "notebooks";
      w.replicas = 1;
      peak = std::min(rng.Uniform(1, 6), 0.45 * usable_gib);
      base_frac = 0.0;
      pc = rng.Uniform(0.05, 0.35);
      w.image = "kubeflownotebookswg/jupyter-pytorch-cuda-full:v1.9.2";
      break;
    case Category::kDev:
      prefix = Pick(rng, {"feature-exp", "ablation", "prototype", "data-prep"});
      w.namespace_ = "ml-dev";
      w.replicas = static_cast<int>(rng.Int(1, 2));
      peak = std::min(rng.Uniform(2, 12), 0.6 * usable_gib);
      base_frac = 0.5;
      pc = rng.Uniform(0.05, 0.35);
      bc = 0.02;
      w.image = "pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime";
      break;
    case Category::kMulti: {
      prefix = "finetune";
      w.kind = WorkloadKind::kStatefulSet;
      w.namespace_ = "production";
      w.replicas = static_cast<int>(rng.Int(1, 2));
      int g = 2 << rng.Int(0, 2);  // 2, 4 or 8
      while (g > per_node) g /= 2;
      w.gpus_per_pod = std::max(1, g);
      peak = usable_gib * rng.Uniform(0.85, 0.97);
      base_frac = 0.97;
      pc = rng.Uniform(0.85, 0.95);
      bc = pc - 0.05;
      w.image = "nvcr.io/nvidia/nemo:24.07";
      break;
    }
    case Category::kJob:
      prefix = Pick(rng, {"nightly-eval", "batch-embed", "backfill"});
      w.kind = WorkloadKind::kJob;
      w.namespace_ = "production";
      w.replicas = 1;
      peak = std::min(rng.Uniform(4, 20), 0.8 * usable_gib);
      pc = rng.Uniform(0.3, 0.8);
      bc = 0.1;
      w.image = "registry.example.com/ml/eval-harness:0.9.4";
      break;
    case Category::kBare:
      prefix = "debug-shell";
      w.kind = WorkloadKind::kBarePod;
      w.namespace_ = "ml-dev";
      w.replicas = 1;
      peak = std::min(rng.Uniform(0.5, 3), 0.45 * usable_gib);
      base_frac = 0.2;
      pc = rng.Uniform(0.02, 0.2);
      w.image = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";
      break;
  }
  char serial_text[16];
  std::snprintf(serial_text, sizeof(serial_text), "%05d", serial);
  w.name = std::string(prefix) + "-" + serial_text;
  w.container = cat == Category::kNotebook ? w.name : "main";
  const UsageShape shape = cat == Category::kNotebook || cat == Category::kBare ? UsageShape::kNotebook
                           : cat == Category::kBusy || cat == Category::kMulti   ? UsageShape::kTraining
                                                                                  : UsageShape::kInference;
  const int64_t peak_mib = std::max<int64_t>(256, MiB(peak));
  const int64_t base_mib = shape == UsageShape::kNotebook ? std::min<int64_t>(MiB(0.35), peak_mib / 2)
                                                          : static_cast<int64_t>(static_cast<double>(peak_mib) * base_frac);
  w.usage = {shape, peak_mib, std::max<int64_t>(16, base_mib), std::round(pc * 1000) / 1000, std::round(bc * 1000) / 1000};
  w.history = cat == Category::kShort ? HistoryKind::kShort : cat == Category::kNone ? HistoryKind::kNone : HistoryKind::kFull;
  if (cat == Category::kShort) {
    w.history_seconds = rng.Int(2, 20) * kHour;
    w.created = t0 - w.history_seconds - 60;
  } else if (cat == Category::kNone) {
    w.created = t0 - rng.Int(60, 600);
  } else if (cat == Category::kJob) {
    w.created = t0 - rng.Int(1, 12) * kHour;
  }
  w.cpu_request = std::to_string(2 * w.gpus_per_pod + (shape == UsageShape::kTraining ? 6 : 2));
  w.cpu_limit = std::to_string(2 * std::stoi(w.cpu_request));
  w.memory_request = Gi(8 * w.gpus_per_pod + (shape == UsageShape::kTraining ? 56 : 8));
  w.memory_limit = w.memory_request;
  if (w.kind == WorkloadKind::kDeployment && w.replicas >= 3 && rng.Chance(0.5)) {
    const int style = static_cast<int>(rng.Int(0, 2));
    w.pdb = PdbSpec{w.name, style == 0 ? std::to_string(w.replicas - 1) : style == 1 ? "50%" : "", style == 2 ? "1" : ""};
  }
  if (w.kind == WorkloadKind::kDeployment && rng.Chance(0.5)) w.revision = static_cast<int>(rng.Int(2, 9));
  return w;
}

SyntheticCluster GenerateScale(Builder& b, const Options& o) {
  SyntheticCluster& c = b.cluster();
  const int64_t t0 = c.snapshot_time;
  // Nodes per pool.
  std::vector<int> counts;
  int assigned = 0;
  for (size_t i = 0; i < std::size(kScaleShares); ++i) {
    const int n = i + 1 == std::size(kScaleShares) ? o.nodes - assigned
                                                   : static_cast<int>(std::llround(kScaleShares[i].share * o.nodes));
    counts.push_back(std::max(0, std::min(n, o.nodes - assigned)));
    assigned += counts.back();
  }
  int zone = 0;
  for (size_t i = 0; i < std::size(kScaleShares); ++i) {
    const Share& s = kScaleShares[i];
    const int it = b.Instance(s.gpu, o.gpus_per_node);
    std::string pool = s.gpu;
    std::transform(pool.begin(), pool.end(), pool.begin(), [](unsigned char ch) { return std::tolower(ch); });
    pool += "-pool";
    for (int k = 0; k < counts[i]; ++k) {
      const int n = b.AddNode(pool, it, zone++ % 4, s.style, t0 - b.rng().Int(10 * kDay, 200 * kDay));
      if (b.rng().Chance(0.005)) c.nodes[n].cordoned = true;
      if (b.rng().Chance(0.2)) {
        c.nodes[n].price_annotation = std::round(c.instance_types[it].usd_per_hour * 0.62 * 100) / 100;
      }
    }
  }
  // Workloads per pool until 60-80% of its GPUs are held.
  int serial = 0;
  for (size_t i = 0; i < std::size(kScaleShares); ++i) {
    std::string pool = kScaleShares[i].gpu;
    std::transform(pool.begin(), pool.end(), pool.begin(), [](unsigned char ch) { return std::tolower(ch); });
    pool += "-pool";
    const std::vector<int> nodes = b.PoolNodes(pool);
    if (nodes.empty()) continue;
    const GpuType& gpu = *FindGpuType(kScaleShares[i].gpu);
    const int64_t total = static_cast<int64_t>(nodes.size()) * o.gpus_per_node;
    const int64_t target = std::llround(static_cast<double>(total) * b.rng().Uniform(0.6, 0.8));
    int64_t held = 0;
    int misses = 0;
    while (held < target && misses < 20) {
      WorkloadSpec w = ScaleWorkload(b.rng(), PickCategory(b.rng()), gpu, o.gpus_per_node, pool, serial++, t0);
      if (held + static_cast<int64_t>(w.gpus_per_pod) * w.replicas > target) {
        ++misses;
        continue;
      }
      const bool rollout = w.kind == WorkloadKind::kDeployment && w.history == HistoryKind::kFull && w.revision >= 2 &&
                           b.rng().Chance(0.08);
      if (rollout) {
        w.rollout = b.GridCeil(b.rng().Int(c.history_start + (c.history_end - c.history_start) / 4,
                                           c.history_end - (c.history_end - c.history_start) / 4));
      }
      const int wi = b.AddWorkload(std::move(w));
      const WorkloadSpec& ws = c.workloads[wi];
      // Spread the replicas over consecutive nodes from a random start.
      size_t cursor = static_cast<size_t>(b.rng().Int(0, static_cast<int64_t>(nodes.size()) - 1));
      for (int r = 0; r < ws.replicas; ++r) {
        int node = -1;
        for (size_t step = 0; step < nodes.size(); ++step) {
          const int n = nodes[(cursor + step) % nodes.size()];
          if (b.FreeGpus(n) >= ws.gpus_per_pod) {
            node = n;
            cursor = (cursor + step + 1) % nodes.size();
            break;
          }
        }
        if (node < 0) break;
        b.AddPod(wi, node, r);
        held += ws.gpus_per_pod;
      }
      if (ws.rollout != 0) b.AddReplacedPods(wi);
      b.ChoosePeak(wi, ws.rollout != 0);
    }
  }
  // Replica counts follow what was placed (a full pool leaves fewer).
  std::vector<int> placed(c.workloads.size(), 0);
  for (const PodSpec& p : c.pods) {
    if (p.in_snapshot) ++placed[p.workload];
  }
  for (size_t i = 0; i < c.workloads.size(); ++i) c.workloads[i].replicas = placed[i];
  return b.Take();
}

// The full preset: every GPU of `nodes` A100-80GB nodes held by a
// single-replica Deployment (ReplicaSet -> Pod), no PodDisruptionBudgets,
// peaks drawn from {4, 8, 15, 30, 60, 78} GB and compute from {5, 10, 20,
// 90} %: the cluster on which the planner once crashed (its 8 placement
// passes ran out), and on which no migration order fits without spare GPUs.
SyntheticCluster GenerateFull(Builder& b, const Options& o) {
  SyntheticCluster& c = b.cluster();
  const int64_t t0 = c.snapshot_time;
  c.policy.allowed_profiles = {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb"};
  c.bad_samples_per_series = 0;  // every workload has clean history: the shape alone decides
  const int it = b.Instance("A100-80GB", o.gpus_per_node);
  for (int k = 0; k < o.nodes; ++k) b.AddNode("a100-80gb-pool", it, k % 4, DcgmStyle::kOldHostname, t0 - 30 * kDay);
  const std::vector<int> nodes = b.PoolNodes("a100-80gb-pool");
  const int64_t peaks_gb[] = {4, 8, 15, 30, 60, 78};
  const int64_t computes[] = {5, 10, 20, 90};
  int serial = 0;
  for (int n : nodes) {
    for (int g = 0; g < o.gpus_per_node; ++g) {
      WorkloadSpec w;
      w.pool = "a100-80gb-pool";
      w.kind = WorkloadKind::kDeployment;
      w.namespace_ = serial % 2 == 0 ? "production" : "inference";
      w.replicas = 1;
      char serial_text[16];
      std::snprintf(serial_text, sizeof(serial_text), "%05d", serial++);
      w.name = std::string("svc-") + serial_text;
      w.container = "main";
      w.image = "registry.example.com/ml/svc:1.0.0";
      const int64_t peak = MiB(static_cast<double>(peaks_gb[b.rng().Int(0, 5)]));
      const double pc = static_cast<double>(computes[b.rng().Int(0, 3)]) / 100.0;
      w.usage = {UsageShape::kInference, peak, std::max<int64_t>(16, peak * 3 / 4), pc, pc / 10};
      w.cpu_request = "4";
      w.cpu_limit = "8";
      w.memory_request = Gi(16);
      w.memory_limit = w.memory_request;
      const int wi = b.AddWorkload(std::move(w));
      b.AddPod(wi, n, 0);
      b.ChoosePeak(wi, false);
    }
  }
  return b.Take();
}

Status CheckOptions(const Options& o) {
  if (o.history_days < 1 || o.history_days > 90) return Status::Error("--history-days: must be 1..90");
  if (o.history_samples != 0 && o.interval_seconds != 0) {
    return Status::Error("--history-samples and --interval: give at most one");
  }
  if (o.history_samples != 0 && o.history_samples < 2) return Status::Error("--history-samples: must be at least 2");
  const int64_t window = o.history_days * kDay;
  if (o.history_samples > window + 1) {
    return Status::Error("--history-samples: at most one sample per second (" + std::to_string(window + 1) + ")");
  }
  if (o.interval_seconds < 0 || o.interval_seconds > window) {
    return Status::Error("--interval: must be 1.." + std::to_string(window) + " seconds");
  }
  if (o.preset == Preset::kScale || o.preset == Preset::kFull) {
    if (o.nodes < 1 || o.nodes > 200000) return Status::Error("--nodes: must be 1..200000");
    if (o.gpus_per_node < 1 || o.gpus_per_node > 16) return Status::Error("--gpus-per-node: must be 1..16");
  }
  return Status::Ok();
}

Status WriteAtomically(const std::filesystem::path& path,
                       const std::function<Status(const std::function<bool(std::string_view)>&)>& write) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::Error(path.string() + ": cannot write");
    Status s = write([&](std::string_view chunk) {
      out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      return static_cast<bool>(out);
    });
    out.flush();
    if (!s.ok() || !out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return s.ok() ? Status::Error(path.string() + ": write failed") : s.WithPrefix(path.string());
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::Error(path.string() + ": cannot rename into place: " + ec.message());
  return Status::Ok();
}

Status WriteText(const std::filesystem::path& path, const std::string& text) {
  return WriteAtomically(path, [&](const std::function<bool(std::string_view)>& sink) {
    return sink(text) ? Status::Ok() : Status::Error("write failed");
  });
}

}  // namespace

Result<SyntheticCluster> Generate(const Options& o) {
  Status s = CheckOptions(o);
  if (!s.ok()) return s;
  const int64_t window = o.history_days * kDay;
  int64_t interval = o.interval_seconds;
  if (interval == 0) {
    const int64_t samples = o.history_samples != 0 ? o.history_samples : o.preset == Preset::kDemo ? 0 : 24;
    interval = samples != 0 ? window / (samples - 1) : 600;
  }
  const int64_t samples = window / interval + 1;
  Builder b(o, interval, samples);
  switch (o.preset) {
    case Preset::kDemo:
      return GenerateDemo(b);
    case Preset::kScale:
      return GenerateScale(b, o);
    case Preset::kFull:
      return GenerateFull(b, o);
  }
  return GenerateDemo(b);
}

std::string PolicyYaml(const SyntheticCluster& c) {
  const PolicySpec& p = c.policy;
  std::string profiles, namespaces;
  for (const auto& x : p.allowed_profiles) profiles += (profiles.empty() ? "\"" : ", \"") + x + "\"";
  for (const auto& x : p.time_slicing_namespaces) namespaces += (namespaces.empty() ? "" : ", ") + x;
  return "# GpuPolicy for the gen-cluster " + c.preset + " cluster (seed " + std::to_string(c.seed) +
         ").\n"
         "# Proposal only.  Workloads outside ml-dev and notebooks (production,\n"
         "# inference) may move to MIG slices of the listed profiles (A100 40GB:\n"
         "# 1g.5gb 1g.10gb 2g.10gb 3g.20gb; H100 80GB: 1g.10gb 2g.20gb 3g.40gb),\n"
         "# sized from their peaks plus 20%; ml-dev and notebooks may share\n"
         "# time-sliced GPUs, at most 4 pods per GPU.\n"
         "apiVersion: gpu.kubeon.io/v1\n"
         "kind: GpuPolicy\n"
         "metadata:\n"
         "  name: " + p.name + "\n"
         "spec:\n"
         "  kind: Sharing\n"
         "  mode: Proposal\n"
         "  mig:\n"
         "    allowedProfiles: [" + profiles + "]\n"
         "    headroom: \"" + p.headroom + "\"\n"
         "  timeSlicing:\n"
         "    namespaces: [" + namespaces + "]\n"
         "    maxReplicas: " + std::to_string(p.max_replicas) + "\n"
         "  window: \"" + p.window + "\"\n";
}

std::string PricesYaml(const SyntheticCluster& c) {
  std::string out =
      "# Instance type: on-demand list price in USD per hour (AWS us-east-1, GCP us-central1).\n"
      "# Nodes annotated kubeon.io/hourly-price-usd use their annotation instead.\n";
  std::set<std::string> seen;
  auto add = [&](const InstanceType& t) {
    if (!seen.insert(t.name).second) return;
    char price[32];
    auto [end, ec] = std::to_chars(price, price + sizeof(price), t.usd_per_hour);
    out += t.name + ": " + std::string(price, end) + (t.custom ? "  # no such instance type: per-GPU price of its 8-GPU sibling\n" : "\n");
  };
  for (const InstanceType& t : KnownInstanceTypes()) add(t);
  for (const InstanceType& t : c.instance_types) add(t);
  return out;
}

Status WriteFiles(const SyntheticCluster& c, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error(dir + ": cannot create directory: " + ec.message());
  const std::filesystem::path d(dir);
  Status s = WriteAtomically(d / "cluster.json", [&](const auto& sink) { return WriteClusterJson(c, sink, c.compact); });
  if (s.ok() && c.history) s = WriteAtomically(d / "history.om", [&](const auto& sink) { return WriteHistory(c, sink); });
  if (s.ok()) s = WriteText(d / "policy.yaml", PolicyYaml(c));
  if (s.ok()) s = WriteText(d / "prices.yaml", PricesYaml(c));
  return s;
}

InMemory BuildInMemory(const SyntheticCluster& c) {
  InMemory m;
  m.cluster = BuildModelCluster(c);
  if (c.history) m.history = BuildHistory(c);
  return m;
}

}  // namespace kubeon::gencluster
