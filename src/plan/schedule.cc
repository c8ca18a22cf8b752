// See schedule.h.  The builder replays the migration on a model of the
// cluster's whole GPUs: pod instances (a pod, or its recreated copy) on nodes,
// free whole GPUs per node with where each free GPU came from, and the target
// nodes still to reconfigure.
#include "plan/schedule.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "plan/sha256.h"

namespace kubeon::plan {
namespace {

std::string PinnedNodeOf(const model::Pod& pod);

constexpr int64_t kUnlimited = std::numeric_limits<int32_t>::max();
// Targets of a pool tried per step (and per spare-GPU search), in order: keeps
// planning time linear in the cluster's size.
constexpr int kMaxCandidates = 16;
constexpr int kMaxSpareCandidates = 4;
constexpr const char* kSpareNodePrefix = "(spare ";

// Meanwhile-slot preference: nodes no step reconfigures, reconfigured nodes'
// whole GPUs, nodes a later step reconfigures, virtual spare GPUs.
enum Tier { kStable = 0, kDone = 1, kLater = 2, kSpare = 3 };

struct NodeState {
  const model::Node* node = nullptr;  // the cluster's, or a virtual spare node (Builder::spare_nodes_)
  std::vector<int> classes;  // placement classes that allow it
  int64_t free = 0;  // whole GPUs a new pod may take
  // Free whole GPUs by origin, oldest first: (step index, count); step 0 is
  // "free before the migration".
  std::vector<std::pair<int, int64_t>> origins;
  Tier tier = kStable;
  int target = -1;      // index into targets, -1 when no step reconfigures it
  int64_t sliced = 0;   // GPUs in use by slices once reconfigured
  std::set<int> insts;  // pod instances on it
  std::string spare_model;  // model id of a virtual spare node
};

struct Inst {
  int pod = -1;      // cluster.pods index
  int klass = -1;    // placement class (nodes its recreated pod may use)
  std::string pinned;  // the node its placement names alone ("" none)
  int node = -1;     // -1: not running (waiting Pending, or gone)
  int owner = -1;    // index into owners when its owner moves
  int64_t gpus = 0;
  bool alive = true;
};

struct Target {
  int node = -1;
  const NodePlan* plan = nullptr;
  int64_t whole_after = 0;  // whole GPUs (MIG off, not shared) once reconfigured
  int64_t sliced_after = 0;
  int mig_gpus = 0;
  int64_t evict_gpus = 0;   // at the start: the order key
  std::vector<int> owners;  // owners with slots on it
  bool done = false;
};

struct Owner {
  const WorkloadDecision* decision = nullptr;
  std::vector<int> targets;         // indices into targets, in plan order
  std::map<int, int64_t> slots;     // target -> slots planned there
  std::vector<int> insts;           // its pod instances
  const model::Pod* first_pod = nullptr;
  bool moved = false;
};

// A meanwhile slot chosen for an instance while a step is tried.
struct Placed {
  int inst = -1;
  int node = -1;  // -1: waits Pending (or is not recreated)
  int pdb = -1;   // >= 0: waits Pending for want of a free GPU, within this PDB's allowance;
                  // kNoBudget: waits Pending and no PDB covers it (the step is flagged)
};
constexpr int kNoBudget = -2;

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// Kubernetes' int-or-percent resolution against `replicas`; "" -> fallback.
int ResolveIntOrPercent(const std::string& raw, int replicas, bool round_up, const std::string& fallback) {
  const std::string v = raw.empty() ? fallback : raw;
  if (v.empty()) return 0;
  try {
    if (v.back() == '%') {
      const double pct = std::stod(v.substr(0, v.size() - 1));
      // Clamped before the conversion: "2147483647%" of many replicas is no int (and UB to convert).
      const double x = std::min(pct * replicas / 100.0, static_cast<double>(std::numeric_limits<int>::max()));
      if (!(x >= 0)) return 0;  // nan or negative: the snapshot reader lets neither through
      return static_cast<int>(round_up ? std::ceil(x - 1e-9) : std::floor(x + 1e-9));
    }
    return std::stoi(v);
  } catch (const std::exception&) {
    return 0;
  }
}

std::string Range(int first, int last) {
  return first == last ? "GPU" + std::to_string(first) : "GPU" + std::to_string(first) + "-" + std::to_string(last);
}

// "GPU0-3: 7x1g.10gb; GPU4-7: whole": runs of GPUs with the same layout.
std::string LayoutAfter(const NodePlan& n) {
  std::vector<std::string> per(n.gpu_count > 0 ? n.gpu_count : 0, "whole (MIG off)");
  if (n.method == "time-slicing") {
    for (auto& s : per) s = "time-sliced x" + std::to_string(n.time_slicing_replicas.value_or(1));
  }
  for (const auto& g : n.gpus) {
    if (g.index < 0 || g.index >= static_cast<int>(per.size())) continue;
    if (g.mig_enabled) {
      std::map<std::string, int> count;
      for (const auto& d : g.mig_devices) ++count[d];
      std::vector<std::string> parts;
      for (const auto& d : g.mig_devices) {
        auto it = count.find(d);
        if (it == count.end()) continue;
        parts.push_back(std::to_string(it->second) + "x" + d);
        count.erase(it);
      }
      per[g.index] = "MIG " + Join(parts, "+");
    }
  }
  std::vector<std::string> runs;
  for (size_t i = 0; i < per.size();) {
    size_t j = i;
    while (j + 1 < per.size() && per[j + 1] == per[i]) ++j;
    runs.push_back(Range(static_cast<int>(i), static_cast<int>(j)) + ": " + per[i]);
    i = j + 1;
  }
  return Join(runs, "; ");
}

std::string LayoutBefore(const model::Node& n, int64_t in_use) {
  return std::to_string(n.gpu_count) + " whole GPUs (MIG off), " + std::to_string(in_use) + " in use";
}

// A workload's (namespace, kind, name) as views, for lookups that copy no key.
struct RefView {
  std::string_view namespace_, kind, name;
  bool operator==(const RefView&) const = default;
};
struct RefViewHash {
  size_t operator()(const RefView& r) const noexcept { return model::HashWorkloadKey(r.namespace_, r.kind, r.name); }
};

class Builder {
 public:
  // The targets of the `blocked` pools are left as they are: not
  // reconfigured, their pods stay, their free GPUs serve as meanwhile slots.
  Builder(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy,
          const std::set<std::string>& blocked)
      : cluster_(cluster), plan_(plan), policy_(policy), blocked_(blocked) {}

