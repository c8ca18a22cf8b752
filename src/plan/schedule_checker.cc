// See schedule_checker.h.
#include "plan/schedule_checker.h"

#include <algorithm>
#include <map>
#include <set>

namespace kubeon::plan {

std::vector<std::string> CheckSchedule(const model::Cluster& cluster, const Plan& plan, const policy::GpuPolicy& policy) {
  std::vector<std::string> problems;
  auto fail = [&](const std::string& s) { problems.push_back(s); };
  const Schedule& sched = plan.schedule;
  for (const auto& st : sched.steps) {
    if (sched.blocked_pools.count(st.gpu_model)) fail("step " + std::to_string(st.index) + " is of a blocked pool");
  }
  // Free whole GPUs per node, and where each GPU pod is.
  std::map<std::string, int64_t> free;
  std::map<std::string, const model::Node*> nodes;
  for (const auto& n : cluster.nodes) {
    const auto& alloc = n.allocatable.empty() ? n.capacity : n.allocatable;
    auto g = alloc.find(model::kGpuResource);
    free[n.name] = n.ready && g != alloc.end() ? g->second : 0;
    nodes[n.name] = &n;
  }
  struct PodAt {
    const model::Pod* pod;
    std::string node;  // "" not running
  };
  std::map<std::string, PodAt> pods;  // "ns/name"
  // The same pods by the node they are on and by owner ("Kind/ns/name"), so
  // that a step looks at its own nodes' and owners' pods only (the replay
  // stays near-linear at 80,000 GPUs).
  std::map<std::string, std::set<std::string>> on_node;
  std::map<std::string, std::vector<std::string>> of_owner;
  auto place = [&](const std::string& name, PodAt& at, const std::string& node) {
    if (!at.node.empty()) on_node[at.node].erase(name);
    at.node = node;
    if (!node.empty()) on_node[node].insert(name);
  };
  for (const auto& p : cluster.pods) {
    if (!p.Active() || p.gpus <= 0 || p.node_name.empty() || !nodes.count(p.node_name)) continue;
    free[p.node_name] -= p.gpus;
    const std::string name = p.namespace_ + "/" + p.name;
    pods[name] = {&p, p.node_name};
    on_node[p.node_name].insert(name);
    of_owner[p.workload.kind + "/" + p.workload.Display()].push_back(name);
  }
  for (auto& [n, f] : free) f = std::max<int64_t>(0, f);
  for (const auto& p : cluster.pods) {  // unbound Pending GPU pods: first node by name with room
    if (!p.Active() || p.gpus <= 0 || !p.node_name.empty()) continue;
    for (auto& [n, f] : free) {
      if (f >= p.gpus && p.PlacementOf().AllowsNode(*nodes[n])) {
        f -= p.gpus;
        break;
      }
    }
  }
  std::map<std::string, const NodePlan*> targets;
  for (const auto& n : plan.nodes) {
    // A blocked pool's nodes stay as they are.
    if ((n.method == "mig" || n.method == "time-slicing") && !sched.blocked_pools.count(n.gpu_model)) {
      targets[n.name] = &n;
    }
  }
  // Planned moves: owner display -> target nodes and slots.
  std::map<std::string, std::set<std::string>> owner_targets;
  std::map<std::string, int64_t> owner_slots;
  for (const auto& w : plan.workloads) {
    if (w.decision != Decision::kUnchanged) owner_targets[w.ref.Display()];
  }
  for (const auto& [name, n] : targets) {
    for (const auto& g : n->gpus) {
      if (g.whole) continue;
      for (const auto& w : g.workloads) {
        if (!owner_targets.count(w)) continue;
        owner_targets[w].insert(name);
        ++owner_slots[w];
      }
    }
  }
  std::map<std::string, const model::Pod*> original;  // every pod by "ns/name"
  for (const auto& p : cluster.pods) original[p.namespace_ + "/" + p.name] = &p;
  std::set<std::string> done, moved;
  std::set<std::string> ids;
  for (const auto& step : sched.steps) {
    const std::string at = "step " + std::to_string(step.index) + ": ";
    if (!ids.insert(step.id).second) fail(at + "duplicate id " + step.id);
    if (step.id != step.content_hash.substr(0, 8) || step.content_hash.size() != 64) fail(at + "id is not the hash's prefix");
    if (step.nodes.empty()) fail(at + "no nodes");
    if (static_cast<int>(step.nodes.size()) > policy.max_nodes_per_pool) fail(at + "more nodes than maxNodesPerPool");
    std::set<std::string> in_step(step.nodes.begin(), step.nodes.end());
    for (const auto& n : step.nodes) {
      auto t = targets.find(n);
      if (t == targets.end()) {
        fail(at + "node " + n + " is not a target");
        continue;
      }
      if (t->second->gpu_model != step.gpu_model) fail(at + "node " + n + " is not of pool " + step.gpu_model);
      if (!done.insert(n).second) fail(at + "node " + n + " reconfigured twice");
    }
    // Evictions: exactly the GPU pods on the step's nodes now.
    std::set<std::string> expected, evicted;
    for (const auto& n : step.nodes) {
      auto it = on_node.find(n);
      if (it != on_node.end()) expected.insert(it->second.begin(), it->second.end());
    }
    std::vector<std::pair<std::string, std::string>> returns;  // pod, node
    for (const auto& e : step.evictions) {
      if (!evicted.insert(e.pod).second) fail(at + "pod " + e.pod + " evicted twice");
      auto p = pods.find(e.pod);
      if (p == pods.end() || !in_step.count(p->second.node)) {
        fail(at + "evicts " + e.pod + ", which is not on its nodes");
        continue;
      }
      const std::string from = p->second.node;
      if (e.count != p->second.pod->gpus) fail(at + e.pod + ": count differs from its GPUs");
      if (e.runs_meanwhile.empty()) {
        place(e.pod, p->second, "");
        if (e.comes_back) returns.push_back({e.pod, from});
        if (!e.comes_back) pods.erase(p);
        continue;
      }
      const std::string& m = e.runs_meanwhile;
      if (in_step.count(m)) fail(at + e.pod + " runs meanwhile on a node of the step");
      auto node = nodes.find(m);
      if (node == nodes.end()) {
        fail(at + e.pod + " runs meanwhile on unknown node " + m);
        continue;
      }
      if (!p->second.pod->PlacementOf().AllowsNode(*node->second)) fail(at + e.pod + " may not run on " + m);
      free[m] -= e.count;
      if (free[m] < 0) fail(at + "node " + m + " over capacity with " + e.pod);
      place(e.pod, p->second, m);
    }
    for (const auto& name : expected) {
      if (!evicted.count(name)) fail(at + "pod " + name + " left on a node being reconfigured");
    }
    // Reconfigured: whole GPUs left over are free, less pods coming back.
    for (const auto& n : step.nodes) {
      auto t = targets.find(n);
      if (t == targets.end()) continue;
      int mig = 0;
      for (const auto& g : t->second->gpus) mig += g.mig_enabled ? 1 : 0;
      free[n] = t->second->method == "mig" ? t->second->gpu_count - mig : 0;
    }
    // A waiting pod of an owner this step moves is replaced by its rollout
    // and does not come back; it waits within its PodDisruptionBudget's
    // allowance, evicted after every pod of that budget that runs elsewhere
    // (whose replacement must be Ready first), or, without a budget, only in
    // a flagged step.
    std::set<std::string> moving_now;
    for (const auto& o : step.owners) moving_now.insert(o.owner.kind + "/" + o.owner.Display());
    auto budget_of = [&](const model::Pod& pod) -> const model::PodDisruptionBudget* {
      for (const auto& b : cluster.pdbs) {
        if (b.namespace_ == pod.namespace_ && b.selector.Matches(pod.labels)) return &b;
      }
      return nullptr;
    };
    std::map<const model::PodDisruptionBudget*, int> waits;
    std::map<const model::PodDisruptionBudget*, size_t> last_elsewhere, first_wait;
    for (size_t i = 0; i < step.evictions.size(); ++i) {
      const auto& e = step.evictions[i];
      auto p = original.find(e.pod);
      if (p == original.end()) continue;
      const auto* b = budget_of(*p->second);
      if (b == nullptr) continue;
      if (!e.runs_meanwhile.empty()) {
        last_elsewhere[b] = i;
      } else if (!first_wait.count(b)) {
        first_wait[b] = i;
      }
    }
    for (const auto& [b, i] : first_wait) {
      if (last_elsewhere.count(b) && last_elsewhere[b] > i) {
        fail(at + "a pod of PodDisruptionBudget " + b->name + " waiting Pending is evicted before one that runs "
             "elsewhere");
      }
    }
    std::vector<std::pair<std::string, std::string>> coming_back;
    for (const auto& [pod, node] : returns) {
      const model::Pod& mp = *pods[pod].pod;
      if (!moving_now.count(mp.workload.kind + "/" + mp.workload.Display())) {
        coming_back.push_back({pod, node});
        continue;
      }
      if (const auto* b = budget_of(mp)) {
        ++waits[b];
      } else if (step.flags.empty()) {
        fail(at + pod + " waits Pending without a PodDisruptionBudget and the step is not flagged");
      }
    }
    for (const auto& [b, w] : waits) {
      if (w > b->disruptions_allowed) {
        fail(at + std::to_string(w) + " pods wait Pending beyond PodDisruptionBudget " + b->name + "'s allowance");
      }
    }
    for (const auto& [pod, node] : coming_back) {
      place(pod, pods[pod], node);
      free[node] -= pods[pod].pod->gpus;
      if (free[node] < 0) fail(at + "no whole GPU for " + pod + " to come back to " + node);
    }
    // Owner moves.
    for (const auto& o : step.owners) {
      const std::string d = o.owner.Display();
      if (!owner_targets.count(d)) {
        fail(at + "moves " + d + ", which the plan does not move");
        continue;
      }
      if (!moved.insert(d).second) fail(at + d + " moved twice");
      for (const auto& t : owner_targets[d]) {
        if (!done.count(t)) fail(at + d + " moves before its target " + t + " is reconfigured");
      }
      const bool flagged = !step.flags.empty();
      if (owner_slots[d] < o.replicas && !flagged) fail(at + d + " lacks slots and the step is not flagged");
      if (!o.pdb_ok && !flagged) fail(at + d + " exceeds its PDB and the step is not flagged");
      for (const std::string& name : of_owner[o.owner.kind + "/" + d]) {
        auto it = pods.find(name);
        if (it == pods.end()) continue;
        if (!it->second.node.empty()) free[it->second.node] += it->second.pod->gpus;
        place(name, it->second, "");
        pods.erase(it);
      }
    }
  }
  for (const auto& [name, n] : targets) {
    if (!done.count(name)) fail("target " + name + " is in no step");
  }
  for (const auto& [d, t] : owner_targets) {
    if (!t.empty() && !moved.count(d)) fail("planned move of " + d + " is in no step");
  }
  return problems;
}

}  // namespace kubeon::plan
