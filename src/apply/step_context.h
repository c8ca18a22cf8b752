// What every part of the executor's step state machine shares: the names it
// writes on the cluster, the artifacts a step's labels name, its waits and
// deadlines (StepOptions), where it writes (StepContext) and how a run ends
// (StepOutcome).  step_runner.h is the entry point; the parts are listed
// there.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "apply/clock.h"
#include "audit/audit_store.h"
#include "kube/client.h"

namespace kubeon::apply {

inline constexpr const char* kStepTaintKey = "gpu.kubeon.io/step";
inline constexpr const char* kCordonedByAnnotation = "gpu.kubeon.io/cordoned-by";
inline constexpr const char* kChangeAnnotation = "gpu.kubeon.io/change";
inline constexpr const char* kDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";
inline constexpr const char* kScaleDownDisabledAnnotation = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
inline constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
inline constexpr const char* kMigConfigStateLabel = "nvidia.com/mig.config.state";
inline constexpr const char* kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";

// What the step's labels name, from the plan's artifacts.  The namespace
// and ConfigMap fields are object names (plan::PlannerOptions's
// mig_configmap_name / device_plugin_configmap_name), not the manifests in
// plan::Artifacts; RunStep and RevertChange refuse anything that is not a
// valid name before they touch the cluster.
struct StepArtifacts {
  std::string operator_namespace = "gpu-operator";
  std::string mig_configmap = "kubeon-mig-parted-config";          // key config.yaml
  std::string mig_parted_config;                                    // holds the configs the labels name
  std::string device_plugin_configmap = "kubeon-device-plugin-config";
  std::map<std::string, std::string> device_plugin_configs;  // key -> config file
};

// Called after every successful cluster write, before the write's "ok" log
// entry, with the run's count of writes so far; true stops the run at once,
// as if the process had died there (the run returns kCrashed and writes
// nothing more, to the cluster or the log).  Tests inject one to stop at
// every crash point; the test-only binary kubeon-gpu-crashpoint injects one
// that SIGKILLs the process.  kubeon-gpu never sets it.
using WriteObserver = std::function<bool(int run_writes)>;

struct StepOptions {
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds eviction_retry_interval{5000};  // after a PDB's 429 (kubectl drain: 5 s)
  std::chrono::milliseconds eviction_deadline{std::chrono::minutes(10)};  // 429s past it roll back
  std::chrono::milliseconds pod_gone_margin{std::chrono::seconds(60)};   // on top of the pod's grace
  std::chrono::milliseconds configmap_sync{std::chrono::seconds(90)};    // kubelet sync + cache TTL
  std::chrono::milliseconds mig_deadline{std::chrono::minutes(15)};      // no fresh success -> roll back
  std::chrono::milliseconds allocatable_deadline{std::chrono::minutes(5)};
  std::chrono::milliseconds rollout_deadline{std::chrono::minutes(15)};
  // Absolute: once passed, a running step stops where it is and rolls back
  // (the window's close plus the documented grace; see the apply command).
  // The rollback itself is bound only by the waits above.
  std::optional<Clock::TimePoint> hard_deadline;
  bool patch_gitops_owners = false;  // policy spec.disruption.patchGitOpsOwners
  WriteObserver write_observer;      // may be empty
};

// Fencing: checked before every cluster write (and every write to the log);
// an error means this executor no longer holds the policy's Lease
// (LeaseKeeper::Fresh) and must stop writing at once.
using Fence = std::function<Status()>;

struct StepContext {
  kube::KubeClient& client;
  audit::AuditStore& store;
  Clock& clock;
  StepArtifacts artifacts;
  StepOptions options;
  std::string policy;                               // GpuPolicy name, for new ChangeRecords
  std::function<void(const std::string&)> progress;  // one line per action (stderr); may be empty
  Fence fence;                                      // may be empty (no Lease: tests)
};

enum class OutcomeKind {
  kDone,            // finished (RevertChange: reverted)
  kRolledBack,      // failed or refused; the cluster is as before (cause says why)
  kRollbackFailed,  // failed, and so did its rollback: nodes left cordoned and tainted
  kCrashed,         // StepOptions::write_observer stopped the run
  kLeaseLost,       // the fence failed: stopped writing at once, the change left for the new holder
};
// "done" | "rolled-back" | "rollback-failed" | "crashed" | "lease-lost"
const char* OutcomeName(OutcomeKind k);

struct StepOutcome {
  std::string change_id;
  OutcomeKind kind = OutcomeKind::kDone;
  std::string cause;                        // why it rolled back / failed ("" when done)
  std::vector<std::string> gitops_patches;  // "Deployment ns/name: <patch json>" not applied
  int writes = 0;                           // successful cluster writes
};

}  // namespace kubeon::apply