  // Steps of every pool not blocked, or (feasible false, no steps) the
  // spare GPUs the order needs and stuck_pools(): the pools with targets left
  // where no pool could take a step.
  Schedule Run() {
    out_.max_nodes_per_pool = std::max(1, policy_.max_nodes_per_pool);
    LeftOut();
    Setup();
    std::map<std::string, int64_t> spares;
    if (!Order(&spares)) {
      out_.feasible = false;
      for (const auto& [model, n] : spares) {
        if (n > 0) out_.spare_gpus_needed[model] = static_cast<int>(n);
      }
      out_.steps.clear();
      return std::move(out_);
    }
    AssignSavings();
    return std::move(out_);
  }

  const std::set<std::string>& stuck_pools() const { return stuck_pools_; }

  // Workloads the planner left unchanged because a pod is tied to its node.
  void LeftOut() {
    const std::string suffix = std::string("; ") + kLeftOutReason;
    for (const auto& w : plan_.workloads) {
      if (w.decision != Decision::kUnchanged || w.reason.size() < suffix.size() ||
          w.reason.compare(w.reason.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      out_.left_out.push_back(w.ref.kind + " " + w.ref.Display() + ": " + w.reason.substr(0, w.reason.size() - suffix.size()));
    }
  }

  // ---- the model ------------------------------------------------------------
  void Setup() {
    std::unordered_map<std::string, int> node_index;
    node_index.reserve(cluster_.nodes.size());
    nodes_.reserve(cluster_.nodes.size() + 8);
    for (const auto& n : cluster_.nodes) {
      // Allocatable, or capacity when a snapshot lacks it.
      const std::map<std::string, int64_t>& alloc = n.allocatable.empty() ? n.capacity : n.allocatable;
      auto gpu = alloc.find(model::kGpuResource);
      const bool has_gpu_resource = std::any_of(alloc.begin(), alloc.end(), [](const auto& kv) {
        return kv.first == model::kGpuResource || kv.first == model::kSharedGpuResource ||
               kv.first.rfind(model::kMigResourcePrefix, 0) == 0;
      });
      if (!has_gpu_resource && n.gpu_count <= 0) continue;
      NodeState s;
      s.node = &n;
      s.free = gpu == alloc.end() ? 0 : gpu->second;
      node_index[n.name] = static_cast<int>(nodes_.size());
      nodes_.push_back(std::move(s));
    }
    // Requests of the active pods bound to each node, per resource.
    std::vector<int64_t> requested_gpus(nodes_.size(), 0);
    std::map<std::pair<int, std::string>, int64_t> requested_slices;
    std::unordered_map<RefView, int, RefViewHash> owner_of;  // views of plan_.workloads' refs
    std::vector<std::string_view> owner_kinds;                // their distinct kinds
    size_t moved = 0;
    for (const auto& w : plan_.workloads) moved += w.decision == Decision::kUnchanged ? 0 : 1;
    owner_of.reserve(moved);
    owner_by_display_.reserve(moved);
    owners_.reserve(moved);
    for (const auto& w : plan_.workloads) {
      if (w.decision == Decision::kUnchanged) continue;
      if (std::find(owner_kinds.begin(), owner_kinds.end(), w.ref.kind) == owner_kinds.end()) {
        owner_kinds.push_back(w.ref.kind);
      }
      owner_of[RefView{w.ref.namespace_, w.ref.kind, w.ref.name}] = static_cast<int>(owners_.size());
      owner_by_display_.emplace(w.ref.Display(), static_cast<int>(owners_.size()));
      Owner o;
      o.decision = &w;
      owners_.push_back(std::move(o));
    }
    std::vector<int> unbound;
    for (size_t i = 0; i < cluster_.pods.size(); ++i) {
      const model::Pod& p = cluster_.pods[i];
      if (!p.Active() || (p.gpus <= 0 && p.gpu_slices.empty())) continue;
      if (p.node_name.empty()) {
        if (p.gpus > 0) unbound.push_back(static_cast<int>(i));
        continue;
      }
      auto ni = node_index.find(p.node_name);
      if (ni == node_index.end()) continue;
      requested_gpus[ni->second] += std::max<int64_t>(0, p.gpus);
      for (const auto& [res, q] : p.gpu_slices) requested_slices[{ni->second, res}] += q;
      if (p.gpus <= 0) continue;
      Inst inst;
      inst.pod = static_cast<int>(i);
      inst.node = ni->second;
      inst.gpus = p.gpus;
      inst.pinned = PinnedNodeOf(p);
      auto o = owner_of.find(RefView{p.workload.namespace_, p.workload.kind, p.workload.name});
      if (o != owner_of.end()) {
        inst.owner = o->second;
        if (owners_[o->second].insts.empty()) owners_[o->second].first_pod = &p;
        owners_[o->second].insts.push_back(static_cast<int>(insts_.size()));
      }
      held_ += inst.gpus;
      nodes_[ni->second].insts.insert(static_cast<int>(insts_.size()));
      insts_.push_back(inst);
    }
    for (auto& s : nodes_) {
      const int idx = static_cast<int>(&s - nodes_.data());
      s.free = std::max<int64_t>(0, s.free - requested_gpus[idx]);
      if (!s.node->ready) s.free = 0;  // a NotReady node takes no pod
      for (const auto& [res, alloc] : s.node->allocatable.empty() ? s.node->capacity : s.node->allocatable) {
        if (res != model::kGpuResource && res != model::kSharedGpuResource && res.rfind(model::kMigResourcePrefix, 0) != 0) {
          continue;
        }
        auto q = requested_slices.find({idx, res});
        const int64_t req = res == model::kGpuResource ? requested_gpus[idx] : q == requested_slices.end() ? 0 : q->second;
        out_.capacity.push_back({s.node->name, res, alloc, req, std::max<int64_t>(0, alloc - req)});
      }
    }
    // Unbound Pending GPU pods take free GPUs first (by node name).
    std::vector<NodeState*> by_name;
    for (auto& s : nodes_) by_name.push_back(&s);
    std::sort(by_name.begin(), by_name.end(), [](const NodeState* a, const NodeState* b) { return a->node->name < b->node->name; });
    for (int pi : unbound) {
      const model::Pod& p = cluster_.pods[pi];
      const model::Placement where = p.PlacementOf();
      for (NodeState* sp : by_name) {
        NodeState& s = *sp;
        if (s.free >= p.gpus && where.AllowsNode(*s.node)) {
          s.free -= p.gpus;
          pending_taken_[s.node->name] += p.gpus;
          break;
        }
      }
    }
    for (auto& c : out_.capacity) {
      auto t = pending_taken_.find(c.node);
      if (c.resource == model::kGpuResource && t != pending_taken_.end()) c.free = std::max<int64_t>(0, c.free - t->second);
    }
    // Targets, and the owners' slots on them.
    for (const auto& np : plan_.nodes) {
      if (np.method != "mig" && np.method != "time-slicing") continue;
      if (blocked_.count(np.gpu_model)) continue;
      auto ni = node_index.find(np.name);
      if (ni == node_index.end()) continue;
      Target t;
      t.node = ni->second;
      t.plan = &np;
      for (const auto& g : np.gpus) {
        if (g.whole) continue;
        ++t.sliced_after;
        if (g.mig_enabled) ++t.mig_gpus;
        for (const auto& w : g.workloads) {
          auto o = owner_by_display_.find(w);
          if (o == owner_by_display_.end()) continue;
          Owner& owner = owners_[o->second];
          if (owner.slots[static_cast<int>(targets_.size())]++ == 0) {
            owner.targets.push_back(static_cast<int>(targets_.size()));
            t.owners.push_back(o->second);
          }
        }
      }
      t.whole_after = np.method == "mig" ? std::max(0, np.gpu_count - t.mig_gpus) : 0;
      for (int ii : nodes_[t.node].insts) t.evict_gpus += insts_[ii].gpus;
      nodes_[t.node].target = static_cast<int>(targets_.size());
      nodes_[t.node].tier = kLater;
      targets_.push_back(t);
    }
    for (auto& s : nodes_) {
      if (s.free > 0) s.origins.push_back({0, s.free});
    }
    // One virtual spare node per pool model, labelled like the pool's first
    // target (its hostname dropped), without taints; empty until needed.
    for (const auto& t : targets_) {
      const std::string& model = t.plan->gpu_model;
      if (spare_of_model_.count(model)) continue;
      NodeState s;
      model::Node& spare = spare_nodes_.emplace_back(*nodes_[t.node].node);
      spare.name = kSpareNodePrefix + model + ")";
      spare.labels.erase("kubernetes.io/hostname");
      spare.taints.clear();
      spare.unschedulable = false;
      spare.ready = true;
      s.node = &spare;
      s.tier = kSpare;
      s.spare_model = model;
      spare_of_model_[model] = static_cast<int>(nodes_.size());
      nodes_.push_back(std::move(s));
    }
    BuildClasses();
    controller_of_.reserve(moved);
    for (const auto& c : cluster_.controllers) {
      if (std::find(owner_kinds.begin(), owner_kinds.end(), c.kind) == owner_kinds.end()) continue;  // no owner of its kind
      if (owner_of.count(RefView{c.namespace_, c.kind, c.name})) {
        controller_of_[model::WorkloadRef{c.namespace_, c.kind, c.name}] = &c;
      }
    }
    // PDBs indexed by namespace and their first matchLabels entry (a pod can
    // only match when it has that label); those without matchLabels by
    // namespace alone.
    for (size_t i = 0; i < cluster_.pdbs.size(); ++i) {
      const model::PodDisruptionBudget& pdb = cluster_.pdbs[i];
      const auto& ml = pdb.selector.match_labels;
      if (ml.empty()) {
        pdbs_without_labels_[pdb.namespace_].push_back(static_cast<int>(i));
      } else {
        pdbs_by_label_[{pdb.namespace_, std::string(ml.begin()->first), std::string(ml.begin()->second)}].push_back(static_cast<int>(i));
      }
    }
    patch_of_.reserve(plan_.artifacts.workload_patches.size());
    for (const auto& wp : plan_.artifacts.workload_patches) patch_of_[{wp.namespace_, wp.kind, wp.name}] = &wp.patch_json;
  }

  // Nodes with free whole GPUs, per placement class, by (tier, node).
  void Unlist(int node) {
    const NodeState& s = nodes_[node];
    if (s.free <= 0) return;
    for (int c : s.classes) class_slots_[c].erase({s.tier, node});
  }
  void List(int node) {
    const NodeState& s = nodes_[node];
    if (s.free <= 0) return;
    for (int c : s.classes) class_slots_[c].insert({s.tier, node});
  }
  void SetFree(int node, int64_t free) {
    Unlist(node);
    nodes_[node].free = free;
    List(node);
  }
  void SetTier(int node, Tier tier) {
    Unlist(node);
    nodes_[node].tier = tier;
    List(node);
  }

  // Groups the instances by placement (pods of one template share one) and
  // lists, once, the nodes each placement allows: the filters only read node
  // labels, taints and cordons, which the migration does not change.
  void BuildClasses() {
    std::unordered_map<std::string, int> by_key;
    std::string key;  // one buffer, refilled per instance
    const auto add = [&key](std::initializer_list<std::string_view> parts) {
      for (std::string_view part : parts) key.append(part);
    };
    // Pods of one template follow each other: a pod whose filters equal the
    // last keyed pod's has its key, so its class.
    const model::Pod* last = nullptr;
    int last_class = -1;
    for (auto& inst : insts_) {
      const model::Pod& p = cluster_.pods[inst.pod];
      if (last != nullptr && p.node_selector == last->node_selector && p.tolerations == last->tolerations &&
          p.required_node_terms == last->required_node_terms) {
        inst.klass = last_class;
        continue;
      }
      key.clear();
      for (const auto& [k, v] : p.node_selector) add({"s", k, "=", v, ";"});
      for (const auto& t : p.tolerations) add({"t", t.key, ",", t.op, ",", t.value, ",", t.effect, ";"});
      for (const auto& term : p.required_node_terms) {
        key += 'T';
        for (const auto* reqs : {&term.match_expressions, &term.match_fields}) {
          key += '|';
          for (const auto& r : *reqs) {
            add({r.key, " ", r.op});
            for (const auto& v : r.values) add({" ", v});
            key += ';';
          }
        }
      }
      auto [it, added] = by_key.try_emplace(key, static_cast<int>(class_slots_.size()));
      if (added) {
        class_slots_.emplace_back();
        const model::Placement where = p.PlacementOf();
        for (size_t n = 0; n < nodes_.size(); ++n) {
          if (where.AllowsNode(*nodes_[n].node)) nodes_[n].classes.push_back(it->second);
        }
      }
      inst.klass = it->second;
      last = &p;
      last_class = it->second;
    }
    for (size_t n = 0; n < nodes_.size(); ++n) List(static_cast<int>(n));
  }

  // Whether the instance's recreated pod waits Pending instead of running
  // elsewhere, and whether it comes back at all.
  bool ComesBack(const Inst& inst) const { return cluster_.pods[inst.pod].workload.kind != "Pod"; }
  bool Waits(const Inst& inst, const std::string& node_name) const {
    return cluster_.pods[inst.pod].daemonset || inst.pinned == node_name;
  }

  // Whether the instance's owner moves at the end of `step` (its rollout then
  // replaces the Pending pod with one on the new slices; a Deployment's
  // rollout deletes unavailable old pods first).
  bool BackAfter(const Inst& inst, const std::vector<int>& step) const {
    if (inst.owner < 0) return false;
    for (int t : owners_[inst.owner].targets) {
      if (!targets_[t].done && std::find(step.begin(), step.end(), t) == step.end()) return false;
    }
    return true;
  }

  // PdbOf's answer as an index into cluster.pdbs, -1 when none.
  int PdbIndexOf(const model::Pod& pod) const {
    const model::PodDisruptionBudget* b = PdbOf(pod);
    return b == nullptr ? -1 : static_cast<int>(b - cluster_.pdbs.data());
  }

  // Tries to find meanwhile slots for every instance on the nodes of `step`;
  // an instance without one may wait Pending when its PodDisruptionBudget
  // allows that many disruptions for the whole step.
  // On success applies them to the free counts and returns true; on failure
  // leaves the model unchanged.  `placed` receives the slots.
  bool TryStep(const std::vector<int>& step, std::vector<Placed>* placed) {
    placed->clear();
    std::set<int> in_step;
    for (int t : step) in_step.insert(targets_[t].node);
    // Who gets the free GPUs first: pods that may not wait Pending, then the
    // pods of each PodDisruptionBudget beyond its allowance, then pods no
    // budget covers (waiting would flag the step), then the rest.
    enum Priority { kMustRun = 0, kBeyondBudget = 1, kNoBudgetPod = 2, kWithinBudget = 3 };
    struct Candidate {
      int inst;
      int pdb;
      Priority priority;
    };
    std::vector<Candidate> candidates;
    std::map<int, int> seen;  // PDB -> its pods so far
    for (int t : step) {
      const int node = targets_[t].node;
      for (int ii : nodes_[node].insts) {
        const Inst& inst = insts_[ii];
        if (!ComesBack(inst) || Waits(inst, nodes_[node].node->name)) {
          placed->push_back({ii, -1});
          continue;
        }
        const int pdb = PdbIndexOf(cluster_.pods[inst.pod]);
        Priority pr = kWithinBudget;
        // A StatefulSet recreates a missing pod from its old revision and,
        // OrderedReady, updates nothing while a pod is not Ready: a Pending
        // pod would block the owner's own move, so its pods never wait.
        if (!BackAfter(inst, step) || cluster_.pods[inst.pod].workload.kind == "StatefulSet") {
          pr = kMustRun;
        } else if (pdb < 0) {
          pr = kNoBudgetPod;
        } else if (++seen[pdb] > cluster_.pdbs[pdb].disruptions_allowed) {
          pr = kBeyondBudget;
        }
        candidates.push_back({ii, pdb, pr});
      }
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& x, const Candidate& y) { return x.priority < y.priority; });
    std::vector<std::pair<int, int64_t>> undo;  // node, previous free
    std::map<int, int> waiting;                  // PDB -> its pods waiting Pending
    bool ok = true;
    for (const Candidate& c : candidates) {
      const Inst& inst = insts_[c.inst];
      int chosen = -1;
      for (const auto& [tier, n] : class_slots_[inst.klass]) {
        if (in_step.count(n) || nodes_[n].free < inst.gpus) continue;
        chosen = n;
        break;
      }
      if (chosen >= 0) {
        undo.push_back({chosen, nodes_[chosen].free});
        SetFree(chosen, nodes_[chosen].free - inst.gpus);
        placed->push_back({c.inst, chosen});
        continue;
      }
      // No free GPU it may use: it waits Pending while the step runs, which
      // only a pod whose owner moves at the end of this step may do.
      if (c.priority == kMustRun) {
        ok = false;
        break;
      }
      if (c.pdb >= 0) ++waiting[c.pdb];
      placed->push_back({c.inst, -1, c.pdb >= 0 ? c.pdb : kNoBudget});
    }
    // Pods waiting Pending hold their budget's disruptions for the whole step.
    // The executor evicts the pods that run elsewhere first (evictions are
    // listed in that order) and each waits for its replacement to be Ready
    // (the Eviction API answers 429 until then), so they need no allowance
    // beyond the waiting pods'.
    for (const auto& [pdb, w] : waiting) {
      if (w > cluster_.pdbs[pdb].disruptions_allowed) ok = false;
    }
    if (!ok) {
      for (auto it = undo.rbegin(); it != undo.rend(); ++it) SetFree(it->first, it->second);
      placed->clear();
    }
    return ok;
  }

  // Undoes the free counts a successful TryStep applied.
  void UndoStep(const std::vector<Placed>& placed) {
    for (const auto& p : placed) {
      if (p.node >= 0) SetFree(p.node, nodes_[p.node].free + insts_[p.inst].gpus);
    }
  }

  // The pool's best step now: remaining targets by order key, each joining
  // when the step still fits.  Empty when none fits alone.
  std::vector<int> PickStep(const std::vector<int>& remaining, std::vector<Placed>* placed) {
    std::vector<int> step;
    std::vector<Placed> trial;
    int tried = 0;
    for (int t : remaining) {
      if (static_cast<int>(step.size()) >= out_.max_nodes_per_pool ||
          ++tried > (lean_ ? kMaxSpareCandidates : kMaxCandidates)) {
        break;
      }
      std::vector<int> with = step;
      with.push_back(t);
      if (!step.empty()) UndoStep(*placed);
      if (TryStep(with, &trial)) {
        step = std::move(with);
        *placed = trial;
      } else if (!step.empty()) {
        TryStep(step, placed);  // restore the accepted step's slots (it fitted before)
      }
    }
    if (!step.empty()) UndoStep(*placed);
    return step;
  }

  // Greedy order; when stuck, adds spare GPUs (returned in *spares) and goes
  // on.  Returns true when no spare was needed.
  bool Order(std::map<std::string, int64_t>* spares) {
    std::map<std::string, std::vector<int>> remaining;  // pool -> targets by order key
    std::vector<int> order(targets_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      if (targets_[a].evict_gpus != targets_[b].evict_gpus) return targets_[a].evict_gpus < targets_[b].evict_gpus;
      return targets_[a].plan->name < targets_[b].plan->name;
    });
    for (int t : order) remaining[targets_[t].plan->gpu_model].push_back(t);
    bool needed_spares = false;
    while (true) {
      // A pass: each pool takes steps while one fits.
      bool any_left = false;
      bool took = false;
      for (auto& [pool, left] : remaining) {
        while (!left.empty()) {
          std::vector<Placed> placed;
          std::vector<int> step = PickStep(left, &placed);
          if (step.empty()) break;
          std::vector<Placed> applied;
          TryStep(step, &applied);
          Commit(pool, step, applied);
          for (int t : step) left.erase(std::find(left.begin(), left.end(), t));
          took = true;
        }
        any_left = any_left || !left.empty();
      }
      if (!any_left) break;
      if (took) continue;
      // Stuck: the candidate needing the fewest spare GPUs gets them.  The
      // schedule is infeasible from here on: its steps are only counted.
      if (!needed_spares) {
        for (const auto& [pool, left] : remaining) {
          if (!left.empty()) stuck_pools_.insert(pool);
        }
      }
      needed_spares = true;
      lean_ = true;
      if (!AddSpares(remaining, spares)) return false;
    }
    return !needed_spares;
  }

