// Artifacts: the files NVIDIA's components read, and the owner patches.
//
//  - mig-parted config (ConfigMap key config.yaml, read by the GPU Operator's
//    mig-manager): `version: v1`, `mig-configs:` name -> list of
//    {devices, mig-enabled, mig-devices}.  A custom ConfigMap replaces the
//    operator's for every node, so it starts from the operator's current one
//    (OperatorState::mig_config_yaml: every config kept as it is), then
//    `all-disabled`, then one config per distinct node layout of the plan,
//    named by its content: kubeon-<first 10 hex digits of the SHA-256 of the
//    config's entries> (sha256.h ContentName), so a changed layout never
//    reuses a name (mig-manager does not re-apply an edited config of a name
//    a node already carries).  A config a node's
//    nvidia.com/mig.config names today that the result lacks is a warning
//    (mig-manager would fail on that node when its pod restarts).
//  - device-plugin configs (read by the device plugin's config-manager):
//    `default`, which shares nothing (`version: v1` alone: with the standalone
//    chart's fallback strategies named,single an unlabelled node takes it,
//    never a time-slicing key), and one key per replica count, named by its
//    content like the MIG configs (ContentName of the key's file):
//    `version: v1`, sharing.timeSlicing with renameByDefault true (the node
//    then advertises nvidia.com/gpu.shared, so whole-GPU pods never land on
//    shared GPUs) and failRequestsGreaterThanOne true.  No flags: the GPU
//    Operator sets the MIG strategy itself.  Selected by
//    nvidia.com/device-plugin.config.
//  - strategic-merge patches of each moved workload's owner: the GPU
//    container's nvidia.com/gpu request and limit replaced by
//    nvidia.com/mig-<profile> (or nvidia.com/gpu.shared), and a required node
//    affinity on nvidia.com/gpu.product (the pool's product labels) added to
//    each of the pod's required node selector terms (or as the only term), so
//    the pods stay on their GPU model: MIG resources of the same name exist on
//    other models (nvidia.com/mig-1g.10gb on A100-80GB and H100).
// Output is deterministic: same plan, same bytes.
#pragma once

#include <set>
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
  const model::Pod* pod = nullptr;  // a pod of the workload, for its containers and node affinity
  std::vector<std::string> product_labels;  // nvidia.com/gpu.product values of its GPU model pool
};

// What the GPU Operator runs with today, as far as the snapshot tells.
struct OperatorState {
  std::string mig_config_yaml;    // config.yaml of the mig-parted ConfigMap in use, "" when unknown
  std::string mig_config_source;  // "namespace/name" of that ConfigMap, for messages
  std::set<std::string> node_mig_configs;  // nvidia.com/mig.config values on nodes today
};

// Sets NodePlan::labels in *plan, appends warnings to plan->warnings, and
// returns the artifacts.
Artifacts BuildArtifacts(Plan& plan, const std::vector<WorkloadForArtifacts>& workloads, const PlannerOptions& options,
                         const OperatorState& state = {});

// The device-plugin config that shares nothing (key "default").
std::string DevicePluginDefaultConfig();

// The device-plugin config for `replicas` (exposed for golden tests).
std::string DevicePluginConfig(int replicas);

// A ConfigMap manifest holding `data` (key -> file content) as block scalars.
std::string ConfigMapYaml(const std::string& name, const std::string& namespace_,
                          const std::map<std::string, std::string>& data);

}  // namespace kubeon::plan
