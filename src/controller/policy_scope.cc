// See policy_scope.h.
#include "controller/policy_scope.h"

#include <set>

namespace kubeon::controller {
namespace {

bool GpuNode(const model::Node& n) { return n.gpu_count > 0 || !n.gpu_product.empty(); }

std::string JoinAnd(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

std::map<std::string, ScopeOfPolicy> ScopePolicies(const model::Cluster& cluster,
                                                   const std::vector<policy::GpuPolicy>& policies) {
  std::map<std::string, ScopeOfPolicy> result;
  std::map<std::string, std::vector<std::string>> policies_of_node;  // GPU node -> selecting policies (in order)
  for (const auto& p : policies) result[p.name];
  for (const auto& n : cluster.nodes) {
    if (!GpuNode(n)) continue;
    for (const auto& p : policies) {
      if (p.SelectsNode(n.labels)) policies_of_node[n.name].push_back(p.name);
    }
  }
  // Overlaps: pairs of policies sharing nodes, with the shared nodes.
  std::map<std::string, std::map<std::string, std::vector<std::string>>> shared;  // a -> b -> nodes
  for (const auto& [node, names] : policies_of_node) {
    for (const auto& a : names) {
      for (const auto& b : names) {
        if (a != b) shared[a][b].push_back(node);
      }
    }
  }
  for (auto& [a, others] : shared) {
    ScopeOfPolicy& s = result[a];
    std::string detail;
    for (const auto& [b, nodes] : others) {
      s.overlaps_with.push_back(b);
      s.conflicts.push_back("policy " + b + " selects the same nodes");
      std::vector<std::string> some(nodes.begin(), nodes.begin() + std::min<size_t>(nodes.size(), 3));
      detail += (detail.empty() ? "" : "; ") + b + " (" + JoinAnd(some) +
                (nodes.size() > 3 ? " and " + std::to_string(nodes.size() - 3) + " more" : "") + ")";
    }
    s.overlap_error = "node selector overlaps with policy " + detail +
                      ": a node may belong to one policy only; neither is planned until the selectors are disjoint";
  }
  // Spanning workloads, among policies that are planned.
  std::map<std::string, std::string> owner_of_node;  // node -> the one planned policy selecting it
  for (const auto& [node, names] : policies_of_node) {
    if (names.size() == 1 && result[names[0]].overlaps_with.empty()) owner_of_node[node] = names[0];
  }
  std::map<model::WorkloadRef, std::set<std::string>> policies_of_workload;
  for (const auto& pod : cluster.pods) {
    if (!pod.Active() || pod.node_name.empty() || (pod.gpus <= 0 && pod.gpu_slices.empty())) continue;
    auto it = owner_of_node.find(pod.node_name);
    if (it != owner_of_node.end()) policies_of_workload[pod.workload].insert(it->second);
  }
  for (const auto& [ref, names] : policies_of_workload) {
    if (names.size() < 2) continue;
    const std::vector<std::string> list(names.begin(), names.end());
    const std::string reason = "its pods run on nodes of policies " + JoinAnd(list) +
                               ": a workload belongs to one policy only, so none of them moves it";
    for (const auto& name : names) {
      ScopeOfPolicy& s = result[name];
      s.excluded[ref] = reason;
      s.conflicts.push_back("workload " + ref.Display() + " (" + ref.kind + ") spans policies " + JoinAnd(list));
    }
  }
  return result;
}

}  // namespace kubeon::controller
