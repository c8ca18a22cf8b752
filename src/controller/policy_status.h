// PolicyStatus: the status subresource of a GpuPolicy as the controller
// writes it (shape in /work DESIGN / deploy/crd-gpupolicy.yaml):
//   {observedGeneration, conditions: [Ready, WindowOpen, Degraded],
//    lastPlan: {time, gpusBefore, gpusAfter, monthlySavingsUsd, steps,
//               feasible, planHash}, pendingApprovals: [change ids],
//    lastChange: {name, state, time}, conflicts: [...], message}
//
// Conditions (metav1.Condition: type, status "True"/"False", reason
// CamelCase, message, lastTransitionTime, observedGeneration):
//  - Ready: True (Planned) with a plan; False with the view's error reason
//    (InvalidPolicy, OverlappingPolicies, PlanFailed).
//  - WindowOpen: True (InsideWindow) / False (OutsideWindow, or NoWindow for
//    a policy without one).
//  - Degraded: True with the first that applies of the view's error reason,
//    ChangeFailed (the last change failed or rolled back), Infeasible (no
//    order of steps fits), SplitWorkload (conflicts), ApprovalsNotGuarded;
//    else False (AsExpected).
// A condition whose status is unchanged from `previous` keeps its
// lastTransitionTime; otherwise it is `now`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/policy_view.h"
#include "kube/client.h"
#include "model/status.h"
#include "plan/plan.h"

namespace kubeon::controller {

struct LastChange {
  std::string name;   // change id
  std::string state;  // audit::ChangeStateName
  std::string time;   // RFC 3339
};

struct PolicyStatusInputs {
  std::vector<std::string> pending_approvals;  // ids of changes proposed and waiting for an approval
  std::optional<LastChange> last_change;
  bool approvals_guarded = true;  // false: the approvals VAP is missing (approvals are not trusted)
  std::string now;                // RFC 3339 UTC
};

// SHA-256 over the schedule's step content hashes and feasibility: equal
// hashes mean the same changes would be proposed.
std::string PlanHash(const plan::Plan& plan);

// The status to write for `view`; `previous` is the object's current status
// (null or {} when it has none).
nlohmann::json BuildPolicyStatus(const nlohmann::json& previous, const PolicyView& view,
                                 const PolicyStatusInputs& inputs);

// PUT /apis/gpu.kubeon.io/v1/gpupolicies/NAME/status with the object's
// resourceVersion (re-read and retried on a conflict); `build` makes the
// status from the current one.  An object deleted meanwhile is not an error
// (the result is then an empty object).
kube::ApiResult<nlohmann::json> WritePolicyStatus(kube::KubeClient& client, const std::string& name,
                         const std::function<nlohmann::json(const nlohmann::json& previous)>& build);

}  // namespace kubeon::controller
