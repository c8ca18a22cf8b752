// See planner.h.  The steps below follow the numbering there.
#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <utility>

#include "plan/artifacts.h"
#include "plan/cutting_stock.h"
#include "plan/mig_packer.h"
#include "plan/node_choice.h"
#include "plan/operator_fit.h"
#include "plan/plan_invariants.h"
#include "plan/ref_order.h"
#include "plan/schedule.h"
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
  return std::string(n.labels.Get(key));
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
  int name_rank = 0;  // position of the node's name among the scoped nodes' (equal names, equal rank)
  // Filled per planning attempt.
  int pinned = 0;
  std::vector<int> pinned_workloads;          // one entry per pinned GPU (index into works_)
  std::vector<int> staying_pods;              // GPU pods that stay (indices into cluster.pods)
  std::vector<int> mig_bins;                  // indices into the pool's bins
  int ts_fill = -1;                           // index into the pool's time-slicing fills
  std::string veto;                           // why its staying pods forbid a MIG mode change, "" if none
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

// Works by ref: open addressing over indices into the works, whose own refs
// are the keys (no key copied, no node per work).  The works must not move
// while the index is used.
class WorkIndex {
 public:
  // Room for n works at most (the table stays at most half full).
  void Reserve(size_t n) {
    size_t capacity = 16;
    while (capacity < 2 * n) capacity *= 2;
    mask_ = capacity - 1;
    slots_.assign(capacity, -1);
  }
  // The slot holding r, else the empty slot where r goes.
  size_t Slot(const model::WorkloadRef& r, const std::vector<WorkState>& works) const {
    size_t at = model::WorkloadRefHash{}(r) & mask_;
    while (slots_[at] >= 0 && !(works[static_cast<size_t>(slots_[at])].d.ref == r)) at = (at + 1) & mask_;
    return at;
  }
  int At(size_t slot) const { return slots_[slot]; }  // -1: empty
  void Set(size_t slot, int work) { slots_[slot] = work; }

 private:
  std::vector<int> slots_;
  size_t mask_ = 0;
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

// Inserts s into the sorted, duplicate-free vector v (a set of a few entries).
void InsertSorted(std::vector<std::string>* v, std::string s) {
  auto it = std::lower_bound(v->begin(), v->end(), s);
  if (it == v->end() || *it != s) v->insert(it, std::move(s));
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
    // What the snapshot reader skipped or doubted (an invalid price
    // annotation, GPU pods on missing nodes, a second ClusterPolicy).
    plan_.warnings = cluster_.warnings;
    ScopeNodes();
    GatherPoolFacts();
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
    PlannerOptions resolved = options_;
    resolved.operator_namespace = OperatorNamespace(cluster_, options_);
    plan_.artifacts = BuildArtifacts(plan_, works_for_artifacts_, resolved, CurrentOperatorState(cluster_, resolved));
    for (auto& w : FitWarnings(plan_, cluster_, resolved)) plan_.warnings.push_back(std::move(w));
    plan_.schedule = BuildSchedule(cluster_, plan_, policy_);
    if (std::string w = ScheduleWarning(plan_.schedule); !w.empty()) plan_.warnings.push_back(std::move(w));
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
    std::vector<NodeState*> by_name;
    by_name.reserve(nodes_.size());
    for (auto& s : nodes_) by_name.push_back(&s);
    std::sort(by_name.begin(), by_name.end(),
              [](const NodeState* a, const NodeState* b) { return a->node->name < b->node->name; });
    for (size_t i = 0; i < by_name.size(); ++i) {
      by_name[i]->name_rank =
          i > 0 && by_name[i]->node->name == by_name[i - 1]->node->name ? by_name[i - 1]->name_rank : static_cast<int>(i);
    }
  }