  // With unlimited spare GPUs, finds the single target whose evictions need
  // the fewest of them and adds exactly those.  False when none can fit even
  // then (a pod whose placement allows no node).
  bool AddSpares(const std::map<std::string, std::vector<int>>& remaining, std::map<std::string, int64_t>* spares) {
    std::map<int, int64_t> before;
    for (const auto& [model, n] : spare_of_model_) {
      before[n] = nodes_[n].free;
      SetFree(n, kUnlimited);
    }
    int64_t best_total = -1;
    std::map<std::string, int64_t> best;
    for (const auto& [pool, left] : remaining) {
      for (size_t k = 0; k < left.size() && static_cast<int>(k) < kMaxSpareCandidates; ++k) {
        const int t = left[k];
        std::vector<Placed> placed;
        if (!TryStep({t}, &placed)) continue;
        std::map<std::string, int64_t> use;
        int64_t total = 0;
        for (const auto& p : placed) {
          if (p.node >= 0 && !nodes_[p.node].spare_model.empty()) {
            use[nodes_[p.node].spare_model] += insts_[p.inst].gpus;
            total += insts_[p.inst].gpus;
          }
        }
        UndoStep(placed);
        if (best_total < 0 || total < best_total) {
          best_total = total;
          best = use;
        }
      }
    }
    for (const auto& [n, f] : before) SetFree(n, f);
    if (best_total <= 0) return false;
    for (const auto& [model, g] : best) {
      (*spares)[model] += g;
      const int n = spare_of_model_.at(model);
      nodes_[n].origins.push_back({0, g});
      SetFree(n, nodes_[n].free + g);
    }
    return true;
  }

