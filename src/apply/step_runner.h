// The executor's step state machine: carries out one ScheduleStep of a plan
// on the live cluster (RunStep), rolls a half-done step back or finishes it
// after a crash (ResumeOrRollback), and reverts a finished step
// (RevertChange).  The `apply` / `revert` commands call these while holding
// the policy's Lease (lease.h); this file does not take the Lease.
//
// RunStep, in this order (issue 11, rules 4-7):
//  1. Re-checks the step's `needs` against the live cluster (free allocatable
//     per node and resource), first waiting for pods still terminating when
//     only their GPUs are missing (terminations.h); refuses a node cordoned
//     by anyone but this step.  A refusal writes nothing to the cluster.
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
//     replicas, no old pod still terminating; a StatefulSet with OnDelete is
//     moved pod by pod through the Eviction API).
//  9. Removes the taint and the annotations.  The change is `done`.
//
// Log first (rule 8): before every cluster write the ChangeRecord's
// undo_json (the typed step record, step_record.h) is updated with what that
// write changes (prior labels, taints, annotations, unschedulable, prior
// owner templates) and an "intent" entry is appended; after it an "ok"
// entry (step_journal.h).
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
// Fencing: before every cluster write the run checks StepContext::fence (the
// Lease renewed within its renew deadline, lease_revert.h).  Once it fails
// the run writes nothing more, to the cluster or the log, and ends
// kLeaseLost with the change left running for the Lease's next holder, who
// resumes it as after a crash.
//
// Crash points: StepOptions::write_observer is called after every
// successful cluster write (step_context.h); tests stop the run there, and
// the test-only binary kubeon-gpu-crashpoint SIGKILLs itself there.
//
// The parts, one concept a file, each with its test beside it:
//   step_context.h        names, artifacts, options, outcome
//   step_record.h         the typed, versioned step record (undo data, phase)
//   step_journal.h        the change record, intent before every write, crash points
//   step_wait.h           polling and the hard deadline
//   step_goal.h           what a run sets, from a step or from the record
//   gpu_capacity.h        one GPU accounting for the step's check and the revert's
//   terminations.h        waiting out pods that still hold GPUs while they terminate
//   node_ops.h            cordon, annotations, reservation taint, cleanup
//   operator_configmaps.h the GPU Operator's ConfigMaps
//   eviction.h            emptying a node through the Eviction API (drain.go)
//   label_handshake.h     nvidia.com/mig.config and device-plugin.config handshakes
//   owner_rollout.h       owner patches and rollouts
//   step_machine.h        the phases and their transitions (the only file that knows them)
//   revert.h              the revert's goal and its refusals
//   lease_revert.h        a revert under the policy's Lease, for the CLI and the controller
#pragma once

#include <string>
#include <vector>

#include "apply/step_context.h"
#include "plan/plan.h"

namespace kubeon::apply {

// Runs `step` (see the file comment).  The change record step.id is created
// (state running) when the store lacks it; an existing one moves to running.
// A step whose record is `done` is not taken again (kDone, no write); one
// left `running` by a crash is refused until ResumeOrRollback handled it.
// A refusal before any write (capacity, a node cordoned by someone else)
// is kRolledBack with the cause, and the record becomes rolled-back.
// REQUIRES: step.id non-empty; the caller holds the policy's Lease.
StepOutcome RunStep(const StepContext& ctx, const plan::ScheduleStep& step);

// For every change the log shows `running`: finishes it when only the final
// cleanup (taint and annotations) is missing, else rolls it back from its
// undo data; a revert left half way is rolled back to the change's result.
// Idempotent: safe to repeat after another crash.  One outcome per change
// it touched.  A change whose record this version cannot read (a newer
// version's) is not touched; its outcome says why.
std::vector<StepOutcome> ResumeOrRollback(const StepContext& ctx);

// Restores exactly the fields `done` change `id` set (node config labels,
// owners' templates) through the same safe sequence: its nodes cordoned
// (the owners' restored pods must not land there while they still run
// slices), owners back to their prior templates (with whole GPUs free
// elsewhere their rollouts, within maxUnavailable, carry the pods there
// first, so no PDB blocks what follows), then per node evict its GPU pods,
// config back (an empty prior MIG label becomes all-disabled), uncordon; no
// reservation taint.  Refused, with
// nothing changed, when one of those fields no longer holds the value the
// change set (the error names field, object, expected and found value) or
// when the cluster lacks the whole GPUs the workloads need afterwards (it
// says how many are missing); see revert.h.
StepOutcome RevertChange(const StepContext& ctx, const std::string& id);

}  // namespace kubeon::apply
