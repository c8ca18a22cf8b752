// Which GPU nodes the policies of one file share, and which policies select
// no GPU node at all.
//
// A node belongs to one policy only (the controller's rule, controller/
// policy_scope.h): two policies whose nodeSelectors both select a GPU node
// would give that node two conflicting layouts.  `plan` and `apply` refuse
// to plan both (an error naming both and the shared nodes) and warn when
// only one of them is planned; a policy selecting no GPU node gets a warning
// (its plan is empty for a reason the user should see).
//
// A GPU node is a node with gpu_count > 0 or a GPU product label, as the
// planner scopes them.  Pure functions; results are deterministic: overlaps
// in file order of the first policy, then the second; node names sorted.
#pragma once

#include <string>
#include <vector>

#include "model/cluster.h"
#include "policy/gpu_policy.h"

namespace kubeon::policy {

struct PolicyOverlap {
  const GpuPolicy* first = nullptr;   // earlier in the file
  const GpuPolicy* second = nullptr;  // later in the file
  std::vector<std::string> nodes;     // shared GPU nodes, sorted, non-empty
};

// REQUIRES: `policies` outlives the result (it points into it).
std::vector<PolicyOverlap> FindOverlaps(const model::Cluster& cluster, const std::vector<GpuPolicy>& policies);

// Number of GPU nodes of `cluster` that `policy` selects.
size_t SelectedGpuNodes(const model::Cluster& cluster, const GpuPolicy& policy);

// Number of GPU nodes in `cluster`.
size_t GpuNodes(const model::Cluster& cluster);

// "3 GPU nodes (a, b and c)", "5 GPU nodes (a, b, c and 2 more)".
std::string DescribeNodes(const std::vector<std::string>& nodes);

}  // namespace kubeon::policy