  // Takes `count` free GPUs from `node` (oldest origins first) and returns
  // them by origin.
  std::map<int, int64_t> Consume(int node, int64_t count) {
    std::map<int, int64_t> taken;
    auto& origins = nodes_[node].origins;
    while (count > 0 && !origins.empty()) {
      const int64_t k = std::min(count, origins.front().second);
      taken[origins.front().first] += k;
      origins.front().second -= k;
      count -= k;
      if (origins.front().second == 0) origins.erase(origins.begin());
    }
    return taken;
  }

  // ---- one step ---------------------------------------------------------------
  void Commit(const std::string& pool, const std::vector<int>& step, const std::vector<Placed>& placed) {
    const int index = static_cast<int>(out_.steps.size()) + 1;
    ScheduleStep s;
    s.index = index;
    s.gpu_model = pool;
    s.method = targets_[step.front()].plan->method;
    std::set<std::string> isolation;
    const int64_t held_before = held_;
    for (int t : step) {
      const Target& tg = targets_[t];
      const NodePlan& np = *tg.plan;
      s.nodes.push_back(np.name);
      if (lean_) continue;
      s.labels_after[np.name] = np.labels;
      int64_t used = 0;
      for (int ii : nodes_[tg.node].insts) used += insts_[ii].gpus;
      s.layout_before[np.name] = LayoutBefore(*nodes_[tg.node].node, used);
      s.layout_after[np.name] = LayoutAfter(np);
      for (const auto& d : np.disrupted_pods) s.disrupted.push_back(d);
      if (!np.isolation.empty()) isolation.insert(np.isolation);
    }
    s.isolation = Join(std::vector<std::string>(isolation.begin(), isolation.end()), " ");
    // Evictions and where each pod runs meanwhile.
    std::map<int, int64_t> need_count;
    std::map<int, std::set<std::string>> need_where;
    std::vector<std::pair<int, int>> waiting;  // (instance, node) that comes back to the node it left
    int64_t max_grace = 0;
    std::set<std::string> disrupted_pods;
    std::vector<std::string> unbudgeted;  // pods waiting Pending that no PDB covers
    for (const auto& d : s.disrupted) disrupted_pods.insert(d.pod);
    for (const auto& p : placed) {
      Inst& inst = insts_[p.inst];
      const model::Pod& pod = cluster_.pods[inst.pod];
      const int from = inst.node;
      StepEviction e;
      e.pod = pod.namespace_ + "/" + pod.name;
      e.owner = pod.workload.kind + "/" + pod.workload.name;
      e.resource = model::kGpuResource;
      e.count = inst.gpus;
      e.grace_period_seconds = pod.termination_grace_period_seconds;
      e.comes_back = ComesBack(inst);
      max_grace = std::max(max_grace, e.grace_period_seconds);
      nodes_[from].insts.erase(p.inst);
      if (p.node >= 0) {
        e.runs_meanwhile = nodes_[p.node].node->name;
        for (const auto& [origin, k] : Consume(p.node, inst.gpus)) {
          need_count[origin] += k;
          need_where[origin].insert(e.runs_meanwhile);
        }
        SetFree(p.node, nodes_[p.node].free - inst.gpus);
        if (!nodes_[p.node].spare_model.empty()) held_ -= inst.gpus;
        inst.node = p.node;
        nodes_[p.node].insts.insert(p.inst);
      } else {
        inst.node = -1;
        held_ -= inst.gpus;
        if (p.pdb != -1) {
          // Waits for its owner's rollout at the end of this step, which replaces it.
        } else if (e.comes_back) {
          waiting.push_back({p.inst, from});
        } else {
          inst.alive = false;
        }
        if (!disrupted_pods.count(e.pod)) {
          s.disrupted.push_back({e.pod, e.owner,
                                 !e.comes_back ? "a bare pod: evicted, it is deleted and not recreated"
                                 : p.pdb == kNoBudget
                                     ? "waits Pending while the step runs (no free GPU it may use elsewhere, no "
                                       "PodDisruptionBudget) and comes back when the step ends"
                                 : p.pdb >= 0
                                     ? "waits Pending while the step runs (no free GPU it may use elsewhere; "
                                       "PodDisruptionBudget " + cluster_.pdbs[p.pdb].namespace_ + "/" +
                                           cluster_.pdbs[p.pdb].name + " allows " +
                                           std::to_string(cluster_.pdbs[p.pdb].disruptions_allowed) +
                                           " disruption(s)) and comes back when the step ends"
                                     : "waits Pending while the step runs (it may only run on " +
                                           nodes_[from].node->name + ") and comes back when the step ends"});
          disrupted_pods.insert(e.pod);
        }
      }
      if (p.pdb == kNoBudget) unbudgeted.push_back(e.pod);
      s.evictions.push_back(std::move(e));
    }
    // Pods that run elsewhere are evicted first (see TryStep).
    std::stable_partition(s.evictions.begin(), s.evictions.end(),
                          [](const StepEviction& e) { return !e.runs_meanwhile.empty(); });
    if (!unbudgeted.empty()) {
      s.flags.push_back(std::to_string(unbudgeted.size()) +
                        " pod(s) without a PodDisruptionBudget wait Pending while the step runs (no free GPU "
                        "they may use elsewhere): " + Join(unbudgeted, ", "));
    }
    for (const auto& [origin, count] : need_count) {
      CapacityNeed n;
      n.resource = model::kGpuResource;
      n.count = count;
      n.nodes.assign(need_where[origin].begin(), need_where[origin].end());
      n.why = origin == 0 ? "free before the migration" : "freed by step " + std::to_string(origin);
      s.needs.push_back(std::move(n));
    }
    // Reconfigure: the target's remaining whole GPUs become free (less the
    // pods that wait to come back to it).
    int max_mig_gpus = 0;
    for (int t : step) {
      Target& tg = targets_[t];
      tg.done = true;
      max_mig_gpus = std::max(max_mig_gpus, tg.mig_gpus);
      NodeState& ns = nodes_[tg.node];
      ns.sliced = tg.sliced_after;
      int64_t whole = tg.whole_after;
      ns.origins.clear();
      SetTier(tg.node, kDone);
      held_ += tg.sliced_after;
      for (const auto& [ii, home] : waiting) {
        if (home != tg.node) continue;
        insts_[ii].node = tg.node;
        ns.insts.insert(ii);
        held_ += insts_[ii].gpus;
        whole -= insts_[ii].gpus;
      }
      whole = std::max<int64_t>(0, whole);
      if (whole > 0) ns.origins.push_back({index, whole});
      SetFree(tg.node, whole);
    }
    // Owners whose every target is now reconfigured move; their old pods die.
    int64_t max_batches = 0;
    std::set<int> emptied_from;
    std::set<int> candidates;  // owners with slots on the step's nodes, in order
    for (int t : step) candidates.insert(targets_[t].owners.begin(), targets_[t].owners.end());
    for (int oi : candidates) {
      Owner& o = owners_[oi];
      if (o.moved || o.targets.empty()) continue;
      if (!std::all_of(o.targets.begin(), o.targets.end(), [&](int t) { return targets_[t].done; })) continue;
      o.moved = true;
      int64_t slots = 0;
      StepOwnerMove m = lean_ ? StepOwnerMove{} : Move(o, &max_batches, &slots);
      for (int ii : o.insts) {
        Inst& inst = insts_[ii];
        if (!inst.alive) continue;
        inst.alive = false;
        if (inst.node >= 0) {
          NodeState& ns = nodes_[inst.node];
          ns.insts.erase(ii);
          ns.origins.push_back({index, inst.gpus});
          SetFree(inst.node, ns.free + inst.gpus);
          if (ns.spare_model.empty()) held_ -= inst.gpus;
          emptied_from.insert(inst.node);
          inst.node = -1;
        }
      }
      if (lean_) continue;
      for (const auto& flag : OwnerFlags(m, slots)) s.flags.push_back(flag);
      s.owners.push_back(std::move(m));
    }
    for (int n : emptied_from) {
      const NodeState& ns = nodes_[n];
      if (ns.insts.empty() && ns.sliced == 0 && ns.spare_model.empty()) s.nodes_freed.push_back(ns.node->name);
    }
    std::sort(s.nodes_freed.begin(), s.nodes_freed.end());
    s.gpus_freed = static_cast<int>(held_before - held_);
    for (int n : emptied_from) last_change_step_[nodes_[n].node->name] = index;
    for (int t : step) last_change_step_[targets_[t].plan->name] = index;
    s.estimated_seconds = max_grace + kConfigMapSyncSeconds + kOperatorRestartSeconds +
                          kMigApplySecondsPerGpu * max_mig_gpus + kRolloutSecondsPerBatch * max_batches;
    if (!lean_) {
      s.content_hash = Sha256Hex(CanonicalText(s));
      s.id = s.content_hash.substr(0, 8);
    }
    out_.steps.push_back(std::move(s));
  }

