// The executor's step state machine: carries out one ScheduleStep of a plan
// on the live cluster (RunStep), rolls a half-done step back or finishes it
// after a crash (ResumeOrRollback), and reverts a finished step
// (RevertChange).  The `apply` / `revert` commands call these while holding
// the policy's Lease (lease.h); this file does not take the Lease.
//
// RunStep, in this order (issue 11, rules 4-7):
//  1. Re-checks the step's `needs` against the live cluster (free allocatable
//     per node and resource); refuses a node cordoned by anyone but this step.
//     A refusal writes nothing to the cluster.
//  2. Every node: annotations karpenter.sh/do-not-disrupt and
//     cluster-autoscaler.kubernetes.io/scale-down-disabled, cordon with
//     annotation gpu.kubeon.io/cordoned-by=<id> (one write per node).
//  3. Writes the configs the step's labels name into the operator's
//     ConfigMaps (merged: keys and configs already there are never removed
//     or changed), then waits StepOptions::configmap_sync (the kubelet's
//     ConfigMap volume sync) so mig-manager and the device plugin read them.
//  4. Evicts every GPU pod on the nodes (a pod requesting nvidia.com/gpu,
//     nvidia.com/gpu.shared or nvidia.com/mig-*; DaemonSet pods only when
//     they hold GPUs) through the Eviction API; 429 is retried every
//     eviction_retry_interval until eviction_deadline, then the step rolls
//     back.  Waits until each pod is gone (NotFound or another UID).
//  5. MIG: clears nvidia.com/mig.config.state and sets nvidia.com/mig.config
//     in one write (a label already at the target is first removed, since
//     mig-manager acts only on a change), then waits for a fresh `success`
//     and the node's allocatable showing the config's nvidia.com/mig-<p>
//     counts (ExpectedMigResources).  `failed`, or no `success` within
//     mig_deadline, rolls back.  Time-slicing: no pod on the node may hold
//     nvidia.com/gpu; sets nvidia.com/device-plugin.config and waits for
//     nvidia.com/gpu.shared = GPUs x replicas.
//  6. Taints every node gpu.kubeon.io/step=<id>:NoSchedule, reserving the
//     new slices for the owners below, and uncordons the nodes this step
//     cordoned, in one write.  Not earlier: mig-manager deletes the GPU
//     Operator's operand pods (device plugin, GFD) and their DaemonSets,
//     which do not tolerate the taint, must be able to bring them back.
//  7. Patches every owner (strategic merge applied to a fresh read and PUT
//     with its resourceVersion): the plan's patch, plus the toleration
//     {gpu.kubeon.io/step, Exists, NoSchedule} and the annotation
//     gpu.kubeon.io/change=<id>.  A GitOps-managed owner is not patched
//     unless StepOptions::patch_gitops_owners: its patch is printed and
//     returned in StepOutcome::gitops_patches.
//  8. Waits for each rollout (observedGeneration, updated/ready/available
//     replicas; a StatefulSet with OnDelete is moved pod by pod through the
//     Eviction API).
//  9. Removes the taint and the annotations.  The change is `done`.
//
// Log first (rule 8): before every cluster write the ChangeRecord's
// undo_json is updated with what that write changes (prior labels, taints,
// annotations, unschedulable, prior owner templates) and an "intent" entry
// is appended; after it an "ok" entry.  undo_json (executor-defined) is
// {"step": RUN, "revert": RUN}, RUN = {"phase", "nodes": {name: {...}},
// "owners": [...]}.
//
// Any failure after the first write rolls back, in reverse order: owners to
// their prior templates; each node cordoned again (if this step had cordoned
// it) with the taint removed, its GPU pods evicted, its config labels set
// back to an explicit previous config (an empty nvidia.com/mig.config label
// becomes all-disabled, which mig-manager acts on) waiting for a fresh
// success, nvidia.com/gpu.deploy.* labels left paused-for-mig-change
// restored to true; then annotations restored and only nodes this step
// cordoned uncordoned.  If the rollback fails the
// node stays cordoned and tainted, the change is `failed` and the outcome
// kRollbackFailed says so.  Every write is a read-modify-PUT with the read's
// resourceVersion (KubeClient::UpdateWithRetry), re-checking that the fields
// it changes still hold the expected values.
//
// Test-only fault injection: with the environment variable
// KUBEON_APPLY_CRASH_AFTER_WRITES=N the process SIGKILLs itself right after
// its N-th successful cluster write (before that write's "ok" entry and any
// completion record).  StepOptions::crash_after_write does the same in
// process without dying (the runner returns kCrashed at once, writing
// nothing more), so tests can resume from exactly what a crash leaves.
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
#include "plan/plan.h"

