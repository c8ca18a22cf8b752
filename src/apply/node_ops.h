// The executor's writes to Node objects, each a read-modify-PUT with the
// read's resourceVersion (KubeClient::UpdateWithRetry) that re-checks the
// fields it changes, each journaled (intent before, ok after):
//
//  - CheckNodes: refuses a node cordoned by anyone but this change.  No write.
//  - PrepareNode: records the node's prior state in the run (once), then
//    annotates karpenter.sh/do-not-disrupt and
//    cluster-autoscaler.kubernetes.io/scale-down-disabled and, when it was
//    schedulable, cordons it with gpu.kubeon.io/cordoned-by=<id>: one write.
//  - ReserveAndUncordon: taints the node gpu.kubeon.io/step=<id>:NoSchedule
//    (with `reserve`) and uncordons it if this change cordoned it: one write.
//  - Recordon (rollback): cordons the node again if this change had cordoned
//    it and removes this change's step taint.
//  - CleanupNode: removes this change's step taint, puts the annotations
//    back to their prior values and uncordons a node this change cordoned.
//    No write when nothing is left to remove.
//  - RestorePausedLabels: nvidia.com/gpu.deploy.* labels mig-manager left
//    paused-for-mig-change (a run that died pending) back to true.
//  - StepTaintValues / HasStepTaint / RemoveStepTaint: the step taints on a
//    Node object, by the change they name (the one filter every write above
//    and foreign_changes.h use).
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apply/step_goal.h"
#include "apply/step_journal.h"

namespace kubeon::apply {

Status CheckNodes(StepJournal& j, const std::vector<NodeGoal>& goals);
Status PrepareNode(StepJournal& j, const NodeGoal& g);
Status ReserveAndUncordon(StepJournal& j, const std::string& node, bool reserve);
Status Recordon(StepJournal& j, const std::string& node, const NodeUndo& undo);
Status CleanupNode(StepJournal& j, const std::string& node, const NodeUndo& undo);
Status RestorePausedLabels(StepJournal& j, const std::string& node);

std::set<std::string> StepTaintValues(const nlohmann::json& node);
bool HasStepTaint(const nlohmann::json& node, const std::string& id);
// Removes change `id`'s step taint (spec.taints dropped when it ends up
// empty); returns whether there was one.
bool RemoveStepTaint(nlohmann::json& node, const std::string& id);

}  // namespace kubeon::apply
