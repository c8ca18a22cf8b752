// See planner.h.  The steps below follow the numbering there.
#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>

#include "plan/artifacts.h"
#include "plan/mig_packer.h"
#include "plan/sizing.h"
#include "plan/ts_packer.h"
#include "plan/usage_join.h"

namespace kubeon::plan {
namespace {

// Controllers whose pod template can be patched and whose evicted pods come back.
bool Movable(const std::string& kind) {
  return kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet";
}

std::string LabelOf(const model::Node& n, const char* key) {
  auto it = n.labels.find(key);
  return it == n.labels.end() ? "" : it->second;
}

struct NodeState {
  const model::Node* node = nullptr;
  const mig::GpuModel* model = nullptr;
  int64_t gpu_memory_mib = 0;
  bool target = false;     // may receive a new layout
  bool mig_ok = false;     // may receive MIG layouts
  std::string not_target;  // why not, when !target
  bool already_shared = false;
  int before = 0;
  std::optional<double> price;
  std::string price_source;
  // Filled per planning attempt.
  int pinned = 0;
  std::vector<std::string> pinned_workloads;  // one entry per pinned GPU
  std::vector<int> mig_bins;                  // indices into the pool's bins
  int ts_fill = -1;                           // index into the pool's time-slicing fills
};

struct WorkState {
  WorkloadDecision d;
  std::vector<int> pods;  // indices into cluster.pods
  const mig::MigProfile* profile = nullptr;
  int profile_index = -1;
  int64_t need_memory_mib = 0;
  double need_compute = 0;
  std::string pool;  // model id
};

// "1 pod", "2 pods": a count and its noun, plural with an "s".
std::string Count(int n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string Hours(double h) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1fh", h);
  return buf;
}

class Planner {
 public:
  Planner(const model::Cluster& cluster, const metrics::History& history, const policy::GpuPolicy& policy,
          const mig::MigCatalog& catalog, const PlannerOptions& options)
      : cluster_(cluster), history_(history), policy_(policy), catalog_(catalog), options_(options) {}

  Plan Run() {
    plan_.policy_name = policy_.name;
    plan_.policy_mode = std::string(policy::ModeName(policy_.mode));
    plan_.window = policy_.window ? policy_.window->text() : "";
    ScopeNodes();
    GroupWorkloads();
    DecideWorkloads();
    std::set<std::string> pools;
    for (const auto& w : works_) {
      if (!w.pool.empty()) pools.insert(w.pool);
    }
    for (const auto& n : nodes_) {
      if (n.model) pools.insert(n.model->id);
    }
    for (const auto& pool : pools) PlanPool(pool);
    BuildNodePlans();
    BuildWorkloads();
    plan_.artifacts = BuildArtifacts(plan_, works_for_artifacts_, options_);
    return std::move(plan_);
  }

 private:
  // ---- 1. scope -----------------------------------------------------------
  void ScopeNodes() {
    for (const auto& n : cluster_.nodes) {
      if (!policy_.SelectsNode(n.labels)) continue;
      if (n.gpu_count <= 0 && n.gpu_product.empty()) continue;
      NodeState s;
      s.node = &n;
      s.model = catalog_.MatchProduct(n.gpu_product, n.gpu_memory_mib);
      s.gpu_memory_mib = n.gpu_memory_mib > 0 ? n.gpu_memory_mib : (s.model ? s.model->memory_mib : 0);
      const std::string mig_config = LabelOf(n, "nvidia.com/mig.config");
      const std::string dp_config = LabelOf(n, "nvidia.com/device-plugin.config");
      bool has_slices = false;
      for (const auto& [res, qty] : n.capacity) {
        if (qty > 0 && (res.rfind(model::kMigResourcePrefix, 0) == 0 || res == model::kSharedGpuResource)) has_slices = true;
      }
      s.already_shared = has_slices || (!mig_config.empty() && mig_config != "all-disabled") || !dp_config.empty();
      if (!s.model) {
        s.not_target = "GPU product \"" + n.gpu_product + "\" is not in the MIG catalog";
        plan_.warnings.push_back("node " + n.name + ": nvidia.com/gpu.product \"" + n.gpu_product +
                                 "\" not recognised; its GPUs are left as they are");
      } else if (n.gpu_count <= 0) {
        s.not_target = "no GPU count (label nvidia.com/gpu.count or capacity nvidia.com/gpu)";
      } else if (n.unschedulable) {
        s.not_target = "cordoned";
      } else if (!n.ready) {
        s.not_target = "not Ready";
      } else if (s.already_shared) {
        s.not_target = "already shared (" + (!mig_config.empty() ? "nvidia.com/mig.config=" + mig_config
                                             : !dp_config.empty() ? "nvidia.com/device-plugin.config=" + dp_config
                                                                  : std::string("advertises GPU slices")) +
                       "); left as it is";
      } else {
        s.target = true;
      }
      s.mig_ok = s.target && s.model->mig_capable && n.mig_capable && n.mig_strategy != "single";
      if (n.hourly_price_usd) {
        s.price = n.hourly_price_usd;
        s.price_source = "annotation";
      } else if (auto it = options_.instance_prices_usd.find(n.instance_type);
                 !n.instance_type.empty() && it != options_.instance_prices_usd.end()) {
        s.price = it->second;
        s.price_source = "prices file";
      }
      node_index_[n.name] = nodes_.size();
      nodes_.push_back(std::move(s));
    }
  }

