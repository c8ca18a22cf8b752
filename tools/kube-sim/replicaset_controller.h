// ReplicaSet controller: keeps spec.replicas active pods per ReplicaSet.
//
// Missing pods are created from spec.template with the name
// "<rs>-<5 random chars>" and an ownerReference (controller: true); extra
// pods are deleted (gracefully, pod_deletion.h), unscheduled/pending/
// not-ready/newest first.  Pods are matched to their ReplicaSet by the
// controller ownerReference uid (no adoption of orphans).  Only active pods
// count (controller.FilterActivePods: not Succeeded/Failed and without a
// deletionTimestamp), so a Terminating pod is replaced at once.  Status
// (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas = pods
// Ready for spec.minReadySeconds, observedGeneration) is kept current; a
// ReplicaSet with a Ready pod not yet available is looked at again on the
// clock.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class ReplicaSetController : public Controller {
 public:
  const char* name() const override { return "replicaset"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kReplicaSets, kPods}; }
  bool WaitingOnClock() const override { return !waiting_available_.empty(); }

 private:
  ChangeCursor cursor_;
  std::set<std::pair<std::string, std::string>> waiting_available_;  // (namespace, name)
};

}  // namespace kubeon::kubesim
