// See generated_cluster.h.
#include "plan/generated_cluster.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace kubeon::plan::testing {
namespace {

constexpr int64_t kHourMs = 3600 * 1000;

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  // Uniform in [lo, hi] by integer arithmetic (the standard distributions
  // differ between libraries).  REQUIRES: lo <= hi.
  int64_t Int(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng_() % static_cast<uint64_t>(hi - lo + 1)); }
  // True with probability num / den.
  bool Chance(int num, int den) { return Int(1, den) <= num; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int64_t>(v.size()) - 1))];
  }

 private:
  std::mt19937_64 rng_;
};

struct Pool {
  const mig::GpuModel* model = nullptr;
  int gpus_per_node = 8;
};

struct Builder {
  const Shape& shape;
  Draw& d;
  Generated& g;
  std::vector<Pool> pools;
  std::vector<int> node_pool;       // cluster.nodes index -> pools index
  std::vector<int> free_gpus;                // per node
  std::vector<std::vector<int>> with_room;   // per pool: nodes that may have free GPUs
  int64_t free_total = 0;
  int owner_seq = 0;

  void Policy() {
    policy::GpuPolicy& p = g.policy;
    p.name = "generated";
    const int rule = static_cast<int>(d.Int(0, 2));
    p.staying_pods = rule == 0 ? policy::StayingPods::kNone
                     : rule == 1 ? policy::StayingPods::kRestartable
                                 : policy::StayingPods::kAny;
    const int headroom = static_cast<int>(d.Pick(std::vector<int>{0, 10, 20, 20, 50}));
    p.headroom = headroom / 100.0;
    p.headroom_text = std::to_string(headroom) + "%";
    p.max_replicas = static_cast<int>(d.Int(2, 8));
    p.max_nodes_per_pool = static_cast<int>(d.Int(1, 3));
    p.time_slicing_namespaces = {"dev"};
    if (d.Chance(1, 3)) {
      // A subset of the pools' profiles (every model's names pooled).
      std::set<std::string> names;
      for (const Pool& pool : pools) {
        for (const auto& prof : pool.model->profiles) {
          if (!prof.media_extensions && d.Chance(2, 3)) names.insert(prof.name);
        }
      }
      p.allowed_profiles.assign(names.begin(), names.end());
      p.allowed_profiles_set = true;
    }
  }

  void Pools(const mig::MigCatalog& catalog) {
    std::vector<const mig::GpuModel*> models;
    for (const auto& m : catalog.models()) {
      if (m.product_labels.empty() || m.memory_mib <= 0) continue;
      if (shape.mig_only && !m.mig_capable) continue;
      models.push_back(&m);
    }
    if (shape.one_deployment_per_gpu) {
      pools.push_back({catalog.FindModel("A100-80GB"), 8});
      return;
    }
    std::vector<const mig::GpuModel*> left = models;
    for (int i = 0; i < std::max(1, shape.pools) && !left.empty(); ++i) {
      const size_t k = static_cast<size_t>(d.Int(0, static_cast<int64_t>(left.size()) - 1));
      const int gpus = shape.gpus_per_node > 0 ? shape.gpus_per_node
                                               : static_cast<int>(d.Pick(std::vector<int64_t>{1, 2, 4, 8, 8, 8, 16}));
      pools.push_back({left[k], gpus});
      left.erase(left.begin() + static_cast<long>(k));
    }
  }