  // ---- 2. workloads ---------------------------------------------------------
  void GroupWorkloads() {
    std::map<model::WorkloadRef, size_t> index;
    for (size_t i = 0; i < cluster_.pods.size(); ++i) {
      const auto& p = cluster_.pods[i];
      if (!p.Active() || p.node_name.empty()) continue;
      if (p.gpus <= 0 && p.gpu_slices.empty()) continue;
      auto ns = node_index_.find(p.node_name);
      if (ns == node_index_.end()) continue;  // not selected by the policy
      NodeState& node = nodes_[ns->second];
      if (node.already_shared) {
        node.before = node.node->gpu_count;
      } else {
        node.before += static_cast<int>(p.gpus);
      }
      auto [it, inserted] = index.emplace(p.workload, works_.size());
      if (inserted) {
        WorkState w;
        w.d.ref = p.workload;
        works_.push_back(std::move(w));
      }
      works_[it->second].pods.push_back(static_cast<int>(i));
      works_[it->second].d.pods.push_back(p.name);
    }
  }

  void Unchanged(WorkState& w, std::string reason) {
    w.d.decision = Decision::kUnchanged;
    w.d.slice.clear();
    w.d.reason = std::move(reason);
    w.d.isolation = "unchanged: keeps whole GPUs";
  }

  void DecideWorkloads() {
    const UsageJoin join = JoinUsage(cluster_, history_);
    if (join.unmapped_pods > 0) {
      plan_.warnings.push_back(std::to_string(join.unmapped_pods) +
                               " pods in the history match no workload in the snapshot (deleted workloads?)");
    }
    for (auto& w : works_) {
      const model::Pod& first = cluster_.pods[w.pods.front()];
      std::set<std::string> models;
      int64_t max_gpus = 0;
      std::string slices_held;
      std::string off_target;
      for (int pi : w.pods) {
        const model::Pod& p = cluster_.pods[pi];
        max_gpus = std::max(max_gpus, p.gpus);
        for (const auto& [res, qty] : p.gpu_slices) slices_held = res;
        const NodeState& n = nodes_[node_index_.at(p.node_name)];
        models.insert(n.model ? n.model->id : "unknown GPU \"" + n.node->gpu_product + "\"");
        if (!n.target && off_target.empty()) off_target = "pod " + p.name + " runs on node " + n.node->name + ", " + n.not_target;
      }
      w.d.gpus_per_pod = max_gpus;
      w.d.gpu_model = models.size() == 1 ? *models.begin() : "";
      const bool candidate = Precheck(w, first, slices_held, off_target, models);
      auto usage = join.by_workload.find(w.d.ref);
      if (usage != join.by_workload.end()) {
        const metrics::WorkloadUsage u = metrics::Aggregate(usage->second, options_.compute_percentile);
        if (u.has_memory) w.d.peak_memory_mib = u.peak_memory_mib;
        if (u.has_compute) w.d.peak_compute = u.peak_compute;
        w.d.compute_metric = u.compute_metric;
        w.d.history_hours = u.history_hours;
        w.d.samples = u.samples;
        if (candidate) Size(w, u, usage->second.size());
      } else if (candidate) {
        Unchanged(w, "no DCGM history for its pods (no series with namespace/pod " + first.namespace_ + "/" +
                         first.name + " or its owner's other pods)");
      }
    }
  }

