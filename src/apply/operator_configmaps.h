// The GPU Operator's ConfigMaps the executor writes and reads
// (StepArtifacts names them):
//
//  - WriteConfigMaps: merges the configs the goal's labels name into the
//    mig-parted ConfigMap (key config.yaml) and the device-plugin ConfigMap
//    (one key per config), creating them when absent.  Keys and configs
//    already there are never removed or changed; a device-plugin key that
//    differs from the plan's is an error (edited by hand).  Each write is
//    journaled; *changed says whether anything was written (the kubelet then
//    needs StepOptions::configmap_sync to show it to the nodes).
//  - ExpectedFor: what a node with `gpus` GPUs advertises once a config
//    label holds `value`: nvidia.com/mig-<profile> and nvidia.com/gpu
//    counts for nvidia.com/mig.config (from the ConfigMap's config), or
//    nvidia.com/gpu.shared = GPUs x replicas for
//    nvidia.com/device-plugin.config (0 when it shares nothing or is
//    removed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apply/step_goal.h"
#include "apply/step_journal.h"

namespace kubeon::apply {

Status WriteConfigMaps(StepJournal& j, const std::vector<NodeGoal>& goals, bool* changed);

Result<std::map<std::string, int64_t>> ExpectedFor(StepJournal& j, const std::string& label,
                                                   const std::optional<std::string>& value, int gpus);

}  // namespace kubeon::apply
