// Operator configuration the executor writes and waits for: merging a plan's
// mig-parted configs into the ConfigMap the GPU Operator's mig-manager reads,
// and what a node must advertise once a config is applied.
//
// Contract:
//  - MergeMigConfig never removes or changes a config already in the
//    ConfigMap: the result holds every existing config unchanged plus each
//    named config from the plan.  A name present on both sides with other
//    content is an error (names are content-derived, so that means someone
//    edited it), as is a name the plan lacks.
//  - ExpectedMigResources counts the nvidia.com/mig-<profile> devices a node
//    with `gpu_count` GPUs advertises under the named config (mixed
//    strategy), and nvidia.com/gpu for the GPUs it leaves whole.  Entries
//    with a device-filter cannot be counted without the device ids: they
//    are skipped (their GPUs are then not required).
//  - TimeSlicingReplicas reads sharing.timeSlicing replicas of
//    nvidia.com/gpu from a device-plugin config (1 when it shares nothing).
// Errors are values naming the config and what is wrong.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/status.h"

namespace kubeon::apply {

// The config name mig-manager falls back to for "MIG off" (an empty label is ignored).
inline constexpr const char* kAllDisabled = "all-disabled";

// `existing` is the ConfigMap's config.yaml ("" when absent); `plan` the
// plan's mig-parted config.yaml; `names` the configs to carry over
// (all-disabled is always carried over when the plan has it).
Result<std::string> MergeMigConfig(const std::string& existing, const std::string& plan,
                                   const std::vector<std::string>& names);

// Whether config.yaml `yaml` defines config `name`.
bool HasMigConfig(const std::string& yaml, const std::string& name);

// Resource name -> count a node advertises once config `name` of `yaml` is applied.
Result<std::map<std::string, int64_t>> ExpectedMigResources(const std::string& yaml, const std::string& name,
                                                            int gpu_count);

// Time-slicing replicas of nvidia.com/gpu in a device-plugin config file.
Result<int64_t> TimeSlicingReplicas(const std::string& config);

}  // namespace kubeon::apply
