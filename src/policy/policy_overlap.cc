// See policy_overlap.h for the contract.
#include "policy/policy_overlap.h"

#include <algorithm>

namespace kubeon::policy {
namespace {

bool IsGpuNode(const model::Node& n) { return n.gpu_count > 0 || !n.gpu_product.empty(); }

constexpr size_t kNodesNamed = 3;

}  // namespace

std::vector<PolicyOverlap> FindOverlaps(const model::Cluster& cluster, const std::vector<GpuPolicy>& policies) {
  std::vector<const model::Node*> gpu_nodes;
  for (const auto& n : cluster.nodes) {
    if (IsGpuNode(n)) gpu_nodes.push_back(&n);
  }
  // Which policies select each node, as bit rows per policy (policies are few).
  std::vector<std::vector<bool>> selects(policies.size(), std::vector<bool>(gpu_nodes.size()));
  for (size_t p = 0; p < policies.size(); ++p) {
    for (size_t n = 0; n < gpu_nodes.size(); ++n) selects[p][n] = policies[p].SelectsNode(gpu_nodes[n]->labels);
  }
  std::vector<PolicyOverlap> out;
  for (size_t a = 0; a < policies.size(); ++a) {
    for (size_t b = a + 1; b < policies.size(); ++b) {
      PolicyOverlap o{&policies[a], &policies[b], {}};
      for (size_t n = 0; n < gpu_nodes.size(); ++n) {
        if (selects[a][n] && selects[b][n]) o.nodes.push_back(gpu_nodes[n]->name);
      }
      if (o.nodes.empty()) continue;
      std::sort(o.nodes.begin(), o.nodes.end());
      out.push_back(std::move(o));
    }
  }
  return out;
}

size_t SelectedGpuNodes(const model::Cluster& cluster, const GpuPolicy& policy) {
  return static_cast<size_t>(std::count_if(cluster.nodes.begin(), cluster.nodes.end(), [&](const model::Node& n) {
    return IsGpuNode(n) && policy.SelectsNode(n.labels);
  }));
}

size_t GpuNodes(const model::Cluster& cluster) {
  return static_cast<size_t>(std::count_if(cluster.nodes.begin(), cluster.nodes.end(), IsGpuNode));
}

std::string DescribeNodes(const std::vector<std::string>& nodes) {
  std::string out = std::to_string(nodes.size()) + (nodes.size() == 1 ? " GPU node (" : " GPU nodes (");
  const size_t named = std::min(nodes.size(), kNodesNamed);
  for (size_t i = 0; i < named; ++i) {
    if (i > 0) out += (i + 1 == named && nodes.size() == named) ? " and " : ", ";
    out += nodes[i];
  }
  if (nodes.size() > named) out += " and " + std::to_string(nodes.size() - named) + " more";
  return out + ")";
}

}  // namespace kubeon::policy