  // Checks that do not need history.  Returns true when the workload is still
  // a candidate; otherwise it has been marked unchanged.
  bool Precheck(WorkState& w, const model::Pod& first, const std::string& slices_held, const std::string& off_target,
                const std::set<std::string>& models) {
    if (!slices_held.empty()) {
      Unchanged(w, "already on a slice (" + slices_held + ")");
      w.d.isolation = "unchanged";
      return false;
    }
    if (first.daemonset || w.d.ref.kind == "DaemonSet") {
      Unchanged(w, "DaemonSet: runs on every node, not moved");
      return false;
    }
    if (!Movable(w.d.ref.kind)) {
      Unchanged(w, w.d.ref.kind == "Pod" ? "bare pod without a controller: evicting it would delete it"
                                         : w.d.ref.kind + " pods are not moved: the pod template cannot be patched "
                                                          "and evicted pods are not recreated with the new request");
      return false;
    }
    if (w.d.gpus_per_pod > 1) {
      Unchanged(w, "multi-GPU: " + std::to_string(w.d.gpus_per_pod) + " GPUs per pod");
      return false;
    }
    if (!off_target.empty()) {
      Unchanged(w, off_target);
      return false;
    }
    if (models.size() != 1) {
      std::string list;
      for (const auto& m : models) list += (list.empty() ? "" : ", ") + m;
      Unchanged(w, "pods run on several GPU models (" + list + ")");
      return false;
    }
    return true;
  }

  // Applies the history-based rules to a workload that passed Precheck.
  void Size(WorkState& w, const metrics::WorkloadUsage& u, size_t history_pods) {
    const model::Pod& first = cluster_.pods[w.pods.front()];
    if (u.bad_samples > 0) {
      Unchanged(w, std::to_string(u.bad_samples) + " unparseable samples in its history; peaks are not guessed");
      return;
    }
    if (!u.has_memory) {
      Unchanged(w, "no DCGM_FI_DEV_FB_USED samples in its history");
      return;
    }
    if (!u.has_compute) {
      Unchanged(w, "no compute samples (DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL) in its history");
      return;
    }
    if (u.history_hours + 1e-9 < options_.min_history_hours) {
      Unchanged(w, "too little history: " + Hours(u.history_hours) + " < " + Hours(options_.min_history_hours) +
                       " (" + std::to_string(history_pods) + " pods, " + std::to_string(u.samples) + " samples)");
      return;
    }
    const NodeState& node = nodes_[node_index_.at(first.node_name)];
    const mig::GpuModel& model = *node.model;
    w.pool = model.id;
    const double peak_compute = u.peak_compute;
    if (policy_.TimeSlicingNamespace(w.d.ref.namespace_)) {
      SizingResult r = SizeForTimeSlicing(PoolMemory(model.id), policy_, u.peak_memory_mib, peak_compute);
      w.d.decision = r.decision;
      w.d.reason = r.reason;
      w.need_memory_mib = r.need_memory_mib;
      w.need_compute = r.need_compute;
      if (r.decision == Decision::kUnchanged) Unchanged(w, r.reason);
      return;
    }
    if (!model.mig_capable) {
      Unchanged(w, "no MIG on " + model.id + " and time-slicing is not allowed in namespace " + w.d.ref.namespace_ +
                       " (policy spec.timeSlicing.namespaces)");
      return;
    }
    if (!PoolHasMigTarget(model.id)) {
      Unchanged(w, "no " + model.id + " node in scope can take MIG layouts (schedulable, Ready, nvidia.com/mig.capable=true, "
                   "mig.strategy not single)");
      return;
    }
    SizingResult r = SizeForMig(model, policy_, u.peak_memory_mib, peak_compute);
    w.need_memory_mib = r.need_memory_mib;
    w.need_compute = r.need_compute;
    if (r.decision != Decision::kMig) {
      Unchanged(w, r.reason);
      return;
    }
    w.d.decision = Decision::kMig;
    w.d.reason = r.reason;
    w.profile = r.profile;
    w.profile_index = static_cast<int>(r.profile - model.profiles.data());
    w.d.slice = r.profile->name;
  }

  int64_t PoolMemory(const std::string& pool) const {
    int64_t m = 0;
    for (const auto& n : nodes_) {
      if (n.model && n.model->id == pool && n.gpu_memory_mib > 0) m = m == 0 ? n.gpu_memory_mib : std::min(m, n.gpu_memory_mib);
    }
    return m;
  }