  // The move of owner `o`; *slots: the slots planned for it on its targets.
  StepOwnerMove Move(const Owner& o, int64_t* max_batches, int64_t* slots) const {
    const WorkloadDecision& d = *o.decision;
    StepOwnerMove m;
    m.owner = d.ref;
    auto ci = controller_of_.find(d.ref);
    const model::Controller* c = ci == controller_of_.end() ? nullptr : ci->second;
    m.replicas = c ? c->replicas : static_cast<int>(d.pods.size());
    m.from_resource = model::kGpuResource;
    m.from_per_pod = std::max<int64_t>(1, d.gpus_per_pod);
    m.to_resource = d.decision == Decision::kMig ? std::string(model::kMigResourcePrefix) + d.slice
                                                 : std::string(model::kSharedGpuResource);
    m.to_per_pod = 1;
    m.strategy = c ? c->strategy : "";
    if (m.strategy.empty()) m.strategy = "RollingUpdate";
    int batch = 1;
    if (d.ref.kind == "StatefulSet") {
      m.max_surge = 0;
      m.max_unavailable = m.strategy == "OnDelete" ? 1 : std::max(1, ResolveIntOrPercent(c ? c->max_unavailable : "", m.replicas, false, "1"));
      batch = m.max_unavailable;
    } else if (m.strategy == "Recreate") {
      m.max_surge = 0;
      m.max_unavailable = m.replicas;
      batch = std::max(1, m.replicas);
    } else {
      m.max_surge = ResolveIntOrPercent(c ? c->max_surge : "", m.replicas, true, "25%");
      m.max_unavailable = ResolveIntOrPercent(c ? c->max_unavailable : "", m.replicas, false, "25%");
      if (m.max_surge == 0 && m.max_unavailable == 0) m.max_unavailable = 1;  // the API server forbids 0/0
      // In 64 bits: each may be up to 2^31-1 (the snapshot's cap), their sum is no int.
      batch = static_cast<int>(std::clamp<int64_t>(int64_t{m.max_surge} + m.max_unavailable, 1,
                                                   std::numeric_limits<int>::max()));
    }
    *max_batches = std::max<int64_t>(*max_batches, (int64_t{m.replicas} + batch - 1) / batch);  // 64 bits: no overflow
    // The PDB selecting its pods.
    const model::Pod* pod = o.first_pod;
    if (const model::PodDisruptionBudget* pdb = pod ? PdbOf(*pod) : nullptr) {
      m.pdb = pdb->namespace_ + "/" + pdb->name;
      m.pdb_disruptions_allowed = pdb->disruptions_allowed;
    }
    // OnDelete: the executor evicts pod by pod through the Eviction API.
    m.pdb_ok = m.pdb.empty() || m.strategy == "OnDelete" || m.max_unavailable <= m.pdb_disruptions_allowed;
    if (c) m.gitops = GitOpsManager(*c);
    if (auto pj = patch_of_.find(d.ref); pj != patch_of_.end()) m.patch_json = *pj->second;
    *slots = 0;
    for (int t : o.targets) {
      m.target_nodes.push_back(targets_[t].plan->name);
      *slots += o.slots.at(t);
    }
    return m;
  }

