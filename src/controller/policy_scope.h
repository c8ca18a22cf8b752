// PolicyScope: which nodes and workloads belong to which GpuPolicy when
// several run side by side (issue 12: each workload belongs to exactly one
// policy).
//
// A policy's nodes are the GPU nodes (gpu_count > 0 or a GPU product label)
// its nodeSelector selects.  Two policies overlap when some GPU node is
// selected by both: both get an error naming the other and the shared nodes,
// and neither is planned.  A workload whose active GPU pods run on the nodes
// of two or more (non-overlapping) policies is a conflict of each of them:
// it is listed in each one's conflicts and excluded from each one's plan
// (PlannerOptions::excluded_workloads) with the reason.
// Pure function of its inputs; results are sorted (deterministic).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/cluster.h"
#include "policy/gpu_policy.h"

namespace kubeon::controller {

struct ScopeOfPolicy {
  std::vector<std::string> overlaps_with;  // other policies sharing a node (sorted); non-empty: do not plan
  std::string overlap_error;               // one line naming them and up to 3 shared nodes ("" without)
  // Workloads spanning this policy's nodes and another's, with the reason the
  // plan shows ("its pods run on nodes of policies a and b").
  std::map<model::WorkloadRef, std::string> excluded;
  std::vector<std::string> conflicts;  // status lines: overlap errors' policies and "workload ns/name (Kind) ..." lines
};

// REQUIRES: policy names unique.  Result keyed by policy name.
std::map<std::string, ScopeOfPolicy> ScopePolicies(const model::Cluster& cluster,
                                                   const std::vector<policy::GpuPolicy>& policies);

}  // namespace kubeon::controller
