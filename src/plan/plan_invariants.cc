// See plan_invariants.h.  Written from the plan's own fields and the cluster,
// not from the planner's intermediate state, so that a bug in the planner's
// bookkeeping shows here instead of in the executor.
#include "plan/plan_invariants.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "mig/layout.h"

namespace kubeon::plan {
namespace {

using NsName = std::pair<std::string_view, std::string_view>;
struct NsNameHash {
  size_t operator()(const NsName& k) const noexcept {
    const size_t a = std::hash<std::string_view>{}(k.first);
    return a ^ (std::hash<std::string_view>{}(k.second) + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
  }
};

// A workload patch's (namespace + "/" + kind, name), compared without
// building the first string.
struct PatchKey {
  std::string_view namespace_, kind, name;
};
struct PatchKeyHash {
  size_t operator()(const PatchKey& k) const noexcept {
    // FNV-1a over namespace, '/', kind, then the name: equal concatenations hash equal.
    uint64_t h = 1469598103934665603ULL;
    const auto add = [&h](std::string_view s) {
      for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    };
    add(k.namespace_);
    add("/");
    add(k.kind);
    h ^= std::hash<std::string_view>{}(k.name) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};
struct PatchKeyEqual {
  bool operator()(const PatchKey& a, const PatchKey& b) const noexcept {
    if (a.name != b.name || a.namespace_.size() + a.kind.size() != b.namespace_.size() + b.kind.size()) return false;
    // namespace + "/" + kind of each, compared character by character.
    const auto at = [](const PatchKey& k, size_t i) {
      return i < k.namespace_.size() ? k.namespace_[i] : i == k.namespace_.size() ? '/' : k.kind[i - k.namespace_.size() - 1];
    };
    const size_t n = a.namespace_.size() + 1 + a.kind.size();
    if (a.namespace_.size() == b.namespace_.size()) return a.namespace_ == b.namespace_ && a.kind == b.kind;
    for (size_t i = 0; i < n; ++i) {
      if (at(a, i) != at(b, i)) return false;
    }
    return true;
  }
};

class Checker {
 public:
  Checker(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy,
          const mig::MigCatalog& catalog)
      : cluster_(cluster), plan_(plan), policy_(policy), catalog_(catalog) {}

  std::vector<InvariantViolation> Run() {
    for (const auto& n : cluster_.nodes) node_of_[n.name] = &n;
    pod_of_.reserve(cluster_.pods.size());
    for (size_t i = 0; i < cluster_.pods.size(); ++i) {
      pod_of_[{cluster_.pods[i].namespace_, cluster_.pods[i].name}] = static_cast<int>(i);
    }
    Nodes();
    Workloads();
    Schedule();
    return std::move(out_);
  }

 private:
  void Fail(const char* id, std::string message) {
    // A broken plan can break one promise many times: the first few name it.
    if (++count_[id] <= 5) out_.push_back({id, std::move(message)});
  }

  static bool AlreadyShared(const model::Node& n) {
    const std::string_view mig_config = n.labels.Get("nvidia.com/mig.config");
    if (!mig_config.empty() && mig_config != "all-disabled") return true;
    if (!n.labels.Get("nvidia.com/device-plugin.config").empty()) return true;
    for (const auto& [res, qty] : n.capacity) {
      if (qty > 0 && (res.rfind(model::kMigResourcePrefix, 0) == 0 || res == model::kSharedGpuResource)) return true;
    }
    return false;
  }

