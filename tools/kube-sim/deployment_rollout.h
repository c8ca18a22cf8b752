// Deployment rollout arithmetic, as the Kubernetes Deployment controller
// does it (pkg/controller/deployment/util/deployment_util.go and
// rolling.go).  Pure functions of the Deployment and its ReplicaSets' counts.
//
//  - ResolveFenceposts: maxSurge ("25%" default) is scaled against
//    spec.replicas rounding UP, maxUnavailable ("25%" default) rounding
//    DOWN; when both resolve to 0, maxUnavailable is 1.  (Both given as 0 is
//    rejected when the Deployment is written, see ValidateRollingUpdate.)
//  - MaxUnavailable: 0 for Recreate or 0 replicas, else the resolved value
//    capped at spec.replicas.
//  - NewReplicaSetReplicas: the new ReplicaSet grows to at most
//    replicas + maxSurge pods counted over every ReplicaSet's spec.replicas.
//  - ScaleDownOldReplicaSets: how far each old ReplicaSet (oldest first)
//    shrinks in one step: first its unavailable pods (cleanupUnhealthyReplicas,
//    bounded by allPods - minAvailable - newRSUnavailable), then available
//    ones while more than replicas - maxUnavailable pods stay available
//    (scaleDownOldReplicaSetsForRollingUpdate).
#pragma once

#include <vector>

#include "api_error.h"
#include "meta.h"

namespace kubeon::kubesim {

struct Fenceposts {
  int64_t max_surge = 0;
  int64_t max_unavailable = 0;
};

// REQUIRES: `deploy` is a Deployment.  Errors name the bad IntOrString.
Outcome<Fenceposts> ResolveFenceposts(const json& deploy);
int64_t MaxUnavailable(const json& deploy);
int64_t MaxSurge(const json& deploy);

// The counts of one ReplicaSet the rollout looks at.
struct ReplicaSetCounts {
  int64_t spec_replicas = 0;
  int64_t available = 0;  // status.availableReplicas
};

// NewRSNewReplicas for RollingUpdate: `all_spec_replicas` sums every
// ReplicaSet's spec.replicas (the new one included).
int64_t NewReplicaSetReplicas(const json& deploy, int64_t all_spec_replicas, int64_t new_spec_replicas);

// The new spec.replicas of each of `old` (ordered oldest first) after one
// reconcileOldReplicaSets step.
std::vector<int64_t> ScaleDownOldReplicaSets(const json& deploy, const std::vector<ReplicaSetCounts>& old,
                                             const ReplicaSetCounts& new_rs);

// The apps/v1 validation of spec.strategy: maxSurge and maxUnavailable must
// be non-negative ints or percentages (maxUnavailable at most 100%), and not
// both 0; Recreate takes no rollingUpdate.  The message names the field as
// the API server does.
Outcome<bool> ValidateRollingUpdate(const json& deploy);

}  // namespace kubeon::kubesim