  void Nodes() {
    for (int i = 0; i < shape.nodes; ++i) {
      const int pi = static_cast<int>(i % pools.size());
      const Pool& pool = pools[pi];
      model::Node n;
      n.name = "node-" + std::to_string(i);
      n.gpu_product = pool.model->product_labels.front();
      n.gpu_count = pool.gpus_per_node;
      n.gpu_memory_mib = pool.model->memory_mib;
      n.mig_capable = pool.model->mig_capable;
      n.mig_strategy = pool.model->mig_capable ? (shape.rare_features && d.Chance(1, 40) ? "single" : "mixed") : "";
      n.instance_type = "gpu-" + pool.model->id + "-x" + std::to_string(pool.gpus_per_node);
      if (!shape.rare_features || d.Chance(9, 10)) n.hourly_price_usd = static_cast<double>(d.Int(100, 9000)) / 100.0;
      n.capacity[model::kGpuResource] = n.gpu_count;
      n.allocatable[model::kGpuResource] = n.gpu_count;
      n.labels["kubernetes.io/hostname"] = n.name;
      n.labels["nvidia.com/gpu.product"] = n.gpu_product;
      n.labels["pool"] = pool.model->id;
      if (shape.rare_features) {
        if (d.Chance(1, 25)) n.unschedulable = true;
        if (d.Chance(1, 40)) n.ready = false;
        if (d.Chance(1, 12)) n.taints.push_back({"dedicated", "team-a", "NoSchedule"});
        if (d.Chance(1, 30)) n.taints.push_back({"nvidia.com/gpu", "present", "NoExecute"});
        if (pool.model->mig_capable && !pool.model->profiles.empty() && d.Chance(1, 25)) {
          // Partitioned by somebody else: slices advertised, a mig.config label.
          const mig::MigProfile& prof = pool.model->profiles.front();
          n.labels["nvidia.com/mig.config"] = "all-" + prof.name;
          n.capacity[std::string(model::kMigResourcePrefix) + prof.name] = n.gpu_count * prof.max_instances;
          n.allocatable[std::string(model::kMigResourcePrefix) + prof.name] = n.gpu_count * prof.max_instances;
          n.capacity[model::kGpuResource] = 0;
          n.allocatable[model::kGpuResource] = 0;
        }
      }
      node_pool.push_back(pi);
      free_gpus.push_back(static_cast<int>(n.allocatable[model::kGpuResource]));
      free_total += free_gpus.back();
      with_room.resize(pools.size());
      if (free_gpus.back() > 0) with_room[static_cast<size_t>(pi)].push_back(i);
      g.cluster.nodes.push_back(std::move(n));
    }
  }

  // Usage of one pod: peak and compute drawn across the whole range.
  void Usage(const model::Pod& p, int64_t gpu_memory_mib, int kind_of_usage, int64_t peak_mib, double compute) {
    metrics::PodUsage u;
    if (kind_of_usage == 1) return;  // no history
    u.peak_memory_mib = peak_mib;
    for (int k = 0; k < 50; ++k) u.compute.Add(compute * (k + 1) / 50.0);
    u.first_ts_ms = 0;
    const double hours = kind_of_usage == 2 ? 6 : 48 + static_cast<double>(d.Int(0, 24 * 12));
    u.last_ts_ms = static_cast<int64_t>(hours * kHourMs);
    u.gaps.AddSpan(u.last_ts_ms - u.first_ts_ms);
    u.samples = 50;
    if (kind_of_usage == 3) u.bad_samples = 1;
    (void)gpu_memory_mib;
    g.history.pods[{p.namespace_, p.name}] = u;
  }