  void Nodes() {
    int before = 0, after = 0, freed = 0;
    double savings = 0, realizable = 0;
    for (const NodePlan& np : plan_.nodes) {
      before += np.gpus_before;
      after += np.gpus_after;
      freed += np.freed ? 1 : 0;
      savings += np.monthly_savings_usd;
      if (np.freed) realizable += np.monthly_savings_usd;
      const std::string node = "node " + np.name;
      if (np.gpus_after > std::max(np.gpu_count, np.gpus_before)) {
        Fail("PLAN-GPUS", node + " holds " + std::to_string(np.gpus_after) + " GPUs after the plan, it has " +
                              std::to_string(np.gpu_count));
      }
      const bool changed = np.method == "mig" || np.method == "time-slicing";
      if (np.method != "mig" && !np.disrupted_pods.empty()) {
        Fail("PLAN-DISRUPTED", node + " lists disrupted pods but its MIG mode does not change");
      }
      if (changed) {
        auto it = node_of_.find(np.name);
        const model::Node* n = it == node_of_.end() ? nullptr : it->second;
        if (n == nullptr || !policy_.SelectsNode(n->labels)) {
          Fail("PLAN-TARGETS", node + " gets a new layout but is not in the policy's scope");
        } else if (n->unschedulable || !n->ready || AlreadyShared(*n)) {
          Fail("PLAN-TARGETS", node + " gets a new layout but is " +
                                   (n->unschedulable ? "cordoned" : !n->ready ? "not Ready" : "already shared"));
        }
        targets_[np.name] = np.gpu_model;
      }
      const mig::GpuModel* model = catalog_.FindModel(np.gpu_model);
      for (const GpuAfter& g : np.gpus) {
        if (!g.mig_enabled) {
          if (!g.whole) {
            for (const auto& w : g.workloads) ++ts_slots_[w];
          }
          continue;
        }
        if (model == nullptr || !model->mig_capable) {
          Fail("PLAN-LAYOUT", node + " GPU " + std::to_string(g.index) + " gets MIG on a model without MIG (" +
                                  np.gpu_model + ")");
          continue;
        }
        if (!mig::LayoutFits(*model, g.mig_devices)) {
          std::string layout;
          for (const auto& d : g.mig_devices) layout += (layout.empty() ? "" : ",") + d;
          Fail("PLAN-LAYOUT", node + " GPU " + std::to_string(g.index) + ": " + layout + " is not a valid " +
                                  model->id + " layout");
        }
        if (g.mig_devices.size() != g.workloads.size()) {
          Fail("PLAN-LAYOUT", node + " GPU " + std::to_string(g.index) + " has " +
                                  std::to_string(g.mig_devices.size()) + " slices for " +
                                  std::to_string(g.workloads.size()) + " workloads");
        }
        for (const auto& w : g.workloads) ++mig_slots_[w];
      }
      if (np.method == "time-slicing") {
        const int replicas = np.time_slicing_replicas.value_or(0);
        int sharers = 0;
        for (const GpuAfter& g : np.gpus) {
          if (g.whole) continue;
          sharers += static_cast<int>(g.workloads.size());
          for (const auto& w : g.workloads) ts_replicas_[w] = std::max(ts_replicas_[w], replicas);
        }
        if (replicas < 1 || replicas > policy_.max_replicas) {
          Fail("PLAN-TIME-SLICING", node + ": " + std::to_string(replicas) + " time-slicing replicas, allowed 1.." +
                                        std::to_string(policy_.max_replicas));
        }
        if (sharers > np.gpu_count * replicas) {
          Fail("PLAN-TIME-SLICING", node + ": " + std::to_string(sharers) + " pods share " +
                                        std::to_string(np.gpu_count) + " GPUs of " + std::to_string(replicas) +
                                        " replicas");
        }
      }
      for (const DisruptedPod& d : np.disrupted_pods) Disrupted(np, d);
    }
    const Summary& s = plan_.summary;
    auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b)); };
    if (!near(s.savings_realizable_usd, realizable) || !near(s.capacity_freed_usd, savings - realizable)) {
      Fail("PLAN-TOTALS", "the realizable savings ($" + std::to_string(s.savings_realizable_usd) +
                              ") are not the freed nodes' sum ($" + std::to_string(realizable) +
                              "), or the capacity freed not the rest");
    }
    if (s.gpus_before != before || s.gpus_after != after || s.gpus_freed != before - after || s.nodes_freed != freed ||
        !near(s.monthly_savings_usd, savings)) {
      Fail("PLAN-TOTALS", "the summary (" + std::to_string(s.gpus_before) + " -> " + std::to_string(s.gpus_after) +
                              " GPUs, " + std::to_string(s.nodes_freed) + " nodes freed) is not the nodes' sum (" +
                              std::to_string(before) + " -> " + std::to_string(after) + ", " +
                              std::to_string(freed) + ")");
    }
    if (after > before) {
      Fail("PLAN-GPUS", "the plan holds " + std::to_string(after) + " GPUs after, " + std::to_string(before) +
                            " before");
    }
  }

