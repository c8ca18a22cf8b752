// Artifacts: the files NVIDIA's components read, and the owner patches.
//
//  - mig-parted config (ConfigMap key config.yaml, read by the GPU Operator's
//    mig-manager): `version: v1`, `mig-configs:` name -> list of
//    {devices, mig-enabled, mig-devices}.  One config per distinct node layout,
//    named kubeon-<model>-<hash of the layout>, plus `all-disabled` so nodes
//    outside the plan keep a valid choice.  A node selects its config with the
//    label nvidia.com/mig.config.
//  - device-plugin config (one key per replica count, read by the device
//    plugin's config-manager): `version: v1`, flags.migStrategy none,
//    sharing.timeSlicing with renameByDefault true (the node then advertises
//    nvidia.com/gpu.shared, so whole-GPU pods never land on shared GPUs) and
//    failRequestsGreaterThanOne true.  Selected by nvidia.com/device-plugin.config.
//  - strategic-merge patches of each moved workload's owner: the GPU
//    container's nvidia.com/gpu request and limit replaced by
//    nvidia.com/mig-<profile> (or nvidia.com/gpu.shared).
// Output is deterministic: same plan, same bytes.
#pragma once

#include <string>
#include <vector>

#include "model/cluster.h"
#include "plan/plan.h"
#include "plan/planner.h"

namespace kubeon::plan {

struct WorkloadForArtifacts {
  Decision decision = Decision::kUnchanged;
  model::WorkloadRef ref;
  std::string slice;
  const model::Pod* pod = nullptr;  // a pod of the workload, for its container names
};

// Sets NodePlan::labels in *plan and returns the artifacts.
Artifacts BuildArtifacts(Plan& plan, const std::vector<WorkloadForArtifacts>& workloads, const PlannerOptions& options);

// The device-plugin config for `replicas` (exposed for golden tests).
std::string DevicePluginConfig(int replicas);

// A ConfigMap manifest holding `data` (key -> file content) as block scalars.
std::string ConfigMapYaml(const std::string& name, const std::string& namespace_,
                          const std::map<std::string, std::string>& data);

}  // namespace kubeon::plan