  bool PoolHasMigTarget(const std::string& pool) const {
    for (const auto& n : nodes_) {
      if (n.mig_ok && n.model->id == pool) return true;
    }
    return false;
  }

  // ---- 3 & 4. packing and placement per pool --------------------------------
  struct PoolResult {
    std::vector<MigBin> mig_bins;
    std::vector<int> mig_item_work;  // item -> work index
    std::vector<TsNodeFill> ts_fills;
    std::vector<int> ts_item_work;
  };

  void PlanPool(const std::string& pool) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      PoolResult r;
      std::vector<NodeState*> pool_nodes;
      for (auto& n : nodes_) {
        if (!n.model || n.model->id != pool) continue;
        n.pinned = 0;
        n.pinned_workloads.clear();
        n.mig_bins.clear();
        n.ts_fill = -1;
        pool_nodes.push_back(&n);
      }
      std::vector<int> mig_profiles;
      std::vector<TsItem> ts_items;
      for (size_t wi = 0; wi < works_.size(); ++wi) {
        WorkState& w = works_[wi];
        if (w.pool != pool && !(w.pool.empty() && w.d.gpu_model == pool)) continue;
        for (int pi : w.pods) {
          const model::Pod& p = cluster_.pods[pi];
          if (w.d.decision == Decision::kMig) {
            mig_profiles.push_back(w.profile_index);
            r.mig_item_work.push_back(static_cast<int>(wi));
          } else if (w.d.decision == Decision::kTimeSlicing) {
            ts_items.push_back({w.need_memory_mib, w.need_compute});
            r.ts_item_work.push_back(static_cast<int>(wi));
          } else {
            NodeState& n = nodes_[node_index_.at(p.node_name)];
            for (int64_t g = 0; g < p.gpus; ++g) {
              n.pinned_workloads.push_back(w.d.ref.Display());
              ++n.pinned;
            }
          }
        }
      }
      const mig::GpuModel* model = catalog_.FindModel(pool);
      if (!mig_profiles.empty()) {
        MigPacker packer(*model);
        r.mig_bins = packer.Pack(mig_profiles);
        mig_names_[pool] = {};
        for (const auto& b : r.mig_bins) mig_names_[pool].push_back(packer.Names(b.counts));
      }
      std::string failure;
      std::set<int> revert = Place(pool, pool_nodes, ts_items, &r, &failure);
      if (revert.empty()) {
        pools_[pool] = std::move(r);
        RecordLowerBound(*model, mig_profiles, ts_items);
        return;
      }
      for (int wi : revert) Unchanged(works_[wi], failure);
    }
  }

  void RecordLowerBound(const mig::GpuModel& model, const std::vector<int>& mig_profiles, const std::vector<TsItem>& ts) {
    const PoolResult& r = pools_[model.id];
    if (!mig_profiles.empty()) {
      plan_.summary.moved_gpus_lower_bound += MigLowerBound(model, mig_profiles);
      plan_.summary.moved_gpus_after += static_cast<int>(r.mig_bins.size());
    }
    if (!ts.empty()) {
      int64_t mem = 0;
      double compute = 0;
      for (const auto& t : ts) {
        mem += t.memory_mib;
        compute += t.compute;
      }
      const int64_t cap = PoolMemory(model.id);
      const int by_mem = static_cast<int>((mem + cap - 1) / cap);
      const int by_compute = static_cast<int>(std::ceil(compute - 1e-9));
      const int by_count = static_cast<int>((ts.size() + policy_.max_replicas - 1) / policy_.max_replicas);
      plan_.summary.moved_gpus_lower_bound += std::max({by_mem, by_compute, by_count, 1});
      for (const auto& f : r.ts_fills) plan_.summary.moved_gpus_after += f.gpus_used();
    }
  }

  static bool NodeOrder(const NodeState* a, const NodeState* b) {
    // Keep big, cheap, busy nodes; free the others.
    const double pa = a->price ? *a->price / std::max(1, a->node->gpu_count) : 0;
    const double pb = b->price ? *b->price / std::max(1, b->node->gpu_count) : 0;
    if (a->node->gpu_count != b->node->gpu_count) return a->node->gpu_count > b->node->gpu_count;
    if (pa != pb) return pa < pb;
    if (a->before != b->before) return a->before > b->before;
    return a->node->name < b->node->name;
  }