  // ---- 2. workloads ---------------------------------------------------------
  void GroupWorkloads() {
    // Looked up only: works_ keeps the order of the workloads' first pods.
    // Reserved so that the refs work_index_ compares with never move.
    works_.reserve(cluster_.pods.size());
    work_index_.Reserve(cluster_.pods.size());
    work_of_pod_.assign(cluster_.pods.size(), -1);
    node_of_pod_.assign(cluster_.pods.size(), -1);
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
      const size_t slot = work_index_.Slot(p.workload, works_);
      int wi = work_index_.At(slot);
      if (wi < 0) {
        wi = static_cast<int>(works_.size());
        works_.emplace_back().d.ref = p.workload;
        work_index_.Set(slot, wi);
      }
      works_[wi].pods.push_back(static_cast<int>(i));
      works_[wi].d.pods.push_back(p.name);
      work_of_pod_[i] = wi;
      node_of_pod_[i] = static_cast<int>(ns->second);
    }
  }

  // The only fields of a decision that Unchanged (so RunPool) changes.
  struct DecisionFields {
    Decision decision = Decision::kUnchanged;
    std::string slice, reason, isolation;
    // Takes the fields out of d (which the caller then overwrites).
    static DecisionFields TakeFrom(WorkloadDecision* d) {
      return {d->decision, std::move(d->slice), std::move(d->reason), std::move(d->isolation)};
    }
    void Restore(WorkloadDecision* d) {
      d->decision = decision;
      d->slice = std::move(slice);
      d->reason = std::move(reason);
      d->isolation = std::move(isolation);
    }
  };

  void Unchanged(WorkState& w, std::string reason) {
    w.d.decision = Decision::kUnchanged;
    w.d.slice.clear();
    w.d.reason = std::move(reason);
    w.d.isolation = "unchanged: keeps whole GPUs";
  }

  void DecideWorkloads() {
    const PodUsageJoin join = JoinUsageByPod(cluster_, history_);
    if (join.unmapped_pods > 0) {
      plan_.warnings.push_back(std::to_string(join.unmapped_pods) +
                               " pods in the history match no workload in the snapshot (deleted workloads?)");
    }
    // Each work's history pods, in the history's order, as one array sliced
    // per work (usage_begin[wi] .. usage_begin[wi + 1]).
    std::vector<int> work_of_entry(join.pods.size(), -1);
    std::vector<size_t> usage_begin(works_.size() + 1, 0);
    for (size_t e = 0; e < join.pods.size(); ++e) {
      const PodUsageJoin::Entry& entry = join.pods[e];
      int wi = entry.pod >= 0 ? work_of_pod_[entry.pod] : -1;
      if (wi < 0) {
        // A pod out of scope or gone: its workload's other pods may be in scope.
        wi = work_index_.At(work_index_.Slot(*entry.workload, works_));
        if (wi < 0) continue;
      }
      work_of_entry[e] = wi;
      ++usage_begin[wi + 1];
    }
    for (size_t wi = 0; wi < works_.size(); ++wi) usage_begin[wi + 1] += usage_begin[wi];
    std::vector<const metrics::PodUsage*> usages(usage_begin.back());
    {
      std::vector<size_t> next(usage_begin.begin(), usage_begin.end() - 1);
      for (size_t e = 0; e < join.pods.size(); ++e) {
        if (work_of_entry[e] >= 0) usages[next[work_of_entry[e]]++] = join.pods[e].usage;
      }
    }
    for (auto& w : works_) {
      const size_t wi = static_cast<size_t>(&w - works_.data());
      const model::Pod& first = cluster_.pods[w.pods.front()];
      std::vector<std::string> models;  // sorted, distinct
      int64_t max_gpus = 0;
      std::string slices_held;
      std::string off_target;
      for (int pi : w.pods) {
        const model::Pod& p = cluster_.pods[pi];
        max_gpus = std::max(max_gpus, p.gpus);
        for (const auto& [res, qty] : p.gpu_slices) slices_held = res;
        const NodeState& n = nodes_[node_of_pod_[pi]];
        if (n.model == nullptr) {
          InsertSorted(&models, "unknown GPU \"" + n.node->gpu_product + "\"");
        } else if (models.empty() || models.back() != n.model->id) {
          InsertSorted(&models, n.model->id);
        }
        if (!n.target && off_target.empty()) off_target = "pod " + p.name + " runs on node " + n.node->name + ", " + n.not_target;
      }
      w.d.gpus_per_pod = max_gpus;
      w.d.gpu_model = models.size() == 1 ? *models.begin() : "";
      const bool candidate = Precheck(w, first, slices_held, off_target, models);
      const size_t history_pods = usage_begin[wi + 1] - usage_begin[wi];
      if (history_pods > 0) {
        const metrics::WorkloadUsage u =
            metrics::Aggregate(usages.data() + usage_begin[wi], history_pods, options_.compute_percentile);
        if (u.has_memory) w.d.peak_memory_mib = u.peak_memory_mib;
        if (u.has_compute) w.d.peak_compute = u.peak_compute;
        w.d.compute_metric = u.compute_metric;
        w.d.history_hours = u.history_hours;
        w.d.samples = u.samples;
        if (candidate) Size(w, u, history_pods);
      } else if (candidate) {
        Unchanged(w, "no DCGM history for its pods (no series with namespace/pod " + first.namespace_ + "/" +
                         first.name + " or its owner's other pods)");
      }
    }
  }

  // Checks that do not need history.  Returns true when the workload is still
  // a candidate; otherwise it has been marked unchanged.
  bool Precheck(WorkState& w, const model::Pod& first, const std::string& slices_held, const std::string& off_target,
                const std::vector<std::string>& models) {
    if (auto ex = options_.excluded_workloads.find(w.d.ref); ex != options_.excluded_workloads.end()) {
      Unchanged(w, ex->second);
      return false;
    }
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
    for (int pi : w.pods) {
      const std::string pinned = WhyPinned(cluster_.pods[pi]);
      if (!pinned.empty()) {
        Unchanged(w, "pod " + cluster_.pods[pi].name + " is " + pinned + "; " + kLeftOutReason);
        return false;
      }
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
    const NodeState& node = nodes_[node_of_pod_[w.pods.front()]];
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
    SizingResult r = SizerOf(model).Size(u.peak_memory_mib, peak_compute);
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

  const MigSizer& SizerOf(const mig::GpuModel& model) {
    for (const MigSizer& s : sizers_) {
      if (&s.model() == &model) return s;
    }
    return sizers_.emplace_back(model, policy_);
  }

  // What the steps ask of a pool's nodes, gathered once after scoping.
  struct PoolFacts {
    int64_t memory_mib = 0;              // the smallest GPU memory of its nodes
    bool mig_target = false;             // some node may take MIG layouts
    std::vector<std::string> products;   // their nvidia.com/gpu.product values, sorted
  };
  void GatherPoolFacts() {
    std::map<std::string, std::set<std::string>> products;
    for (const auto& n : nodes_) {
      if (!n.model) continue;
      PoolFacts& f = pool_facts_[n.model->id];
      if (n.gpu_memory_mib > 0) f.memory_mib = f.memory_mib == 0 ? n.gpu_memory_mib : std::min(f.memory_mib, n.gpu_memory_mib);
      f.mig_target = f.mig_target || n.mig_ok;
      if (!n.node->gpu_product.empty()) products[n.model->id].insert(n.node->gpu_product);
    }
    for (auto& [pool, labels] : products) pool_facts_[pool].products.assign(labels.begin(), labels.end());
  }
  const PoolFacts& Facts(const std::string& pool) const {
    static const PoolFacts kNone;
    auto it = pool_facts_.find(pool);
    return it == pool_facts_.end() ? kNone : it->second;
  }
  int64_t PoolMemory(const std::string& pool) const { return Facts(pool).memory_mib; }
  bool PoolHasMigTarget(const std::string& pool) const { return Facts(pool).mig_target; }

  // ---- 3 & 4. packing and placement per pool --------------------------------
  struct PoolResult {
    std::vector<MigBin> mig_bins;
    std::vector<int> mig_item_work;  // item -> work index
    std::vector<TsNodeFill> ts_fills;
    std::vector<int> ts_item_work;
    std::vector<int> mig_profiles;   // item -> profile index (for the lower bound)
    double mig_lp_bound = 0;         // LP relaxation of the fewest GPUs for mig_profiles
    std::vector<TsItem> ts_items;
  };

  // Plans one pool under the policy's spec.disruption.stayingPods.  When that
  // kept some node from taking MIG GPUs, the pool is also planned as if every
  // staying pod could be disrupted, only to tell what safety costs
  // (summary.safety_cost_*); the safe plan is the one kept.
  void PlanPool(const std::string& pool) {
    // The pool's workloads as decided, before any revert for lack of room:
    // RunPool changes a work only through Unchanged, at most once a run, and
    // journals the fields it overwrites.
    std::vector<std::pair<size_t, DecisionFields>> decided;
    RunPool(pool, policy_.staying_pods, &decided);
    bool vetoed = false;
    for (const auto& n : nodes_) vetoed = vetoed || (n.model && n.model->id == pool && !n.veto.empty());
    if (vetoed && policy_.staying_pods != policy::StayingPods::kAny) {
      const PoolValue safe = ValueOf(pool);
      // Keep the safe result aside, plan the same decisions without the
      // restriction, measure, restore.
      std::vector<std::pair<size_t, DecisionFields>> safe_works;
      safe_works.reserve(decided.size());
      for (auto& [wi, fields] : decided) {
        safe_works.push_back({wi, DecisionFields::TakeFrom(&works_[wi].d)});
        fields.Restore(&works_[wi].d);
      }
      std::vector<std::pair<size_t, NodePlacement>> safe_nodes;
      for (size_t ni = 0; ni < nodes_.size(); ++ni) {
        if (nodes_[ni].model && nodes_[ni].model->id == pool) safe_nodes.push_back({ni, TakePlacement(&nodes_[ni])});
      }
      PoolResult safe_result = std::move(pools_[pool]);
      auto safe_names = std::move(mig_names_[pool]);
      std::vector<std::pair<size_t, DecisionFields>> unsafe_changed;
      RunPool(pool, policy::StayingPods::kAny, &unsafe_changed);
      const PoolValue unsafe = ValueOf(pool);
      for (auto& [wi, fields] : unsafe_changed) fields.Restore(&works_[wi].d);
      for (auto& [wi, fields] : safe_works) fields.Restore(&works_[wi].d);
      for (auto& [ni, placed] : safe_nodes) PutPlacement(std::move(placed), &nodes_[ni]);
      pools_[pool] = std::move(safe_result);
      mig_names_[pool] = std::move(safe_names);
      if (unsafe.hourly_usd > safe.hourly_usd + 1e-9 || unsafe.gpus_after < safe.gpus_after) {
        plan_.summary.safety_cost_gpus += std::max(0, safe.gpus_after - unsafe.gpus_after);
        plan_.summary.safety_cost_monthly_usd += std::max(0.0, unsafe.hourly_usd - safe.hourly_usd) * kHoursPerMonth;
      }
    }
    RecordLowerBound(*catalog_.FindModel(pool));
  }

  // Packs and places the pool's moving workloads.  A workload that finds no
  // room is made unchanged and the pool is planned again (its pods then stay
  // where they are, which can take room from others), until a placement
  // holds every workload still moving.  Each pass reverts at least one
  // workload, so this ends; past kMaxPasses every workload of the pool still
  // moving is made unchanged, so that the node state always matches the
  // pool's result (the next pass places nothing).
  static constexpr int kMaxPasses = 64;
  void RunPool(const std::string& pool, policy::StayingPods allowance,
               std::vector<std::pair<size_t, DecisionFields>>* changed) {
    const mig::GpuModel* pool_model = catalog_.FindModel(pool);
    // One packer for every pass: its layouts and fit checks carry over.
    std::optional<MigPacker> packer;
    for (int attempt = 0;; ++attempt) {
      PoolResult r;
      std::vector<NodeState*> pool_nodes;
      for (auto& n : nodes_) {
        if (n.model != pool_model) continue;
        n.pinned = 0;
        n.pinned_workloads.clear();
        n.staying_pods.clear();
        n.mig_bins.clear();
        n.ts_fill = -1;
        n.veto.clear();
        pool_nodes.push_back(&n);
      }
      for (size_t wi = 0; wi < works_.size(); ++wi) {
        WorkState& w = works_[wi];
        if (w.d.decision == Decision::kUnchanged) {
          // Its GPUs stay where they are, on whichever of its nodes are in this pool.
          for (int pi : w.pods) {
            const model::Pod& p = cluster_.pods[pi];
            NodeState& n = nodes_[node_of_pod_[pi]];
            if (n.model != pool_model || p.gpus <= 0) continue;
            for (int64_t g = 0; g < p.gpus; ++g) n.pinned_workloads.push_back(static_cast<int>(wi));
            n.pinned += static_cast<int>(p.gpus);
            n.staying_pods.push_back(pi);
          }
          continue;
        }
        if (w.pool != pool) continue;
        for (size_t k = 0; k < w.pods.size(); ++k) {
          if (w.d.decision == Decision::kMig) {
            r.mig_profiles.push_back(w.profile_index);
            r.mig_item_work.push_back(static_cast<int>(wi));
          } else {
            r.ts_items.push_back({w.need_memory_mib, w.need_compute});
            r.ts_item_work.push_back(static_cast<int>(wi));
          }
        }
      }
      for (NodeState* n : pool_nodes) n->veto = StayingVeto(*n, allowance);
      if (!r.mig_profiles.empty()) {
        if (!packer) packer.emplace(*pool_model);
        r.mig_bins = packer->Pack(r.mig_profiles);
        r.mig_lp_bound = packer->last_lp_bound();
      }
      std::string failure;
      std::set<int> revert = Place(pool, pool_nodes, &r, &failure, allowance);
      if (revert.empty()) {
        std::vector<std::vector<std::string>>& names = mig_names_[pool];
        names.clear();
        for (const auto& b : r.mig_bins) names.push_back(packer->Names(b.counts));
        pools_[pool] = std::move(r);
        return;
      }
      if (attempt + 1 >= kMaxPasses) {
        // Give up on the pool's moves rather than keep a placement that does
        // not match its nodes: everything still moving stays.
        for (size_t wi = 0; wi < works_.size(); ++wi) {
          if (works_[wi].pool == pool && works_[wi].d.decision != Decision::kUnchanged) revert.insert(static_cast<int>(wi));
        }
        failure = "the " + pool + " pool found no placement for its moves in " + std::to_string(kMaxPasses) +
                  " passes; its workloads are left as they are";
        plan_.warnings.push_back(failure);
      }
      for (int wi : revert) {
        changed->push_back({static_cast<size_t>(wi), DecisionFields::TakeFrom(&works_[wi].d)});
        Unchanged(works_[wi], failure);
      }
    }
  }

  // What a planning pass sets on a node (RunPool resets it on every pass).
  struct NodePlacement {
    int pinned = 0;
    std::vector<int> pinned_workloads;
    std::vector<int> staying_pods;
    std::vector<int> mig_bins;
    int ts_fill = -1;
    std::string veto;
  };
  static NodePlacement TakePlacement(NodeState* n) {
    return {n->pinned, std::move(n->pinned_workloads), std::move(n->staying_pods), std::move(n->mig_bins), n->ts_fill,
            std::move(n->veto)};
  }
  static void PutPlacement(NodePlacement&& p, NodeState* n) {
    n->pinned = p.pinned;
    n->pinned_workloads = std::move(p.pinned_workloads);
    n->staying_pods = std::move(p.staying_pods);
    n->mig_bins = std::move(p.mig_bins);
    n->ts_fill = p.ts_fill;
    n->veto = std::move(p.veto);
  }

  // Why the pods that stay on `n` forbid a MIG mode change there (mig-parted
  // resets every GPU of the node, so each of them is disrupted); "" when the
  // allowance lets all of them be disrupted.
  std::string StayingVeto(const NodeState& n, policy::StayingPods allowance) const {
    if (n.staying_pods.empty() || allowance == policy::StayingPods::kAny) return "";
    const model::Pod& first = cluster_.pods[n.staying_pods.front()];
    if (allowance == policy::StayingPods::kNone) {
      return "keeps " + Count(static_cast<int>(n.staying_pods.size()), "GPU pod") + " (" + first.namespace_ + "/" +
             first.name + (n.staying_pods.size() > 1 ? ", ..." : "") +
             ") that a MIG mode change would disrupt; policy spec.disruption.stayingPods is None";
    }
    for (int pi : n.staying_pods) {
      if (Restartable(pi)) continue;
      const model::Pod& p = cluster_.pods[pi];
      return "keeps pod " + p.namespace_ + "/" + p.name + " (" + p.workload.kind + " " + p.workload.name + "), " +
             WhyNotRestartable(pi) +
             "; a MIG mode change would disrupt it (policy spec.disruption.stayingPods: Any allows it)";
    }
    return "";
  }

  // Whether WhyNotRestartable(pod_index) is "", without writing the reason.
  bool Restartable(int pod_index) const {
    const model::Pod& p = cluster_.pods[pod_index];
    const std::string& kind = p.workload.kind;
    if (kind == "Pod" || (!Movable(kind) && kind != "DaemonSet")) return false;
    if (p.safe_to_evict == false || !p.local_volumes.empty()) return false;
    const WorkloadDecision& d = works_[work_of_pod_[pod_index]].d;
    return d.peak_compute && !(*d.peak_compute >= kBusyCompute);
  }

  // "" when the pod comes back on its own after an eviction and is idle
  // enough to restart; else why not.
  std::string WhyNotRestartable(int pod_index) const {
    const model::Pod& p = cluster_.pods[pod_index];
    const std::string& kind = p.workload.kind;
    if (kind == "Pod") return "a bare pod: evicted, it is deleted and not recreated";
    if (!Movable(kind) && kind != "DaemonSet") {
      return "a " + kind + " pod: evicted, its work is lost or starts over";
    }
    if (p.safe_to_evict == false) return "annotated cluster-autoscaler.kubernetes.io/safe-to-evict: \"false\"";
    if (!p.local_volumes.empty()) {
      return "local storage (volume " + p.local_volumes.front() + ") is lost when it is evicted";
    }
    const WorkloadDecision& d = works_[work_of_pod_[pod_index]].d;
    if (!d.peak_compute) return "no compute history, so it cannot be shown idle enough to restart";
    if (*d.peak_compute >= kBusyCompute) {
      return "busy (compute peak " + FormatPercent(*d.peak_compute) + "), restarting it interrupts its work";
    }
    return "";
  }

  void RecordLowerBound(const mig::GpuModel& model) {
    const PoolResult& r = pools_[model.id];
    if (!r.mig_profiles.empty()) {
      plan_.summary.gpus_lower_bound += CeilBound(r.mig_lp_bound);
      plan_.summary.moved_gpus_after += static_cast<int>(r.mig_bins.size());
    }
    const std::vector<TsItem>& ts = r.ts_items;
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
      plan_.summary.gpus_lower_bound += std::max({by_mem, by_compute, by_count, 1});
      for (const auto& f : r.ts_fills) plan_.summary.moved_gpus_after += f.gpus_used();
    }
  }

  // GPUs held after the plan and dollars per hour freed, over a pool's nodes.
  struct PoolValue {
    int gpus_after = 0;
    double hourly_usd = 0;
  };
  PoolValue ValueOf(const std::string& pool) const {
    const auto it = pools_.find(pool);
    return ValueOf(pool, it == pools_.end() ? nullptr : &it->second);
  }
  PoolValue ValueOf(const std::string& pool, const PoolResult* r) const {
    PoolValue v;
    for (const auto& n : nodes_) {
      if (!n.model || n.model->id != pool) continue;
      const int after = GpusAfter(n, r);
      v.gpus_after += after;
      v.hourly_usd += HourlyValueFreed(n.before, after, n.node->gpu_count, n.price.value_or(0));
    }
    return v;
  }

  int GpusAfter(const NodeState& n, const PoolResult* pr) const {
    if (!n.target) return n.before;
    return n.pinned + static_cast<int>(n.mig_bins.size()) + (n.ts_fill >= 0 && pr ? pr->ts_fills[n.ts_fill].gpus_used() : 0);
  }

  static bool NodeOrder(const NodeState* a, const NodeState* b) {
    // Keep big, cheap, busy nodes; free the others.
    const double pa = a->price ? *a->price / std::max(1, a->node->gpu_count) : 0;
    const double pb = b->price ? *b->price / std::max(1, b->node->gpu_count) : 0;
    if (a->node->gpu_count != b->node->gpu_count) return a->node->gpu_count > b->node->gpu_count;
    if (pa != pb) return pa < pb;
    if (a->before != b->before) return a->before > b->before;
    return a->name_rank < b->name_rank;  // by name
  }

  // Places the pool's MIG GPUs and time-sliced pods on nodes.  Returns the
  // workloads to revert (and why, in *failure) when they do not fit.
  //
  // MIG GPUs go to the nodes node_choice.h picks (most dollars freed, then
  // fewest disrupted pods) among the targets that may take MIG and whose
  // staying pods may be disrupted (no veto); nodes whose GPU pods all move
  // come first among equals.  Time-sliced pods take whole nodes left with no
  // staying GPU pod (the device plugin's sharing applies to every GPU of a
  // node, and no pod may hold nvidia.com/gpu when its config changes).  MIG
  // goes first; when that leaves time-sliced pods without a node and the pool
  // has both, time-slicing first is tried too, and the order that moves more
  // workloads (then frees more dollars) is kept.
  std::set<int> Place(const std::string& pool, std::vector<NodeState*>& pool_nodes, PoolResult* r,
                      std::string* failure, policy::StayingPods allowance) {
    candidates_model_ = pool;
    std::set<int> mig_first = PlaceInOrder(pool, pool_nodes, r, failure, false, allowance);
    if (mig_first.empty() || r->mig_bins.empty() || r->ts_items.empty()) return mig_first;
    struct Placement {
      std::vector<std::vector<int>> mig_bins;
      std::vector<int> ts_fill;
      std::vector<TsNodeFill> ts_fills;
      std::set<int> revert;
      std::string failure;
      PoolValue value;
    };
    auto take = [&](std::set<int> revert, const std::string& why) {
      Placement p{{}, {}, r->ts_fills, std::move(revert), why, ValueOf(pool, r)};
      for (NodeState* n : pool_nodes) {
        p.mig_bins.push_back(n->mig_bins);
        p.ts_fill.push_back(n->ts_fill);
      }
      return p;
    };
    Placement a = take(std::move(mig_first), *failure);
    for (NodeState* n : pool_nodes) {
      n->mig_bins.clear();
      n->ts_fill = -1;
    }
    r->ts_fills.clear();
    std::string why_b;
    std::set<int> ts_first = PlaceInOrder(pool, pool_nodes, r, &why_b, true, allowance);
    Placement b = take(std::move(ts_first), why_b);
    const bool keep_b = b.revert.size() < a.revert.size() ||
                        (b.revert.size() == a.revert.size() && b.value.hourly_usd > a.value.hourly_usd + 1e-9);
    const Placement& kept = keep_b ? b : a;
    for (size_t i = 0; i < pool_nodes.size(); ++i) {
      pool_nodes[i]->mig_bins = kept.mig_bins[i];
      pool_nodes[i]->ts_fill = kept.ts_fill[i];
    }
    r->ts_fills = kept.ts_fills;
    *failure = kept.failure;
    return kept.revert;
  }

  std::set<int> PlaceInOrder(const std::string& pool, std::vector<NodeState*>& pool_nodes, PoolResult* r,
                             std::string* failure, bool time_slicing_first, policy::StayingPods allowance) {
    std::vector<NodeState*> empty;
    for (NodeState* n : pool_nodes) {
      if (n->target && n->pinned == 0) empty.push_back(n);
    }
    std::sort(empty.begin(), empty.end(), NodeOrder);
    std::set<int> revert;
    if (time_slicing_first) {
      revert = PlaceTimeSliced(empty, r->ts_items, r, failure);
      std::string mig_failure;
      std::set<int> mig_revert = PlaceMig(pool, pool_nodes, r, &mig_failure, allowance);
      if (!mig_revert.empty()) *failure = mig_failure;
      revert.insert(mig_revert.begin(), mig_revert.end());
      return revert;
    }
    revert = PlaceMig(pool, pool_nodes, r, failure, allowance);
    if (!revert.empty()) return revert;
    std::vector<NodeState*> ts_nodes;
    for (NodeState* n : empty) {
      if (n->mig_bins.empty()) ts_nodes.push_back(n);
    }
    return PlaceTimeSliced(ts_nodes, r->ts_items, r, failure);
  }

  // MIG GPUs onto the pool's nodes that may take them and hold no time-sliced pods.
  std::set<int> PlaceMig(const std::string& pool, std::vector<NodeState*>& pool_nodes, PoolResult* r,
                         std::string* failure, policy::StayingPods allowance) {
    std::vector<NodeState*> mig_nodes;
    for (NodeState* n : pool_nodes) {
      if (n->target && n->mig_ok && n->veto.empty() && n->ts_fill < 0) mig_nodes.push_back(n);
    }
    std::sort(mig_nodes.begin(), mig_nodes.end(), [](const NodeState* a, const NodeState* b) {
      if ((a->pinned == 0) != (b->pinned == 0)) return a->pinned == 0;
      return NodeOrder(a, b);
    });
    std::vector<NodeCandidate> candidates;
    for (const NodeState* n : mig_nodes) {
      candidates.push_back({std::max(0, n->node->gpu_count - n->pinned), n->before, n->pinned, n->node->gpu_count,
                            n->price.value_or(0), static_cast<int>(n->staying_pods.size())});
    }
    const NodeChoice choice = ChooseNodes(candidates, static_cast<int>(r->mig_bins.size()));
    size_t next_bin = 0;
    for (size_t i = 0; i < mig_nodes.size(); ++i) {
      for (int k = 0; k < choice.gpus[i]; ++k) mig_nodes[i]->mig_bins.push_back(static_cast<int>(next_bin++));
    }
    if (next_bin == r->mig_bins.size()) return {};
    bool vetoed = false;
    for (NodeState* n : pool_nodes) vetoed = vetoed || (n->target && n->mig_ok && !n->veto.empty());
    *failure = "no room for its MIG slice on schedulable " + pool + " nodes in scope" +
               (vetoed ? " whose staying GPU pods may be disrupted (policy spec.disruption.stayingPods: " +
                             std::string(policy::StayingPodsName(policy_.staying_pods)) + ")"
                       : "");
    return OverflowReverts(mig_nodes, *r, allowance, *catalog_.FindModel(pool));
  }

  // The workloads to make unchanged when the pool's MIG bins outnumber the
  // GPUs its MIG nodes can take.  A workload given up stays where it is, so
  // its pods keep their GPUs on the nodes they run on: on a MIG node that is
  // a GPU less to place on (the whole node, when the policy may not disrupt
  // the pod).  So workloads none of whose pods run on a MIG node are given
  // up first, those with the largest slices per pod first (the ones left
  // then fit the most pods in the GPUs there are); then the others.  They
  // are given up until the slices left, in GPUs (a slice is the larger of
  // its memory and compute share of a GPU), fit the capacity left.  The
  // next pass repacks what is left and gives up more only when the packing
  // still overflows, so few passes are needed and little is given up beyond
  // the shortage.
  std::set<int> OverflowReverts(const std::vector<NodeState*>& mig_nodes, const PoolResult& r,
                                policy::StayingPods allowance, const mig::GpuModel& model) const {
    std::unordered_map<const NodeState*, size_t> mig_index;
    std::vector<int> room(mig_nodes.size());
    int capacity = 0;
    for (size_t i = 0; i < mig_nodes.size(); ++i) {
      mig_index[mig_nodes[i]] = i;
      room[i] = std::max(0, mig_nodes[i]->node->gpu_count - mig_nodes[i]->pinned);
      capacity += room[i];
    }
    auto size_of = [&](const mig::MigProfile& prof) {
      return std::max(static_cast<double>(prof.memory_slices) / std::max(1, model.memory_slices),
                      static_cast<double>(prof.compute_slices) / std::max(1, model.compute_slices));
    };
    struct Candidate {
      int work = 0;
      double size = 0;        // its slices, in GPUs
      double size_per_pod = 0;
      int on_mig_nodes = 0;   // its pods on MIG nodes
    };
    std::map<int, Candidate> by_work;
    double total = 0;
    for (size_t item = 0; item < r.mig_item_work.size(); ++item) {
      const int wi = r.mig_item_work[item];
      const double size = size_of(*works_[wi].profile);
      Candidate& c = by_work[wi];
      c.work = wi;
      c.size += size;
      total += size;
    }
    std::vector<Candidate> order;
    for (auto& [wi, c] : by_work) {
      for (int pi : works_[wi].pods) c.on_mig_nodes += mig_index.count(&nodes_[node_of_pod_[pi]]) ? 1 : 0;
      c.size_per_pod = c.size / std::max<size_t>(1, works_[wi].pods.size());
      order.push_back(c);
    }
    std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
      if ((a.on_mig_nodes == 0) != (b.on_mig_nodes == 0)) return a.on_mig_nodes == 0;
      if (a.size_per_pod != b.size_per_pod) return a.size_per_pod > b.size_per_pod;
      return a.work < b.work;
    });
    // The packing's own overhead stays: what must go is the bins' excess,
    // in the same proportion of the slices.
    const double per_bin = r.mig_bins.empty() ? 1.0 : total / static_cast<double>(r.mig_bins.size());
    double left = total;
    std::set<int> out;
    for (const Candidate& c : order) {
      if (left <= per_bin * capacity + 1e-9) break;
      out.insert(c.work);
      left -= c.size;
      for (int pi : works_[c.work].pods) {
        auto it = mig_index.find(&nodes_[node_of_pod_[pi]]);
        if (it == mig_index.end()) continue;
        const bool vetoes = allowance == policy::StayingPods::kNone ||
                            (allowance == policy::StayingPods::kRestartable && !Restartable(pi));
        const int lost = vetoes ? room[it->second] : std::min<int>(room[it->second], static_cast<int>(cluster_.pods[pi].gpus));
        room[it->second] -= lost;
        capacity -= lost;
      }
    }
    // The bins overflowed, so something must go (the estimate may say the
    // slices fit when the node choice could not use every GPU).
    if (out.empty() && !order.empty()) out.insert(order.front().work);
    return out;
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

  // A staying pod on a node whose MIG mode changes, and what happens to it.
  DisruptedPod Disrupted(int pod_index) const {
    const model::Pod& p = cluster_.pods[pod_index];
    DisruptedPod d;
    d.pod = p.namespace_ + "/" + p.name;
    d.owner = p.workload.kind + "/" + p.workload.name;
    const std::string not_restartable = WhyNotRestartable(pod_index);
    d.why = "the node's MIG mode changes and mig-parted resets every GPU of the node, so the pod must leave its GPU "
            "first; " +
            (not_restartable.empty()
                 ? "it is evicted through the Eviction API (PodDisruptionBudgets respected) and its " + p.workload.kind +
                       " recreates it"
                 : not_restartable + " (allowed by policy spec.disruption.stayingPods: Any)");
    return d;
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
        np.isolation = "unchanged";
        for (int wi : n.pinned_workloads) {
          GpuAfter g;
          g.index = index++;
          g.whole = true;
          g.workloads.push_back(works_[wi].d.ref.Display());
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
        for (int wi : n.pinned_workloads) {
          GpuAfter g;
          g.index = index++;
          g.whole = true;
          g.workloads.push_back(works_[wi].d.ref.Display());
          np.gpus.push_back(std::move(g));
        }
      }
      np.gpus_after = GpusAfter(n, pr);
      np.freed = np.gpus_before > 0 && np.gpus_after == 0;
      if (np.gpus_before > np.gpus_after) {
        if (n.price && np.gpu_count > 0) {
          np.monthly_savings_usd =
              HourlyValueFreed(np.gpus_before, np.gpus_after, np.gpu_count, *n.price) * kHoursPerMonth;
        } else {
          np.notes.push_back("no price: set annotation kubeon.io/hourly-price-usd or pass --prices with instance type \"" +
                             np.instance_type + "\"");
        }
      }
      if (np.freed) {
        std::string whole;
        if (n.price && np.gpus_before < np.gpu_count) {
          whole = " (the whole node's price: " + Count(np.gpu_count - np.gpus_before, "GPU") + " of it already idle)";
        }
        np.notes.push_back("freed: no GPU workloads remain; cordon and remove the node to realise the saving" + whole);
      }
      if (np.method == "mig") {
        for (int pi : n.staying_pods) np.disrupted_pods.push_back(Disrupted(pi));
        plan_.summary.pods_disrupted += static_cast<int>(np.disrupted_pods.size());
      } else if (n.target && n.mig_ok && !n.veto.empty()) {
        np.notes.push_back("takes no MIG GPUs: " + n.veto);
      }
      if (np.method == "mig" && n.node->mig_strategy != "mixed") {
        np.notes.push_back("GPU Operator must run with mig.strategy=mixed (node label nvidia.com/mig.strategy is \"" +
                           n.node->mig_strategy + "\")");
      }
      plan_.summary.gpus_before += np.gpus_before;
      plan_.summary.gpus_after += np.gpus_after;
      plan_.summary.nodes_freed += np.freed ? 1 : 0;
      plan_.summary.monthly_savings_usd += np.monthly_savings_usd;
      (np.freed ? plan_.summary.savings_realizable_usd : plan_.summary.capacity_freed_usd) += np.monthly_savings_usd;
      plan_.nodes.push_back(std::move(np));
    }
    plan_.summary.gpus_freed = plan_.summary.gpus_before - plan_.summary.gpus_after;
  }

  // The last step: works_[i].d is moved into plan_.workloads (nothing reads
  // works_ afterwards).
  void BuildWorkloads() {
    // Per workload, the most replicas of the time-sliced GPUs its pods share.
    std::vector<int> ts_replicas(works_.size(), 0);
    for (const auto& [pool, r] : pools_) {
      for (const auto& f : r.ts_fills) {
        for (int item : f.items()) {
          int& replicas = ts_replicas[r.ts_item_work[item]];
          replicas = std::max(replicas, f.replicas());
        }
      }
    }
    plan_.workloads.reserve(plan_.workloads.size() + works_.size());
    works_for_artifacts_.reserve(works_for_artifacts_.size() + works_.size());
    for (auto& w : works_) {
      if (w.d.decision == Decision::kMig) {
        w.d.isolation = "MIG " + w.d.slice + ": own memory, cache and SMs; faults contained to the slice";
        ++plan_.summary.workloads_to_mig;
      } else if (w.d.decision == Decision::kTimeSlicing) {
        ++plan_.summary.workloads_to_time_slicing;
        // The replicas of the node(s) its pods share.
        const int replicas = ts_replicas[static_cast<size_t>(&w - works_.data())];
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
      if (w.d.decision != Decision::kUnchanged) a.product_labels = Facts(w.pool).products;
      works_for_artifacts_.push_back(std::move(a));
    }
    // In WorkloadRef order (ref_order.h), moving the decisions once; the refs
    // are unique (one WorkState per ref).
    std::vector<const model::WorkloadRef*> refs;
    refs.reserve(works_.size());
    for (const auto& w : works_) refs.push_back(&w.d.ref);
    plan_.workloads.reserve(plan_.workloads.size() + works_.size());
    for (size_t i : RefOrder(refs)) plan_.workloads.push_back(std::move(works_[i].d));
  }

  const model::Cluster& cluster_;
  const metrics::History& history_;
  const policy::GpuPolicy& policy_;
  const mig::MigCatalog& catalog_;
  const PlannerOptions& options_;
  Plan plan_;
  std::vector<NodeState> nodes_;
  std::unordered_map<std::string, size_t> node_index_;  // node name -> nodes_ index (lookups only)
  WorkIndex work_index_;  // ref -> works_ index (lookups only, until BuildWorkloads)
  std::vector<WorkState> works_;
  std::vector<int> work_of_pod_;  // cluster.pods index -> works_ index, -1 when not in scope
  std::vector<int> node_of_pod_;  // cluster.pods index -> nodes_ index, -1 when not in scope
  std::map<std::string, PoolFacts> pool_facts_;
  std::map<std::string, PoolResult> pools_;
  std::map<std::string, std::vector<std::vector<std::string>>> mig_names_;  // pool -> bin -> profiles
  std::vector<WorkloadForArtifacts> works_for_artifacts_;
  std::deque<MigSizer> sizers_;  // one per GPU model sized (stable addresses)
  std::string candidates_model_;  // the pool being placed, for messages
};

}  // namespace

Result<Plan> MakePlan(const model::Cluster& cluster, const metrics::History& history, const policy::GpuPolicy& policy,
                      const mig::MigCatalog& catalog, const PlannerOptions& options) {
  Plan plan = Planner(cluster, history, policy, catalog, options).Run();
  const std::vector<InvariantViolation> broken = CheckPlanInvariants(cluster, plan, policy, catalog);
  if (broken.empty()) return plan;
  std::string message = "policy \"" + policy.name + "\": the planner broke its own invariants, so no plan is given:";
  for (const auto& v : broken) message += " [" + v.id + "] " + v.message + ";";
  message.pop_back();
  return Status::Error(message + " (please report this with the cluster snapshot)");
}

}  // namespace kubeon::plan
