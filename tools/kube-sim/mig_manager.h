// Simulated NVIDIA mig-manager (k8s-mig-manager with mig-parted), one per
// GPU node, running only while its DaemonSet pod (nvidia-mig-manager, see
// gpu_operator.h) runs on the node.  It follows
// ../shared/reference/gpu-operator-write-side.md section 1.
//
// Trigger: the value of the node label nvidia.com/mig.config changes to a
// non-empty value while the pod runs, or the pod starts while the label is
// set (a pod running when kube-sim started is not a start).  A write that
// leaves the value unchanged, an empty or removed label, and a failure do
// nothing more: it never retries.  A change during a run is taken up after
// it.
//
// A run (states in nvidia.com/mig.config.state; every step logged to the
// pod's log, read by `kubectl logs`; no Event, no node condition):
//  1. Reads the config from ConfigMap <operator_namespace>/<mig_config_map>
//     key config.yaml as the node's mounted file has it (ConfigMapSync,
//     settings.config_map_sync_delay_ms late) and plans it on the node's
//     GPUs (PlanMigConfig, the MIG catalog).  Missing ConfigMap, key or
//     config, bad YAML, an invalid layout -> "failed".
//  2. GPUs already as planned -> "success", nothing else.
//  3. "pending"; each nvidia.com/gpu.deploy.{device-plugin,
//     gpu-feature-discovery,dcgm-exporter,dcgm,nvsm,client} label that is
//     "true" becomes "paused-for-mig-change" (the DaemonSet controller then
//     deletes those pods, and allocatable drops to 0).
//  4. Waits (polling) until no pod of a DaemonSet selecting a paused label
//     runs on the node; after 5 simulated minutes -> "failed".  Fault
//     stuckMigPending: the wait times out after 5 minutes and the run ends
//     without a state, leaving "pending" and the labels paused (GO #2833).
//  5. A pod holding a device (NodeGpus) on a GPU whose MIG mode or geometry
//     changes -> "failed" ("In use by another client"); a mode change
//     resets every GPU of the node, so then any held device on the node
//     counts.  With settings.mig_manager_with_reboot a failed mode change
//     instead sets "rebooting": the node goes NotReady (Ready condition
//     False), every pod on it is deleted, its GPUs take the asked MIG mode
//     with no MIG devices (the mode persists across the reboot, instances
//     do not), and settings.node_reboot_delay_ms later the node is Ready
//     again with the paused labels restored; the recreated mig-manager pod
//     then runs again.  Fault failMigConfig fails here too.
//  6. Applies (settings.mig_reconfigure_delay_ms), restores the paused
//     labels to "true", "success".
// "failed" restores the paused labels.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "configmap_sync.h"
#include "controller.h"
#include "mig_parted.h"
#include "resources.h"

namespace kubeon::kubesim {

inline constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
inline constexpr const char* kMigStateLabel = "nvidia.com/mig.config.state";
inline constexpr const char* kPausedForMigChange = "paused-for-mig-change";

class MigManager : public Controller {
 public:
  const char* name() const override { return "mig-manager"; }
  bool Reconcile(ControllerContext& ctx) override;
  bool WaitingOnClock() const override { return waiting_; }
  std::vector<std::string> Inputs() const override { return {kNodes, kPods, kConfigMaps}; }

 private:
  enum class Phase { kIdle, kWaitingForPods, kApplying, kRebooting };
  struct NodeState {
    std::string label;    // nvidia.com/mig.config last seen
    std::string pod_uid;  // the running mig-manager pod ("" = none)
    bool initial = false; // seen when kube-sim started: its pod's first sighting is no start
    bool rerun = false;   // the label changed during a run
    Phase phase = Phase::kIdle;
    std::string config;
    std::vector<GpuMigTarget> targets;
    bool mode_change = false;
    bool stuck = false;   // stuckMigPending fired for this run
    std::vector<std::string> paused;  // deploy labels this run paused
    TimePoint due;
  };
  bool Step(ControllerContext& ctx, const std::string& node, NodeState& st);
  bool Begin(ControllerContext& ctx, const std::string& node, NodeState& st);
  bool Proceed(ControllerContext& ctx, const std::string& node, NodeState& st);
  bool Fail(ControllerContext& ctx, const std::string& node, NodeState& st, const std::string& why);
  bool Reboot(ControllerContext& ctx, const std::string& node, NodeState& st);
  bool OperandPodsGone(ControllerContext& ctx, const std::string& node, const NodeState& st) const;
  void Log(ControllerContext& ctx, const NodeState& st, const std::string& level, const std::string& msg) const;

  std::map<std::string, NodeState> nodes_;
  ConfigMapSync sync_;
  ChangeCursor cursor_;
  bool first_run_ = true;
  bool waiting_ = false;
};

}  // namespace kubeon::kubesim