namespace kubeon::apply {

inline constexpr const char* kStepTaintKey = "gpu.kubeon.io/step";
inline constexpr const char* kCordonedByAnnotation = "gpu.kubeon.io/cordoned-by";
inline constexpr const char* kChangeAnnotation = "gpu.kubeon.io/change";
inline constexpr const char* kDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";
inline constexpr const char* kScaleDownDisabledAnnotation = "cluster-autoscaler.kubernetes.io/scale-down-disabled";
inline constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
inline constexpr const char* kMigConfigStateLabel = "nvidia.com/mig.config.state";
inline constexpr const char* kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";
inline constexpr const char* kCrashEnv = "KUBEON_APPLY_CRASH_AFTER_WRITES";

// What the step's labels name, from the plan's artifacts.
struct StepArtifacts {
  std::string operator_namespace = "gpu-operator";
  std::string mig_configmap = "kubeon-mig-parted-config";          // key config.yaml
  std::string mig_parted_config;                                    // holds the configs the labels name
  std::string device_plugin_configmap = "kubeon-device-plugin-config";
  std::map<std::string, std::string> device_plugin_configs;  // key -> config file
};

struct StepOptions {
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds eviction_retry_interval{5000};  // after a 429 (kubectl drain: 5 s)
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
  // Test-only (see the file comment): called after each successful cluster
  // write with the run's write count; true = stop as if the process died.
  std::function<bool(int writes)> crash_after_write;
};

struct StepContext {
  kube::KubeClient& client;
  audit::AuditStore& store;
  Clock& clock;
  StepArtifacts artifacts;
  StepOptions options;
  std::string policy;                               // GpuPolicy name, for new ChangeRecords
  std::function<void(const std::string&)> progress;  // one line per action (stderr); may be empty
};

enum class OutcomeKind {
  kDone,            // finished (RevertChange: reverted)
  kRolledBack,      // failed or refused; the cluster is as before (cause says why)
  kRollbackFailed,  // failed, and so did its rollback: nodes left cordoned and tainted
  kCrashed,         // test-only: StepOptions::crash_after_write stopped the run
};
const char* OutcomeName(OutcomeKind k);  // "done" | "rolled-back" | "rollback-failed" | "crashed"

struct StepOutcome {
  std::string change_id;
  OutcomeKind kind = OutcomeKind::kDone;
  std::string cause;                        // why it rolled back / failed ("" when done)
  std::vector<std::string> gitops_patches;  // "Deployment ns/name: <patch json>" not applied
  int writes = 0;                           // successful cluster writes
};

// Runs `step` (see the file comment).  The change record step.id is created
// (state running) when the store lacks it; an existing one moves to running.
// A step whose record is `done` is not taken again (kDone, no write); one
// left `running` by a crash is refused until ResumeOrRollback handled it.
// A refusal before any write (capacity, a node cordoned by someone else)
// is kRolledBack with the cause, and the record becomes rolled-back.
// REQUIRES: step.id non-empty; the caller holds the policy's Lease.
StepOutcome RunStep(const StepContext& ctx, const plan::ScheduleStep& step);

// Test-only: restarts the process's write count that
// KUBEON_APPLY_CRASH_AFTER_WRITES compares against (for a forked child).
void ResetProcessWritesForTesting();

// For every change the log shows `running`: finishes it when only the final
// cleanup (taint and annotations) is missing, else rolls it back from its
// undo data; a revert left half way is rolled back to the change's result.
// Idempotent: safe to repeat after another crash.  One outcome per change
// it touched.
std::vector<StepOutcome> ResumeOrRollback(const StepContext& ctx);

// Restores exactly the fields `done` change `id` set (node config labels,
// owners' templates) through the same sequence (cordon, evict, config back,
// owners back, uncordon).  Refused, with nothing changed, when one of those
// fields no longer holds the value the change set (the error names field,
// object, expected and found value) or when the cluster lacks the whole GPUs
// the workloads need afterwards (it says how many are missing).
StepOutcome RevertChange(const StepContext& ctx, const std::string& id);

}  // namespace kubeon::apply
