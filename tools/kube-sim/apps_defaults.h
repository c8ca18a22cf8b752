// The API server's defaulting of apps/v1 workloads (pkg/apis/apps/v1/
// defaults.go), applied on create and update so that clients such as
// `kubectl rollout status` read the fields they expect:
//  - Deployment: spec.replicas 1, spec.strategy.type RollingUpdate with
//    rollingUpdate.maxUnavailable and maxSurge "25%" (each only when
//    absent), revisionHistoryLimit 10, progressDeadlineSeconds 600;
//  - StatefulSet: spec.replicas 1, podManagementPolicy OrderedReady,
//    updateStrategy.type RollingUpdate with rollingUpdate.partition 0,
//    revisionHistoryLimit 10;
//  - ReplicaSet: spec.replicas 1.
// Other kinds are left alone.  Objects loaded from snapshots are not
// defaulted (`kubectl get -o json` output already is).
#pragma once

#include <string>

#include "meta.h"

namespace kubeon::kubesim {

// `plural` is the resource ("deployments", "statefulsets", ...).
void ApplyAppsDefaults(const std::string& plural, json* obj);

}  // namespace kubeon::kubesim
