// Moving a step's owners (Deployments, StatefulSets) onto their new slices,
// or back:
//
//  - PatchOwner: records the owner's template and change annotation from
//    before (once per run), then applies the goal in one read-modify-PUT:
//    the plan's strategic merge patch (forward) or the whole template from
//    before (back), the step taint's toleration when asked, and the
//    gpu.kubeon.io/change annotation.  The template after is recorded for
//    the revert's drift check.  A revert's goal (OwnerGoal::restore_fields)
//    puts back only the fields its change set, onto the template as it is at
//    the write (RestoreFields), and refuses, writing nothing, when one of
//    them changed meanwhile.  A GitOps-managed owner is not patched unless
//    StepOptions::patch_gitops_owners: its patch is printed, logged as
//    skipped and returned in StepOutcome::gitops_patches.
//  - WaitRollout: until observedGeneration catches up, the updated, ready,
//    available (Deployment) replicas equal spec.replicas and no pod of the
//    owner (its selector) is still terminating (an old pod holds its GPUs
//    for its grace period), within rollout_deadline.  A StatefulSet with updateStrategy OnDelete is moved
//    pod by pod through the Eviction API (eviction.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "apply/step_goal.h"
#include "apply/step_journal.h"

namespace kubeon::apply {

Status PatchOwner(StepJournal& j, const OwnerGoal& g);
// kConflict naming the field of the owner's template (FirstDrift) that no
// longer holds what change `id` ("" while it is being reverted) set.
Status TemplateChangedError(const OwnerGoal& g, const nlohmann::json& before, const nlohmann::json& after,
                            const nlohmann::json& current, const std::string& id);
Status WaitRollout(StepJournal& j, const std::string& kind, const std::string& ns, const std::string& name);

}  // namespace kubeon::apply