  // Places the pool's MIG GPUs and time-sliced pods on nodes.  Returns the
  // workloads to revert (and why, in *failure) when they do not fit.
  std::set<int> Place(const std::string& pool, std::vector<NodeState*>& pool_nodes, const std::vector<TsItem>& ts_items,
                      PoolResult* r, std::string* failure) {
    candidates_model_ = pool;
    std::vector<NodeState*> kept, empty;
    for (NodeState* n : pool_nodes) {
      if (!n->target) continue;
      (n->pinned > 0 ? kept : empty).push_back(n);
    }
    std::sort(kept.begin(), kept.end(), [](const NodeState* a, const NodeState* b) {
      if (a->pinned != b->pinned) return a->pinned > b->pinned;
      return a->node->name < b->node->name;
    });
    std::sort(empty.begin(), empty.end(), NodeOrder);
    // MIG: free GPUs of nodes that stay anyway, then whole empty nodes.
    size_t next_bin = 0;
    auto fill = [&](NodeState* n) {
      while (next_bin < r->mig_bins.size() && n->pinned + static_cast<int>(n->mig_bins.size()) < n->node->gpu_count) {
        n->mig_bins.push_back(static_cast<int>(next_bin++));
      }
    };
    for (NodeState* n : kept) {
      if (n->mig_ok) fill(n);
    }
    std::vector<NodeState*> ts_nodes;
    for (NodeState* n : empty) {
      if (next_bin < r->mig_bins.size() && n->mig_ok) {
        fill(n);
      } else {
        ts_nodes.push_back(n);
      }
    }
    if (next_bin < r->mig_bins.size()) {
      *failure = "no room for its MIG slice on schedulable " + pool + " nodes in scope";
      std::set<int> out;
      for (size_t b = next_bin; b < r->mig_bins.size(); ++b) {
        for (int item : r->mig_bins[b].items) out.insert(r->mig_item_work[item]);
      }
      return out;
    }
    return PlaceTimeSliced(ts_nodes, ts_items, r, failure);
  }