  // The first PDB (in snapshot order) selecting the pod, or null.
  const model::PodDisruptionBudget* PdbOf(const model::Pod& pod) const {
    int best = -1;
    auto consider = [&](const std::vector<int>& candidates) {
      for (int i : candidates) {
        if ((best < 0 || i < best) && cluster_.pdbs[i].selector.Matches(pod.labels)) best = i;
      }
    };
    if (auto it = pdbs_without_labels_.find(pod.namespace_); it != pdbs_without_labels_.end()) consider(it->second);
    for (const auto& [k, v] : pod.labels) {
      if (auto it = pdbs_by_label_.find({pod.namespace_, std::string(k), std::string(v)}); it != pdbs_by_label_.end()) consider(it->second);
    }
    return best < 0 ? nullptr : &cluster_.pdbs[best];
  }

  std::vector<std::string> OwnerFlags(const StepOwnerMove& m, int64_t slots) const {
    std::vector<std::string> flags;
    const std::string who = m.owner.kind + " " + m.owner.Display();
    if (!m.pdb_ok) {
      flags.push_back(who + ": its " + m.strategy + " rollout may take " + std::to_string(m.max_unavailable) +
                      " pods down at once; PodDisruptionBudget " + m.pdb + " allows " +
                      std::to_string(m.pdb_disruptions_allowed) + " (rollouts do not consult PDBs)");
    }
    if (!m.gitops.empty() && !policy_.patch_gitops_owners) {
      flags.push_back(who + ": managed by " + m.gitops + "; change its repository (patch_json), or allow direct patches "
                      "with policy spec.disruption.patchGitOpsOwners");
    }
    if (slots < m.replicas) {
      flags.push_back(who + ": " + std::to_string(slots) + " slots planned for " + std::to_string(m.replicas) +
                      " replicas");
    }
    return flags;
  }