  // A node of `pool` (any pool when -1) with at least `gpus` free, drawn
  // among the nodes with room; -1 when none.  Full nodes leave the lists.
  int NodeWithRoom(int pool, int gpus) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      const int p = pool >= 0 ? pool : static_cast<int>(d.Int(0, static_cast<int64_t>(pools.size()) - 1));
      std::vector<int>& list = with_room[static_cast<size_t>(p)];
      for (int tries = 0; tries < 8 && !list.empty(); ++tries) {
        const size_t k = static_cast<size_t>(d.Int(0, static_cast<int64_t>(list.size()) - 1));
        const int i = list[k];
        if (free_gpus[i] <= 0) {
          list[k] = list.back();
          list.pop_back();
          continue;
        }
        if (free_gpus[i] >= gpus) return i;
      }
      if (pool >= 0) break;
    }
    return -1;
  }

  void Take(int node, int gpus) {
    free_gpus[node] -= gpus;
    free_total -= gpus;
  }

  model::Pod NewPod(const std::string& ns, const std::string& name, const std::string& app, int gpus) {
    model::Pod p;
    p.namespace_ = ns;
    p.name = name;
    p.uid = "uid-" + ns + "-" + name;
    p.phase = "Running";
    p.labels["app"] = app;
    model::ContainerResources c;
    c.name = "main";
    if (gpus > 0) {
      c.requests[model::kGpuResource] = gpus;
      c.limits[model::kGpuResource] = gpus;
    }
    p.containers.push_back(c);
    p.gpus = gpus;
    return p;
  }

  void Owner() {
    const int id = owner_seq++;
    const bool dev = d.Chance(1, 4);
    const std::string ns = dev ? "dev" : (d.Chance(1, 2) ? "prod" : "inference");
    const std::string name = "w" + std::to_string(id);
    std::string kind = "Deployment";
    int replicas = static_cast<int>(d.Int(1, std::max(1, shape.max_replicas)));
    if (shape.one_deployment_per_gpu) {
      replicas = 1;
    } else if (shape.rare_features) {
      const int k = static_cast<int>(d.Int(0, 19));
      if (k < 3) kind = "StatefulSet";
      else if (k == 3) kind = "Job";
      else if (k == 4) kind = "Pod", replicas = 1;
      else if (k == 5) kind = "ReplicaSet";
      else if (k == 6) kind = "DaemonSet";
    }
    int gpus = shape.rare_features && !shape.one_deployment_per_gpu && d.Chance(1, 15) ? static_cast<int>(d.Int(2, 4)) : 1;
    // Where: one pool (most owners), its pods on nodes with room.
    int pool = static_cast<int>(d.Int(0, static_cast<int64_t>(pools.size()) - 1));
    const int64_t mem = pools[pool].model->memory_mib;
    // Usage: 0 ok, 1 no history, 2 too short, 3 bad samples.
    int usage = 0;
    if (shape.rare_features && !shape.one_deployment_per_gpu) {
      const int u = static_cast<int>(d.Int(0, 29));
      usage = u == 0 ? 1 : u == 1 ? 2 : u == 2 ? 3 : 0;
    }
    int64_t peak;
    double compute;
    if (shape.one_deployment_per_gpu) {
      peak = d.Pick(std::vector<int64_t>{4, 8, 15, 30, 60, 78}) * 1024;
      compute = static_cast<double>(d.Pick(std::vector<int64_t>{5, 10, 20, 90})) / 100.0;
    } else {
      const int band = static_cast<int>(d.Int(0, 9));
      peak = band < 6 ? d.Int(0, mem / 4) : band < 9 ? d.Int(mem / 4, mem) : d.Int(mem, mem + 4096);
      const int cband = static_cast<int>(d.Int(0, 9));
      compute = cband < 7 ? static_cast<double>(d.Int(0, 30)) / 100.0 : static_cast<double>(d.Int(30, 100)) / 100.0;
    }
    const bool slices = shape.rare_features && d.Chance(1, 40);
    std::vector<model::Pod> pods;
    const std::string top = kind == "Deployment" ? name + "-7d9f8c6b5" : name;
    for (int r = 0; r < replicas; ++r) {
      const int ni = NodeWithRoom(kind == "DaemonSet" ? -1 : pool, gpus);
      if (ni < 0) break;
      Take(ni, gpus);
      const std::string pod_name = kind == "StatefulSet" ? name + "-" + std::to_string(r)
                                   : kind == "Pod"       ? name
                                                         : top + "-" + std::to_string(r) + "x" + std::to_string(id % 97);
      model::Pod p = NewPod(ns, pod_name, name, slices ? 0 : gpus);
      p.node_name = g.cluster.nodes[ni].name;
      p.workload = {ns, kind, name};
      if (kind == "Deployment") {
        p.controller = model::OwnerRef{"apps/v1", "ReplicaSet", top, "uid-rs-" + name, true};
      } else if (kind == "Job") {
        p.controller = model::OwnerRef{"batch/v1", "Job", name, "uid-" + name, true};
      } else if (kind != "Pod") {
        p.controller = model::OwnerRef{"apps/v1", kind, name, "uid-" + name, true};
      }
      p.daemonset = kind == "DaemonSet";
      p.termination_grace_period_seconds = d.Pick(std::vector<int64_t>{30, 30, 60, 300});
      if (slices) p.gpu_slices["nvidia.com/mig-1g.10gb"] = 1;
      if (shape.rare_features) {
        if (d.Chance(1, 30)) p.safe_to_evict = false;
        if (d.Chance(1, 30)) p.local_volumes.push_back("scratch");
        if (d.Chance(1, 6)) p.tolerations.push_back({"dedicated", "Exists", "", ""});
        if (d.Chance(1, 10)) p.node_selector["pool"] = pools[pool].model->id;
        if (d.Chance(1, 80)) {
          model::NodeSelectorTerm t;
          t.match_expressions.push_back({"kubernetes.io/hostname", "In", {p.node_name}});
          p.required_node_terms.push_back(t);
        }
        if (d.Chance(1, 60)) p.phase = "Pending";
      }
      Usage(p, mem, usage, peak, compute);
      pods.push_back(std::move(p));
    }
    if (pods.empty()) return;
    const int placed = static_cast<int>(pods.size());
    for (auto& p : pods) g.cluster.pods.push_back(std::move(p));
    if (kind == "Pod" || kind == "Job" || kind == "DaemonSet") return;
    model::Controller c;
    c.namespace_ = ns;
    c.kind = kind;
    c.name = name;
    c.uid = "uid-" + name;
    c.replicas = placed;
    c.strategy = kind == "StatefulSet" ? (d.Chance(1, 4) ? "OnDelete" : "RollingUpdate")
                                       : (d.Chance(1, 5) ? "Recreate" : "RollingUpdate");
    if (d.Chance(1, 4)) c.max_surge = d.Pick(std::vector<std::string>{"0", "1", "50%", "100%"});
    if (d.Chance(1, 4)) c.max_unavailable = d.Pick(std::vector<std::string>{"0", "1", "25%"});
    if (c.max_surge == "0" && c.max_unavailable == "0") c.max_unavailable = "1";
    if (d.Chance(1, 20)) c.labels["app.kubernetes.io/managed-by"] = "Helm";
    c.pod_template = g.cluster.pods.back().PlacementOf();
    if (kind == "Deployment") {
      model::Controller rs;
      rs.namespace_ = ns;
      rs.kind = "ReplicaSet";
      rs.name = top;
      rs.uid = "uid-rs-" + name;
      rs.replicas = placed;
      rs.owner = model::OwnerRef{"apps/v1", "Deployment", name, c.uid, true};
      rs.pod_template = c.pod_template;
      g.cluster.controllers.push_back(std::move(rs));
    }
    g.cluster.controllers.push_back(std::move(c));
    if (shape.rare_features && d.Chance(1, 5)) {
      model::PodDisruptionBudget b;
      b.namespace_ = ns;
      b.name = name + "-pdb";
      b.selector.match_labels["app"] = name;
      b.selector.empty_selects_all = false;
      if (d.Chance(1, 3)) {
        b.min_available = std::to_string(placed);
        b.disruptions_allowed = 0;
      } else {
        b.max_unavailable = std::to_string(d.Int(0, 2));
        b.disruptions_allowed = static_cast<int>(std::min<int64_t>(placed, std::stoi(b.max_unavailable)));
      }
      b.expected_pods = placed;
      g.cluster.pdbs.push_back(std::move(b));
    }
  }

  void Owners() {
    const int64_t target = free_total - static_cast<int64_t>(static_cast<double>(free_total) * shape.fill);
    int misses = 0;
    while (free_total > target && misses < 200) {
      const int64_t before = free_total;
      Owner();
      misses = free_total == before ? misses + 1 : 0;
    }
  }
};

