// ParsePolicyObject: a GpuPolicy object as the API serves it (JSON, which is
// YAML) through the same parser and checks as a policy file
// (policy/gpu_policy.h).  Only apiVersion and kind (the GpuPolicy's when
// absent, as in list items), metadata.name / labels / annotations and spec
// are given to the parser: the fields the API server
// adds (uid, resourceVersion, generation, managedFields, status, ...) are
// not the user's.
// Errors name the object instead of a file line, one per line:
//   "GpuPolicy weekend: spec.mode: must be one of Proposal, Approve, Auto ..."
#pragma once

#include <nlohmann/json.hpp>

#include "model/status.h"
#include "policy/gpu_policy.h"

namespace kubeon::controller {

Result<policy::GpuPolicy> ParsePolicyObject(const nlohmann::json& object, const policy::ProfileExistsFn& exists);

}  // namespace kubeon::controller