  std::string CanonicalText(const ScheduleStep& s) const {
    std::string t = "pool " + s.gpu_model + "\nmethod " + s.method + "\n";
    for (const auto& n : s.nodes) {
      t += "node " + n + "\n";
      for (const auto& [k, v] : s.labels_after.at(n)) t += " label " + std::string(k) + "=" + std::string(v) + "\n";
      t += " layout " + s.layout_after.at(n) + "\n";
    }
    std::vector<std::string> owners;
    for (const auto& o : s.owners) {
      owners.push_back("owner " + o.owner.namespace_ + "/" + o.owner.kind + "/" + o.owner.name + " replicas " +
                       std::to_string(o.replicas) + " from " + std::to_string(o.from_per_pod) + "x" + o.from_resource +
                       " to " + std::to_string(o.to_per_pod) + "x" + o.to_resource + " on " + Join(o.target_nodes, ",") +
                       "\n");
    }
    std::sort(owners.begin(), owners.end());
    for (const auto& o : owners) t += o;
    return t;
  }

  // Each node's monthly saving goes to the last step that lowered its GPUs.
  void AssignSavings() {
    for (const auto& np : plan_.nodes) {
      auto it = last_change_step_.find(np.name);
      if (it == last_change_step_.end() || np.monthly_savings_usd == 0) continue;
      out_.steps[it->second - 1].monthly_savings_usd += np.monthly_savings_usd;
    }
  }

