// Simulated NVIDIA GPU Operator: mig-manager, device plugin and the GPU
// Feature Discovery labels they drive.
//
// mig-manager: when a node's label nvidia.com/mig.config changes to a
// non-empty value, the label nvidia.com/mig.config.state becomes "pending";
// settings.mig_reconfigure_delay_ms later the config named by the label is
// read from ConfigMap <operator_namespace>/<mig_config_map> key config.yaml
// (mig_parted.h) and applied to the node's GPUs (nvidia.com/gpu.count, else
// what the node advertised when first seen).  Success: state "success",
// nvidia.com/mig.strategy=mixed, per-profile nvidia.com/mig-<p>.count
// labels, and capacity/allocatable nvidia.com/mig-<p> = instances,
// nvidia.com/gpu = GPUs left without MIG.  Failure (missing ConfigMap or
// config, bad YAML, MIG on a GPU that is not MIG capable or not in the MIG
// catalog, an invalid layout, or an injected fault): state "failed",
// resources unchanged, and an Event (reason MigConfigFailed).
//
// device plugin: when nvidia.com/device-plugin.config (or the ConfigMap
// <operator_namespace>/<device_plugin_config_map> entry it names) changes,
// after settings.device_plugin_delay_ms the time-slicing config
// (version v1, sharing.timeSlicing.{renameByDefault, resources[{name,
// replicas}]}) multiplies each resource by its replicas; renameByDefault
// advertises <name>.shared instead, otherwise nvidia.com/gpu.product gets
// "-SHARED".  Labels nvidia.com/gpu.replicas and
// nvidia.com/gpu.sharing-strategy (time-slicing | none) follow.  Removing
// the label restores one replica.
//
// Nodes are first seen as they are (no action on load); only later changes
// trigger reconfiguration.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "controller.h"
#include "resources.h"
#include "mig_parted.h"

namespace kubeon::kubesim {

struct TimeSlicingConfig {
  bool rename_by_default = false;
  std::map<std::string, int> replicas;  // resource name -> replicas (>= 1)
};
Outcome<TimeSlicingConfig> ParseDevicePluginConfig(const std::string& yaml_text, const std::string& source);

class GpuOperator : public Controller {
 public:
  const char* name() const override { return "gpu-operator"; }
  bool Reconcile(ControllerContext& ctx) override;
  bool WaitingOnClock() const override;
  std::vector<std::string> Inputs() const override { return {kNodes, kConfigMaps}; }

 private:
  struct NodeState {
    std::string mig_label;       // last nvidia.com/mig.config seen
    std::string dp_fingerprint;  // last device-plugin label + its config text
    int gpu_count = 0;
    NodeMigResult layout;        // GPUs as last configured
    std::optional<std::pair<std::string, TimePoint>> pending_mig;  // config, due
    std::optional<TimePoint> pending_dp;
  };
  NodeState FirstSight(const json& node, ControllerContext& ctx) const;
  bool FinishMig(ControllerContext& ctx, const std::string& node, NodeState& st);
  bool WriteResources(ControllerContext& ctx, const std::string& node, const NodeState& st);
  std::string DevicePluginFingerprint(ControllerContext& ctx, const json& node) const;

  std::map<std::string, NodeState> nodes_;
};

}  // namespace kubeon::kubesim
