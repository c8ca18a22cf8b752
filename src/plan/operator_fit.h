// Operator fit: what the plan's artifacts need from the GPU Operator's
// install, and what the snapshot says the install is.
//
//  - OperatorNamespace: PlannerOptions::operator_namespace when set (flag
//    --operator-namespace), else the ClusterPolicy's status.namespace, else
//    "gpu-operator" (OpenShift installs use "nvidia-gpu-operator").
//  - CurrentOperatorState: the mig-parted ConfigMap in use today (the one the
//    ClusterPolicy's spec.migManager.config.name names, else ours from an
//    earlier run, else the operator's generated default-mig-parted-config),
//    when the snapshot carries it, and the nvidia.com/mig.config values nodes
//    carry today.
//  - FitWarnings: one sentence per mismatch that would stop the plan from
//    working as written: MIG strategy not "mixed", ConfigMap names the
//    ClusterPolicy does not point at, a device-plugin default key the
//    generated ConfigMap lacks, WITH_REBOOT on, or no ClusterPolicy at all.
// Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "model/cluster.h"
#include "plan/artifacts.h"
#include "plan/plan.h"
#include "plan/planner.h"

namespace kubeon::plan {

inline constexpr const char* kOperatorDefaultMigConfigMap = "default-mig-parted-config";

std::string OperatorNamespace(const model::Cluster& cluster, const PlannerOptions& options);

// REQUIRES: options.operator_namespace resolved (OperatorNamespace).
OperatorState CurrentOperatorState(const model::Cluster& cluster, const PlannerOptions& options);

// REQUIRES: plan's nodes and artifacts built.
std::vector<std::string> FitWarnings(const Plan& plan, const model::Cluster& cluster, const PlannerOptions& options);

}  // namespace kubeon::plan