  const model::Cluster& cluster_;
  const Plan& plan_;
  const policy::GpuPolicy& policy_;
  const std::set<std::string>& blocked_;
  std::set<std::string> stuck_pools_;
  Schedule out_;
  std::deque<model::Node> spare_nodes_;  // stable addresses
  std::vector<NodeState> nodes_;
  std::vector<Inst> insts_;
  std::vector<Target> targets_;
  std::vector<Owner> owners_;
  std::unordered_map<std::string, int> owner_by_display_;  // "ns/name" -> owner; the first of equal displays
  std::map<std::string, int> spare_of_model_;
  std::vector<std::set<std::pair<int, int>>> class_slots_;  // per placement class: (tier, node) with free GPUs
  std::unordered_map<model::WorkloadRef, const model::Controller*, model::WorkloadRefHash> controller_of_;
  std::unordered_map<model::WorkloadRef, const std::string*, model::WorkloadRefHash> patch_of_;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<int>> pdbs_by_label_;
  std::map<std::string, std::vector<int>> pdbs_without_labels_;
  std::map<std::string, int64_t> pending_taken_;
  std::unordered_map<std::string, int> last_change_step_;
  bool lean_ = false;  // infeasible: steps only simulate, their details are dropped
  int64_t held_ = 0;  // whole GPUs held by running pods (spares aside) plus GPUs used by slices
};

}  // namespace

Schedule BuildSchedule(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy) {
  // Pools are independent: a pool whose order gets stuck is blocked, and the
  // order is built again without it (its nodes stay as they are), until the
  // pools left fit.  Each round blocks at least one more pool.
  std::set<std::string> blocked;
  std::map<std::string, int> spares;  // over the rounds: the most each model needed
  std::map<std::string, std::string> why;
  while (true) {
    Builder b(cluster, plan, policy, blocked);
    Schedule s = b.Run();
    if (s.feasible) {
      s.blocked_pools = std::move(why);
      s.spare_gpus_needed = std::move(spares);
      s.feasible = s.blocked_pools.empty();
      return s;
    }
    for (const auto& [model, n] : s.spare_gpus_needed) spares[model] = std::max(spares[model], n);
    for (const std::string& pool : b.stuck_pools()) {
      blocked.insert(pool);
      auto need = s.spare_gpus_needed.find(pool);
      why[pool] = need != s.spare_gpus_needed.end()
                      ? "its evicted pods need " + std::to_string(need->second) + " spare whole " + pool +
                            " GPU(s) to run on meanwhile"
                      : s.spare_gpus_needed.empty()
                            ? "a pod on its nodes may run on no other node while they are reconfigured"
                            : "its evicted pods need spare whole GPUs of other pools to run on meanwhile";
    }
    if (b.stuck_pools().empty()) {  // cannot happen (an infeasible order leaves some pool stuck); never loop
      s.blocked_pools = std::move(why);
      return s;
    }
  }
}

std::string ScheduleWarning(const Schedule& schedule) {
  if (schedule.feasible) return "";
  std::vector<std::string> pools;
  for (const auto& [pool, why] : schedule.blocked_pools) pools.push_back("pool " + pool + ": " + why);
  const std::string others = schedule.steps.empty() ? "; nothing will be started"
                                                    : "; the other pools' " + std::to_string(schedule.steps.size()) +
                                                          " step(s) go ahead";
  return "no migration order fits " + std::string(pools.size() == 1 ? "one GPU pool" : "some GPU pools") +
         ", whose nodes stay as they are (" + Join(pools, "; ") + ")" + others;
}

namespace {

// The node the pod's required node affinity names alone ("" none), without
// copying the rest of its placement.
std::string PinnedNodeOf(const model::Pod& pod) {
  if (pod.required_node_terms.empty()) return "";
  model::Placement p;
  p.required_node_terms = pod.required_node_terms;
  return p.PinnedNode();
}

}  // namespace

std::string WhyPinned(const model::Pod& pod) {
  const std::string node = PinnedNodeOf(pod);
  if (!node.empty()) return "pinned to node " + node + " by required node affinity";
  if (!pod.local_volumes.empty()) {
    return "local storage (volume " + pod.local_volumes.front() + ") ties it to node " + pod.node_name;
  }
  return "";
}

std::string GitOpsManager(const model::Controller& c) {
  auto has = [](const model::Labels& m, const char* k) { return m.count(k) > 0; };
  auto manager = [&](const char* name) {
    return std::find(c.managers.begin(), c.managers.end(), name) != c.managers.end();
  };
  if ((has(c.labels, "app.kubernetes.io/instance") && has(c.annotations, "argocd.argoproj.io/tracking-id")) ||
      has(c.labels, "argocd.argoproj.io/instance") || has(c.annotations, "argocd.argoproj.io/tracking-id") ||
      manager("argocd-controller")) {
    return "Argo CD";
  }
  if (has(c.labels, "kustomize.toolkit.fluxcd.io/name") || has(c.labels, "helm.toolkit.fluxcd.io/name") ||
      manager("kustomize-controller") || manager("helm-controller")) {
    return "Flux";
  }
  auto managed_by = c.labels.find("app.kubernetes.io/managed-by");
  if ((managed_by != c.labels.end() && managed_by->second == "Helm") ||
      has(c.annotations, "meta.helm.sh/release-name") || manager("helm")) {
    return "Helm";
  }
  return "";
}

}  // namespace kubeon::plan
