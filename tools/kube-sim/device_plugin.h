// Simulated NVIDIA device plugin and GPU Feature Discovery on each GPU node
// (gpu_operator.h), advertising what the node's GPUs (NodeGpus) offer.
//
// Advertising: while the node's device-plugin DaemonSet pod
// (nvidia-device-plugin-daemonset) is Running and not crash-looping, the
// node's capacity and allocatable are: nvidia.com/gpu = GPUs with MIG
// disabled, nvidia.com/mig-<p> = MIG devices of profile p (mixed strategy),
// each times its time-slicing replicas (renameByDefault advertises
// <name>.shared).  Resource names no longer offered stay at "0" (as the
// kubelet keeps them).  GFD labels follow: nvidia.com/mig.strategy=mixed
// (when a GPU has MIG enabled), nvidia.com/mig-<p>.count,
// nvidia.com/gpu.replicas, nvidia.com/gpu.sharing-strategy (time-slicing |
// none) and "-SHARED" on nvidia.com/gpu.product when sharing without
// renaming.  While the pod is absent or not running, every nvidia.com/*
// GPU resource's allocatable is 0 and capacity is unchanged.  Before a
// device-plugin pod was ever seen on a node (a snapshot without operator
// pods) the node is left as loaded.
//
// Config: the label nvidia.com/device-plugin.config names a key of
// ConfigMap <operator_namespace>/<device_plugin_config_map> as the node's
// mounted file sees it (ConfigMapSync: settings.config_map_sync_delay_ms
// late); no label = no sharing.  A changed config takes effect
// settings.device_plugin_delay_ms later.  A key the mounted file lacks, or
// a config that does not parse: with settings.device_plugin_missing_config
// "crash" the pod crash-loops (container waiting, reason CrashLoopBackOff,
// restartCount rising with the kubelet's back-off 10 s, 20 s, ... 300 s,
// pod not Ready, allocatable 0); with "skip" the old config stays.  Either
// way the cause goes to the pod's log, and it recovers when the key
// appears or the label changes.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "configmap_sync.h"
#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

struct TimeSlicingConfig {
  bool rename_by_default = false;
  std::map<std::string, int> replicas;  // resource name -> replicas (>= 1)
  bool operator==(const TimeSlicingConfig& o) const {
    return rename_by_default == o.rename_by_default && replicas == o.replicas;
  }
};
// Parses a device plugin config (version v1, sharing.timeSlicing.{renameByDefault,
// resources[{name, replicas}]}).  Errors name `source` and the key.
Outcome<TimeSlicingConfig> ParseDevicePluginConfig(const std::string& yaml_text, const std::string& source);

class DevicePlugin : public Controller {
 public:
  const char* name() const override { return "device-plugin"; }
  bool Reconcile(ControllerContext& ctx) override;
  bool WaitingOnClock() const override { return waiting_; }
  std::vector<std::string> Inputs() const override { return {kNodes, kPods, kConfigMaps}; }

 private:
  struct NodeState {
    bool seen_pod = false;
    std::string wanted;  // label + config text last resolved
    TimeSlicingConfig applied;
    std::optional<std::pair<TimeSlicingConfig, TimePoint>> pending;  // config, due
    std::string advertised;  // fingerprint of what the node advertises
    std::string crash;       // why the pod crash-loops ("" = it does not)
    std::string crash_pod;   // uid of the crash-looping pod
    int restarts = 0;
    TimePoint next_restart;
  };
  bool ReconcileNode(ControllerContext& ctx, const json& node, const std::optional<json>& pod, bool first,
                     NodeState& st);
  bool WriteResources(ControllerContext& ctx, const std::string& node, const NodeState& st, bool advertising);
  bool WritePodStatus(ControllerContext& ctx, const json& pod, NodeState& st);

  std::map<std::string, NodeState> nodes_;
  ConfigMapSync sync_;
  ChangeCursor cursor_;
  bool was_syncing_ = false;  // a ConfigMap edit was on its way at the last run
  bool waiting_ = false;
};

}  // namespace kubeon::kubesim