std::string PolicyText(const policy::GpuPolicy& p) {
  std::string s = std::string("stayingPods ") + std::string(policy::StayingPodsName(p.staying_pods)) + ", headroom " + p.headroom_text +
                  ", maxReplicas " + std::to_string(p.max_replicas) + ", maxNodesPerPool " +
                  std::to_string(p.max_nodes_per_pool) + ", profiles ";
  if (!p.allowed_profiles_set) return s + "all";
  for (const auto& a : p.allowed_profiles) s += a + " ";
  return s;
}

}  // namespace

Generated Generate(const Shape& shape, uint64_t seed, const mig::MigCatalog& catalog) {
  Generated g;
  Draw d(seed);
  Builder b{shape, d, g, {}, {}, {}, {}, 0, 0};
  b.Pools(catalog);
  b.Policy();
  if (shape.one_deployment_per_gpu) {
    g.policy.staying_pods = policy::StayingPods::kRestartable;
    g.policy.headroom = 0.2;
    g.policy.headroom_text = "20%";
    g.policy.allowed_profiles = {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb"};
    g.policy.allowed_profiles_set = true;
    g.policy.max_nodes_per_pool = 1;
  }
  b.Nodes();
  b.Owners();
  std::string models;
  for (const auto& p : b.pools) models += (models.empty() ? "" : ",") + p.model->id + "x" + std::to_string(p.gpus_per_node);
  g.description = "seed " + std::to_string(seed) + ", " + std::to_string(shape.nodes) + " nodes (" + models +
                  "), fill " + std::to_string(static_cast<int>(shape.fill * 100)) + "%, " +
                  std::to_string(g.cluster.pods.size()) + " pods; " + PolicyText(g.policy);
  return g;
}

Generated Shrink(const Generated& g, int nodes) {
  Generated s;
  s.policy = g.policy;
  std::set<std::string> kept;
  for (const auto& n : g.cluster.nodes) {
    if (static_cast<int>(s.cluster.nodes.size()) >= nodes) break;
    s.cluster.nodes.push_back(n);
    kept.insert(n.name);
  }
  std::set<std::pair<std::string, std::string>> owners;  // (namespace, top owner name)
  for (const auto& p : g.cluster.pods) {
    if (!kept.count(p.node_name)) continue;
    s.cluster.pods.push_back(p);
    owners.insert({p.namespace_, p.workload.name});
    auto u = g.history.pods.find({p.namespace_, p.name});
    if (u != g.history.pods.end()) s.history.pods.insert(*u);
  }
  std::map<std::pair<std::string, std::string>, int> replicas;
  for (const auto& p : s.cluster.pods) ++replicas[{p.namespace_, p.workload.name}];
  for (auto c : g.cluster.controllers) {
    const std::string top = c.owner ? c.owner->name : c.name;
    auto r = replicas.find({c.namespace_, top});
    if (r == replicas.end()) continue;
    c.replicas = r->second;
    s.cluster.controllers.push_back(std::move(c));
  }
  for (const auto& b : g.cluster.pdbs) {
    if (owners.count({b.namespace_, std::string(b.selector.match_labels.Get("app"))})) {
      s.cluster.pdbs.push_back(b);
    }
  }
  s.description = g.description + " shrunk to " + std::to_string(s.cluster.nodes.size()) + " nodes";
  return s;
}

std::string Describe(const Generated& g, int max_lines) {
  std::string out = g.description + "\n";
  int lines = 0;
  auto line = [&](const std::string& l) {
    if (lines++ < max_lines) out += "  " + l + "\n";
  };
  for (const auto& n : g.cluster.nodes) {
    std::string flags;
    if (n.unschedulable) flags += " cordoned";
    if (!n.ready) flags += " NotReady";
    for (const auto& t : n.taints) flags += " taint " + t.key + "=" + t.value + ":" + t.effect;
    if (!n.labels.Get("nvidia.com/mig.config").empty()) flags += " mig.config=" + std::string(n.labels.Get("nvidia.com/mig.config"));
    line("node " + n.name + " " + n.gpu_product + " x" + std::to_string(n.gpu_count) + " strategy " + n.mig_strategy +
         (n.hourly_price_usd ? " $" + std::to_string(*n.hourly_price_usd) + "/h" : " no price") + flags);
  }
  for (const auto& p : g.cluster.pods) {
    std::string u = "no history";
    auto it = g.history.pods.find({p.namespace_, p.name});
    if (it != g.history.pods.end()) {
      u = "peak " + std::to_string(it->second.peak_memory_mib) + " MiB, compute max " +
          std::to_string(it->second.compute.max()) + ", " +
          std::to_string((it->second.last_ts_ms - it->second.first_ts_ms) / kHourMs) + " h" +
          (it->second.bad_samples ? ", bad samples" : "");
    }
    line("pod " + p.namespace_ + "/" + p.name + " on " + p.node_name + " (" + p.workload.kind + " " + p.workload.name +
         ") gpus " + std::to_string(p.gpus) + (p.gpu_slices.empty() ? "" : " on a slice") + " " + p.phase + ": " + u);
  }
  for (const auto& b : g.cluster.pdbs) {
    line("pdb " + b.namespace_ + "/" + b.name + " allows " + std::to_string(b.disruptions_allowed));
  }
  if (lines > max_lines) out += "  ... " + std::to_string(lines - max_lines) + " more lines\n";
  return out;
}

}  // namespace kubeon::plan::testing
