// See plan_invariants.h.  Written from the plan's own fields and the cluster,
// not from the planner's intermediate state, so that a bug in the planner's
// bookkeeping shows here instead of in the executor.
#include "plan/plan_invariants.h"

#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "mig/layout.h"

namespace kubeon::plan {
namespace {

class Checker {
 public:
  Checker(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy,
          const mig::MigCatalog& catalog)
      : cluster_(cluster), plan_(plan), policy_(policy), catalog_(catalog) {}

  std::vector<InvariantViolation> Run() {
    for (const auto& n : cluster_.nodes) node_of_[n.name] = &n;
    for (const auto& p : cluster_.pods) pod_of_[p.namespace_ + "/" + p.name] = &p;
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
    double savings = 0;
    for (const NodePlan& np : plan_.nodes) {
      before += np.gpus_before;
      after += np.gpus_after;
      freed += np.freed ? 1 : 0;
      savings += np.monthly_savings_usd;
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
    if (s.gpus_before != before || s.gpus_after != after || s.gpus_freed != before - after || s.nodes_freed != freed ||
        std::fabs(s.monthly_savings_usd - savings) > 1e-6 * std::max(1.0, savings)) {
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
    auto it = pod_of_.find(d.pod);
    if (it == pod_of_.end()) {
      Fail("PLAN-DISRUPTED", "node " + np.name + " disrupts pod " + d.pod + ", which is not in the cluster");
      return;
    }
    const model::Pod& p = *it->second;
    const std::string& kind = p.workload.kind;
    const bool recreated = kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet" || kind == "DaemonSet";
    if (!recreated || p.safe_to_evict == false || !p.local_volumes.empty()) {
      Fail("PLAN-DISRUPTED", "node " + np.name + " disrupts pod " + d.pod + " (" + kind + " " + p.workload.name +
                                 "), which stayingPods Restartable does not allow");
    }
  }

  void Workloads() {
    std::set<std::pair<std::string, std::string>> patched;  // (namespace/kind, name)
    for (const auto& p : plan_.artifacts.workload_patches) patched.insert({p.namespace_ + "/" + p.kind, p.name});
    std::map<std::string, int> mig_pods, ts_pods;  // "ns/name" -> pods of moved workloads
    for (const WorkloadDecision& w : plan_.workloads) {
      const std::string name = w.ref.kind + " " + w.ref.Display();
      const bool moved = w.decision != Decision::kUnchanged;
      const bool has_patch = patched.count({w.ref.namespace_ + "/" + w.ref.kind, w.ref.name}) > 0;
      if (moved != has_patch) {
        Fail("PLAN-DECISIONS", "workload " + name + (moved ? " is moved without a patch" : " is unchanged but patched"));
      }
      if (w.reason.empty()) Fail("PLAN-DECISIONS", "workload " + name + " has no reason");
      if (moved && w.slice.empty()) Fail("PLAN-DECISIONS", "workload " + name + " is moved without a slice");
      if (w.decision == Decision::kMig) {
        mig_pods[w.ref.Display()] += static_cast<int>(w.pods.size());
        SliceFits(w, name);
      } else if (w.decision == Decision::kTimeSlicing) {
        ts_pods[w.ref.Display()] += static_cast<int>(w.pods.size());
        if (!policy_.TimeSlicingNamespace(w.ref.namespace_)) {
          Fail("PLAN-TIME-SLICING", "workload " + name + " is time-sliced outside spec.timeSlicing.namespaces");
        }
        if (ts_replicas_[w.ref.Display()] < 2) {
          Fail("PLAN-TIME-SLICING", "workload " + name + " is time-sliced but shares a GPU with no other pod");
        }
      }
    }
    Placed(mig_pods, mig_slots_, "MIG slices");
    Placed(ts_pods, ts_slots_, "time-sliced shares");
  }

  void Placed(const std::map<std::string, int>& pods, const std::map<std::string, int>& slots, const char* what) {
    for (const auto& [w, n] : pods) {
      auto it = slots.find(w);
      const int got = it == slots.end() ? 0 : it->second;
      if (got != n) {
        Fail("PLAN-PLACED", "workload " + w + " moves " + std::to_string(n) + " pods but has " + std::to_string(got) +
                                " " + what);
      }
    }
    for (const auto& [w, n] : slots) {
      if (!pods.count(w)) Fail("PLAN-PLACED", std::string(what) + " name workload " + w + ", which is not moved there");
    }
  }

  void SliceFits(const WorkloadDecision& w, const std::string& name) {
    const mig::GpuModel* model = catalog_.FindModel(w.gpu_model);
    const mig::MigProfile* prof = model ? mig::FindProfile(*model, w.slice) : nullptr;
    if (prof == nullptr) {
      Fail("PLAN-SLICE-FITS", "workload " + name + ": slice " + w.slice + " is not a profile of " + w.gpu_model);
      return;
    }
    if (!policy_.AllowsProfile(prof->name)) {
      Fail("PLAN-SLICE-FITS", "workload " + name + ": slice " + w.slice + " is not allowed by the policy");
    }
    const double need_mem = static_cast<double>(w.peak_memory_mib.value_or(0)) * (1.0 + policy_.headroom);
    const double need_compute = w.peak_compute.value_or(0) * (1.0 + policy_.headroom);
    const double share = static_cast<double>(prof->compute_slices) / std::max(1, model->compute_slices);
    if (!w.peak_memory_mib || !w.peak_compute || static_cast<double>(prof->memory_mib) + 1.0 < need_mem ||
        share + 1e-9 < need_compute) {
      Fail("PLAN-SLICE-FITS", "workload " + name + ": slice " + w.slice + " (" + std::to_string(prof->memory_mib) +
                                  " MiB) does not cover its peak with headroom (" +
                                  std::to_string(static_cast<int64_t>(need_mem)) + " MiB)");
    }
  }

  void Schedule() {
    const plan::Schedule& s = plan_.schedule;
    if (!s.feasible) {
      if (!s.steps.empty()) Fail("SCHED-FEASIBLE", "an infeasible schedule has steps");
      if (s.spare_gpus_needed.empty()) Fail("SCHED-FEASIBLE", "an infeasible schedule names no spare GPUs needed");
      return;
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
      if (times != 1) Fail("SCHED-ONCE", "node " + n + " is in " + std::to_string(times) + " steps");
    }
  }

  const model::Cluster& cluster_;
  const Plan& plan_;
  const policy::GpuPolicy& policy_;
  const mig::MigCatalog& catalog_;
  std::unordered_map<std::string, const model::Node*> node_of_;
  std::unordered_map<std::string, const model::Pod*> pod_of_;
  std::map<std::string, std::string> targets_;  // node -> pool, nodes that get a new layout
  std::map<std::string, int> mig_slots_, ts_slots_;
  std::map<std::string, int> ts_replicas_;  // "ns/name" -> most replicas of a node it shares
  std::map<std::string, int> count_;
  std::vector<InvariantViolation> out_;
};

}  // namespace

std::vector<InvariantViolation> CheckPlanInvariants(const model::Cluster& cluster, const Plan& plan,
                                                    const policy::GpuPolicy& policy, const mig::MigCatalog& catalog) {
  return Checker(cluster, plan, policy, catalog).Run();
}

}  // namespace kubeon::plan
