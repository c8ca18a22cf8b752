// The pods/eviction subresource (policy/v1 and policy/v1beta1 Eviction).
//
// Follows pkg/registry/core/pod/storage/eviction.go:
//  - pods that are Pending, Succeeded, Failed or being deleted are deleted
//    without consulting budgets;
//  - more than one matching PodDisruptionBudget: 500;
//  - a pod that is not Ready may be evicted when the budget is healthy
//    (currentHealthy >= desiredHealthy > 0) or the PDB's
//    unhealthyPodEvictionPolicy is AlwaysAllow;
//  - otherwise disruptionsAllowed (recomputed from the store) must be > 0,
//    else 429 TooManyRequests "Cannot evict pod as it would violate the
//    pod's disruption budget." with a DisruptionBudget cause; on success the
//    PDB status is written with one disruption fewer and the pod deleted
//    gracefully (pod_deletion.h; deleteOptions.gracePeriodSeconds honoured).
// Injected refusals (faults.h refuseEviction) answer first.  dryRun
// (?dryRun=All or deleteOptions.dryRun) checks everything and writes nothing.
// Success is 201 with a Status body.
#pragma once

#include <string>

#include "faults.h"
#include "store.h"

namespace kubeon::kubesim {

// `body` is the parsed Eviction (may be null when the request had none).
Outcome<json> EvictPod(Store& store, Faults& faults, const std::string& ns, const std::string& name,
                       const json& body, bool dry_run, TimePoint now);

}  // namespace kubeon::kubesim
