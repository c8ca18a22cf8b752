// PodDisruptionBudget arithmetic, as the Kubernetes disruption controller
// does it (pkg/controller/disruption).
//
//   maxUnavailable (int or "N%", percent rounded up against expectedPods):
//       expectedPods = sum of the scale of the pods' controllers,
//       desiredHealthy = max(0, expectedPods - maxUnavailable)
//   minAvailable int:  expectedPods = number of selected pods, desiredHealthy = value
//   minAvailable "N%": expectedPods = controllers' scale, desiredHealthy = ceil(N% of it)
//   currentHealthy = selected pods that are Ready and not being deleted
//   disruptionsAllowed = max(0, currentHealthy - desiredHealthy), 0 if expectedPods <= 0
//
// When a controller scale is needed and a pod has no controller, or its
// controller cannot be found, the status is a failure (the controller's
// "fail safe": disruptionsAllowed 0, condition SyncFailed).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

struct PdbStatus {
  int64_t expected_pods = 0;
  int64_t desired_healthy = 0;
  int64_t current_healthy = 0;
  int64_t disruptions_allowed = 0;
  std::string sync_error;  // non-empty: the fail-safe status

  // Writes the fields (and the DisruptionAllowed condition) into the PDB's
  // status, keeping unrelated status fields.
  void WriteTo(json* pdb, const std::string& now) const;
};

// A controller that owns pods: its uid (to count each once) and spec.replicas.
struct ControllerScale {
  std::string uid;
  int64_t replicas = 0;
};
// Returns the scale of the controller of `pod`, or an error message.
using ScaleFinder = std::function<Outcome<ControllerScale>(const json& pod)>;

// intstr.GetScaledValueFromIntOrPercent: an integer, or "N%" of `total`
// rounded up (round_up) or down.  Errors name the offending value.
Outcome<int64_t> ScaledValue(const json& int_or_percent, int64_t total, bool round_up);

// Whether the PDB selects the pod (same namespace, selector matches; a
// missing selector selects nothing, an empty one everything).
bool PdbSelectsPod(const json& pdb, const json& pod);

// REQUIRES: every pod in `pods` is selected by `pdb`.
PdbStatus ComputePdbStatus(const json& pdb, const std::vector<const json*>& pods,
                           const ScaleFinder& scale_of);

}  // namespace kubeon::kubesim