  std::set<int> PlaceTimeSliced(std::vector<NodeState*>& candidates, const std::vector<TsItem>& items, PoolResult* r,
                                std::string* failure) {
    if (items.empty()) return {};
    std::vector<int> order(items.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return items[a].memory_mib > items[b].memory_mib; });
    size_t next = 0;
    std::vector<bool> used(candidates.size(), false);
    auto fill_from = [&](int ci) {
      NodeState* n = candidates[ci];
      TsNodeFill f(n->node->gpu_count, n->gpu_memory_mib, policy_.max_replicas);
      for (size_t k = next; k < order.size() && f.TryAdd(order[k], items[order[k]]); ++k) {
      }
      return f;
    };
    while (next < order.size()) {
      // The smallest unused node that takes everything left, else the largest.
      int chosen = -1;
      std::optional<TsNodeFill> fill;
      for (int ci = static_cast<int>(candidates.size()) - 1; ci >= 0 && chosen < 0; --ci) {
        if (used[ci]) continue;
        const int64_t room = static_cast<int64_t>(candidates[ci]->node->gpu_count) * policy_.max_replicas;
        if (room < static_cast<int64_t>(order.size() - next)) continue;  // cannot take everything left
        TsNodeFill f = fill_from(ci);
        if (next + f.items().size() == order.size()) {
          chosen = ci;
          fill = std::move(f);
        }
      }
      for (int ci = 0; ci < static_cast<int>(candidates.size()) && chosen < 0; ++ci) {
        if (used[ci]) continue;
        chosen = ci;
        fill = fill_from(ci);
      }
      if (chosen < 0 || fill->items().empty()) break;
      used[chosen] = true;
      next += fill->items().size();
      candidates[chosen]->ts_fill = static_cast<int>(r->ts_fills.size());
      r->ts_fills.push_back(std::move(*fill));
    }
    std::set<int> revert;
    if (next < order.size()) {
      *failure = "no schedulable " + candidates_model_ + " node is free of whole-GPU workloads to time-slice";
      for (size_t k = next; k < order.size(); ++k) revert.insert(r->ts_item_work[order[k]]);
      return revert;
    }
    // A workload whose every pod ended up without a sharer gains nothing.
    std::map<int, bool> shares;
    for (const auto& f : r->ts_fills) {
      for (int item : f.items()) {
        bool& s = shares[r->ts_item_work[item]];
        s = s || f.replicas() > 1;
      }
    }
    for (const auto& [wi, s] : shares) {
      if (!s) revert.insert(wi);
    }
    if (!revert.empty()) *failure = "no other time-sliced pod fits beside it, so sharing would free nothing";
    return revert;
  }

  // ---- 5. results -------------------------------------------------------------
  std::string MigIsolation(const NodeState& n) const {
    std::string s = "MIG (" + n.model->id + "): each slice is a separate GPU instance with its own memory, cache and "
                    "SMs; a fault or memory overrun in one does not reach the others. Not isolated: PCIe/NVLink "
                    "bandwidth and the host.";
    if (n.pinned > 0) s += " " + std::to_string(n.pinned) + " GPUs stay whole (MIG disabled) for unchanged workloads.";
    return s;
  }

  void BuildNodePlans() {
    for (auto& n : nodes_) {
      NodePlan np;
      np.name = n.node->name;
      np.gpu_model = n.model ? n.model->id : n.node->gpu_product;
      np.instance_type = n.node->instance_type;
      np.gpu_count = n.node->gpu_count;
      np.gpus_before = n.before;
      np.hourly_price_usd = n.price;
      np.price_source = n.price_source;
      if (!n.target) np.notes.push_back("not changed: " + n.not_target);
      int index = 0;
      const PoolResult* pr = nullptr;
      if (n.model) {
        auto it = pools_.find(n.model->id);
        if (it != pools_.end()) pr = &it->second;
      }
      if (!n.target) {
        np.method = "none";
        np.gpus_after = n.before;
        np.isolation = "unchanged";
        for (const auto& w : n.pinned_workloads) {
          GpuAfter g;
          g.index = index++;
          g.whole = true;
          g.workloads.push_back(w);
          np.gpus.push_back(std::move(g));
        }
      } else if (!n.mig_bins.empty()) {
        np.method = "mig";
        const auto& names = mig_names_.at(n.model->id);
        for (int b : n.mig_bins) {
          GpuAfter g;
          g.index = index++;
          g.mig_enabled = true;
          g.mig_devices = names[b];
          // Workloads in the order of their slices.
          std::vector<std::pair<int, std::string>> ws;
          for (int item : pr->mig_bins[b].items) {
            const WorkState& w = works_[pr->mig_item_work[item]];
            ws.push_back({-w.profile->memory_slices * 8 - w.profile->compute_slices, w.d.ref.Display()});
          }
          std::stable_sort(ws.begin(), ws.end());
          for (auto& x : ws) g.workloads.push_back(x.second);
          np.gpus.push_back(std::move(g));
        }
        np.isolation = MigIsolation(n);
      } else if (n.ts_fill >= 0) {
        np.method = "time-slicing";
        const TsNodeFill& f = pr->ts_fills[n.ts_fill];
        np.time_slicing_replicas = f.replicas();
        std::vector<std::string> names;
        for (int item : f.items()) names.push_back(works_[pr->ts_item_work[item]].d.ref.Display());
        // The device plugin spreads replicas over the GPUs: shown round-robin.
        for (int g = 0; g < f.gpus_used(); ++g) {
          GpuAfter ga;
          ga.index = index++;
          for (size_t k = g; k < names.size(); k += f.gpus_used()) ga.workloads.push_back(names[k]);
          np.gpus.push_back(std::move(ga));
        }
        np.isolation = "time-slicing: NO memory or fault isolation. Up to " + std::to_string(f.replicas()) +
                       " pods share one GPU's memory and take turns on its SMs; one pod can exhaust memory or crash "
                       "the others' CUDA contexts. Replicas are chosen so any " + std::to_string(f.replicas()) +
                       " of this node's pods fit together at their measured peaks plus headroom.";
        np.notes.push_back("the device plugin spreads pods over the node's GPUs; " +
                           Count(np.gpu_count * f.replicas() - static_cast<int>(f.items().size()), "shared slot") +
                           " left free");
      } else {
        np.method = "none";
        np.isolation = n.pinned > 0 ? "unchanged: whole GPUs" : "no GPU workloads remain";
      }
      if (n.target) {
        for (const auto& w : n.pinned_workloads) {
          GpuAfter g;
          g.index = index++;
          g.whole = true;
          g.workloads.push_back(w);
          np.gpus.push_back(std::move(g));
        }
        np.gpus_after = n.pinned + static_cast<int>(n.mig_bins.size()) +
                        (n.ts_fill >= 0 ? pr->ts_fills[n.ts_fill].gpus_used() : 0);
      }
      np.freed = np.gpus_before > 0 && np.gpus_after == 0;
      const int freed_gpus = std::max(0, np.gpus_before - np.gpus_after);
      if (freed_gpus > 0) {
        if (n.price && np.gpu_count > 0) {
          np.monthly_savings_usd = freed_gpus * (*n.price / np.gpu_count) * kHoursPerMonth;
        } else {
          np.notes.push_back("no price: set annotation kubeon.io/hourly-price-usd or pass --prices with instance type \"" +
                             np.instance_type + "\"");
        }
      }
      if (np.freed) {
        std::string whole;
        if (n.price) {
          char buf[64];
          std::snprintf(buf, sizeof(buf), " (the whole node costs $%.2f/month)", *n.price * kHoursPerMonth);
          whole = buf;
        }
        np.notes.push_back("freed: no GPU workloads remain; cordon and remove the node to realise the saving" + whole);
      }
      if (np.method == "mig" && n.node->mig_strategy != "mixed") {
        np.notes.push_back("GPU Operator must run with mig.strategy=mixed (node label nvidia.com/mig.strategy is \"" +
                           n.node->mig_strategy + "\")");
      }
      plan_.summary.gpus_before += np.gpus_before;
      plan_.summary.gpus_after += np.gpus_after;
      plan_.summary.nodes_freed += np.freed ? 1 : 0;
      plan_.summary.monthly_savings_usd += np.monthly_savings_usd;
      plan_.nodes.push_back(std::move(np));
    }
    plan_.summary.gpus_freed = plan_.summary.gpus_before - plan_.summary.gpus_after;
  }

  void BuildWorkloads() {
    for (auto& w : works_) {
      if (w.d.decision == Decision::kMig) {
        w.d.isolation = "MIG " + w.d.slice + ": own memory, cache and SMs; faults contained to the slice";
        ++plan_.summary.workloads_to_mig;
      } else if (w.d.decision == Decision::kTimeSlicing) {
        ++plan_.summary.workloads_to_time_slicing;
        // The replicas of the node(s) its pods share.
        int replicas = 0;
        for (const auto& [pool, r] : pools_) {
          for (const auto& f : r.ts_fills) {
            for (int item : f.items()) {
              if (&works_[r.ts_item_work[item]] == &w) replicas = std::max(replicas, f.replicas());
            }
          }
        }
        w.d.slice = "1/" + std::to_string(replicas);
        w.d.reason += "; shares a GPU with up to " + Count(replicas - 1, "other pod");
        w.d.isolation = "time-slicing: no memory or fault isolation from the pods sharing its GPU";
      }
      ++plan_.summary.workloads;
      WorkloadForArtifacts a;
      a.decision = w.d.decision;
      a.ref = w.d.ref;
      a.slice = w.d.slice;
      if (!w.pods.empty()) a.pod = &cluster_.pods[w.pods.front()];
      works_for_artifacts_.push_back(a);
      plan_.workloads.push_back(w.d);
    }
    std::sort(plan_.workloads.begin(), plan_.workloads.end(),
              [](const WorkloadDecision& a, const WorkloadDecision& b) { return a.ref < b.ref; });
  }

  const model::Cluster& cluster_;
  const metrics::History& history_;
  const policy::GpuPolicy& policy_;
  const mig::MigCatalog& catalog_;
  const PlannerOptions& options_;
  Plan plan_;
  std::vector<NodeState> nodes_;
  std::map<std::string, size_t> node_index_;
  std::vector<WorkState> works_;
  std::map<std::string, PoolResult> pools_;
  std::map<std::string, std::vector<std::vector<std::string>>> mig_names_;  // pool -> bin -> profiles
  std::vector<WorkloadForArtifacts> works_for_artifacts_;
  std::string candidates_model_;  // the pool being placed, for messages
};

}  // namespace

Plan MakePlan(const model::Cluster& cluster, const metrics::History& history, const policy::GpuPolicy& policy,
              const mig::MigCatalog& catalog, const PlannerOptions& options) {
  return Planner(cluster, history, policy, catalog, options).Run();
}

}  // namespace kubeon::plan
