// Emptying a node of its GPU pods: the executor's part of kubectl's drain.go.
//
//  - GpuPods: the node's non-terminal pods requesting nvidia.com/gpu,
//    nvidia.com/gpu.shared or nvidia.com/mig-* (`only_resource`: that one
//    alone).  DaemonSet pods count only when they hold GPUs, as everything
//    here does.
//  - EvictAndWait: one pod through the Eviction API, journaled.  A
//    PodDisruptionBudget's 429 is retried every eviction_retry_interval, API
//    Priority and Fairness throttling after its Retry-After, both until
//    `until`; then an error (kDisruptionBudget / kThrottled) and the step
//    rolls back.  A pod already terminating is not evicted again.  Then waits
//    until the pod is gone (NotFound, or another UID under its name) for its
//    grace period plus pod_gone_margin.
//  - EvictGpuPods: every GPU pod of the node in `rank` order (see
//    Goal::eviction_rank; unlisted pods last), then those bound meanwhile (a
//    controller racing the cordon), all within eviction_deadline.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apply/step_journal.h"

namespace kubeon::apply {

Result<std::vector<nlohmann::json>> GpuPods(StepJournal& j, const std::string& node,
                                            const char* only_resource = nullptr);
Status EvictAndWait(StepJournal& j, const nlohmann::json& pod, Clock::TimePoint until);
Status EvictGpuPods(StepJournal& j, const std::string& node, const std::map<std::string, size_t>& rank = {});

}  // namespace kubeon::apply