  void Disrupted(const NodePlan& np, const DisruptedPod& d) {
    if (policy_.staying_pods == policy::StayingPods::kNone) {
      Fail("PLAN-DISRUPTED", "node " + np.name + " disrupts pod " + d.pod + " under stayingPods None");
      return;
    }
    if (policy_.staying_pods != policy::StayingPods::kRestartable) return;
    // The last pod whose "namespace/name" is d.pod (a '/' can only split it
    // where one of them ends).
    const std::string_view key(d.pod);
    int found = -1;
    for (size_t slash = key.find('/'); slash != std::string_view::npos; slash = key.find('/', slash + 1)) {
      auto it = pod_of_.find({key.substr(0, slash), key.substr(slash + 1)});
      if (it != pod_of_.end()) found = std::max(found, it->second);
    }
    if (found < 0) {
      Fail("PLAN-DISRUPTED", "node " + np.name + " disrupts pod " + d.pod + ", which is not in the cluster");
      return;
    }
    const model::Pod& p = cluster_.pods[static_cast<size_t>(found)];
    const std::string& kind = p.workload.kind;
    const bool recreated = kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet" || kind == "DaemonSet";
    if (!recreated || p.safe_to_evict == false || !p.local_volumes.empty()) {
      Fail("PLAN-DISRUPTED", "node " + np.name + " disrupts pod " + d.pod + " (" + kind + " " + p.workload.name +
                                 "), which stayingPods Restartable does not allow");
    }
  }

  void Workloads() {
    std::unordered_set<PatchKey, PatchKeyHash, PatchKeyEqual> patched;  // (namespace/kind, name)
    patched.reserve(plan_.artifacts.workload_patches.size());
    for (const auto& p : plan_.artifacts.workload_patches) patched.insert({p.namespace_, p.kind, p.name});
    Counts mig_pods, ts_pods;  // "ns/name" -> pods of moved workloads
    // "Deployment ns/name", written only for a message.
    const auto name = [](const WorkloadDecision& w) { return w.ref.kind + " " + w.ref.Display(); };
    for (const WorkloadDecision& w : plan_.workloads) {
      const bool moved = w.decision != Decision::kUnchanged;
      const bool has_patch = patched.count({w.ref.namespace_, w.ref.kind, w.ref.name}) > 0;
      if (moved != has_patch) {
        Fail("PLAN-DECISIONS", "workload " + name(w) + (moved ? " is moved without a patch" : " is unchanged but patched"));
      }
      if (w.reason.empty()) Fail("PLAN-DECISIONS", "workload " + name(w) + " has no reason");
      if (moved && w.slice.empty()) Fail("PLAN-DECISIONS", "workload " + name(w) + " is moved without a slice");
      if (w.decision == Decision::kMig) {
        mig_pods[w.ref.Display()] += static_cast<int>(w.pods.size());
        SliceFits(w, name);
      } else if (w.decision == Decision::kTimeSlicing) {
        const std::string display = w.ref.Display();
        ts_pods[display] += static_cast<int>(w.pods.size());
        if (!policy_.TimeSlicingNamespace(w.ref.namespace_)) {
          Fail("PLAN-TIME-SLICING", "workload " + name(w) + " is time-sliced outside spec.timeSlicing.namespaces");
        }
        if (ts_replicas_[display] < 2) {
          Fail("PLAN-TIME-SLICING", "workload " + name(w) + " is time-sliced but shares a GPU with no other pod");
        }
      }
    }
    Placed(mig_pods, mig_slots_, "MIG slices");
    Placed(ts_pods, ts_slots_, "time-sliced shares");
  }

  using Counts = std::unordered_map<std::string, int>;

  // Failures are reported in name order (the first few of an id are kept).
  void Placed(const Counts& pods, const Counts& slots, const char* what) {
    std::vector<const std::pair<const std::string, int>*> wrong, stray;
    for (const auto& entry : pods) {
      auto it = slots.find(entry.first);
      if ((it == slots.end() ? 0 : it->second) != entry.second) wrong.push_back(&entry);
    }
    for (const auto& entry : slots) {
      if (!pods.count(entry.first)) stray.push_back(&entry);
    }
    const auto by_name = [](const auto* a, const auto* b) { return a->first < b->first; };
    std::sort(wrong.begin(), wrong.end(), by_name);
    std::sort(stray.begin(), stray.end(), by_name);
    for (const auto* entry : wrong) {
      const std::string& w = entry->first;
      auto it = slots.find(w);
      const int got = it == slots.end() ? 0 : it->second;
      Fail("PLAN-PLACED", "workload " + w + " moves " + std::to_string(entry->second) + " pods but has " +
                              std::to_string(got) + " " + what);
    }
    for (const auto* entry : stray) {
      Fail("PLAN-PLACED", std::string(what) + " name workload " + entry->first + ", which is not moved there");
    }
  }

