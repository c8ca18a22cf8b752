// Test helper: the plan inputs of testdata/small/ (a small cluster, its
// history, a policy and prices), as the commands' flags would name them.
#pragma once

#include <string>

#include "inputs/plan_inputs.h"

namespace kubeon::inputs::testing {

inline const std::string kSmallDir = std::string(KUBEON_SOURCE_DIR) + "/testdata/small/";

inline PlanArgs SmallPlanArgs() {
  PlanArgs a;
  a.cluster_file = kSmallDir + "cluster.json";
  a.metrics_files = {kSmallDir + "history.om"};
  a.policy_file = kSmallDir + "policy.yaml";
  a.prices_file = kSmallDir + "prices.yaml";
  a.quiet = true;
  return a;
}

}  // namespace kubeon::inputs::testing