  template <typename Name>
  void SliceFits(const WorkloadDecision& w, const Name& name_of) {
    const mig::GpuModel* model = catalog_.FindModel(w.gpu_model);
    const mig::MigProfile* prof = model ? mig::FindProfile(*model, w.slice) : nullptr;
    if (prof == nullptr) {
      Fail("PLAN-SLICE-FITS", "workload " + name_of(w) + ": slice " + w.slice + " is not a profile of " + w.gpu_model);
      return;
    }
    if (!policy_.AllowsProfile(prof->name)) {
      Fail("PLAN-SLICE-FITS", "workload " + name_of(w) + ": slice " + w.slice + " is not allowed by the policy");
    }
    const double need_mem = static_cast<double>(w.peak_memory_mib.value_or(0)) * (1.0 + policy_.headroom);
    const double need_compute = w.peak_compute.value_or(0) * (1.0 + policy_.headroom);
    const double share = static_cast<double>(prof->compute_slices) / std::max(1, model->compute_slices);
    if (!w.peak_memory_mib || !w.peak_compute || static_cast<double>(prof->memory_mib) + 1.0 < need_mem ||
        share + 1e-9 < need_compute) {
      Fail("PLAN-SLICE-FITS", "workload " + name_of(w) + ": slice " + w.slice + " (" + std::to_string(prof->memory_mib) +
                                  " MiB) does not cover its peak with headroom (" +
                                  std::to_string(static_cast<int64_t>(need_mem)) + " MiB)");
    }
  }

  void Schedule() {
    const plan::Schedule& s = plan_.schedule;
    if (s.feasible != s.blocked_pools.empty()) {
      Fail("SCHED-FEASIBLE", s.feasible ? "a feasible schedule blocks pools" : "an infeasible schedule blocks no pool");
    }
    for (const auto& [pool, why] : s.blocked_pools) {
      if (why.empty()) Fail("SCHED-FEASIBLE", "blocked pool " + pool + " has no reason");
    }
    std::map<std::string, int> seen;
    std::set<std::string> hashes;
    for (const ScheduleStep& st : s.steps) {
      const std::string step = "step " + std::to_string(st.index) + " (" + st.id + ")";
      if (st.content_hash.size() < 8 || st.id != st.content_hash.substr(0, 8)) {
        Fail("SCHED-IDS", step + ": the id is not the first 8 hex digits of its content hash");
      }
      if (!hashes.insert(st.content_hash).second) Fail("SCHED-IDS", step + " repeats an earlier step's content hash");
      if (static_cast<int>(st.nodes.size()) > policy_.max_nodes_per_pool) {
        Fail("SCHED-ONCE", step + " takes " + std::to_string(st.nodes.size()) + " nodes, maxNodesPerPool is " +
                               std::to_string(policy_.max_nodes_per_pool));
      }
      if (s.blocked_pools.count(st.gpu_model)) Fail("SCHED-FEASIBLE", step + " is of blocked pool " + st.gpu_model);
      for (const auto& n : st.nodes) {
        ++seen[n];
        auto t = targets_.find(n);
        if (t == targets_.end()) {
          Fail("SCHED-ONCE", step + " reconfigures node " + n + ", which the plan gives no new layout");
        } else if (t->second != st.gpu_model) {
          Fail("SCHED-ONCE", step + " (pool " + st.gpu_model + ") takes node " + n + " of pool " + t->second);
        }
      }
    }
    for (const auto& [n, model] : targets_) {
      const int times = seen.count(n) ? seen.at(n) : 0;
      const int want = s.blocked_pools.count(model) ? 0 : 1;
      if (times != want) {
        Fail("SCHED-ONCE", "node " + n + " is in " + std::to_string(times) + " steps" +
                               (want == 0 ? " (its pool " + model + " is blocked)" : ""));
      }
    }
  }

  const model::Cluster& cluster_;
  const Plan& plan_;
  const policy::GpuPolicy& policy_;
  const mig::MigCatalog& catalog_;
  std::unordered_map<std::string, const model::Node*> node_of_;
  std::unordered_map<NsName, int, NsNameHash> pod_of_;  // (namespace, name) -> last index in cluster.pods
  std::map<std::string, std::string> targets_;  // node -> pool, nodes that get a new layout
  std::unordered_map<std::string, int> mig_slots_, ts_slots_;
  std::unordered_map<std::string, int> ts_replicas_;  // "ns/name" -> most replicas of a node it shares
  std::map<std::string, int> count_;
  std::vector<InvariantViolation> out_;
};

}  // namespace

std::vector<InvariantViolation> CheckPlanInvariants(const model::Cluster& cluster, const Plan& plan,
                                                    const policy::GpuPolicy& policy, const mig::MigCatalog& catalog) {
  return Checker(cluster, plan, policy, catalog).Run();
}

}  // namespace kubeon::plan
