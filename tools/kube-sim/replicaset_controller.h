// ReplicaSet controller: keeps spec.replicas active pods per ReplicaSet.
//
// Missing pods are created from spec.template with the name
// "<rs>-<5 random chars>" and an ownerReference (controller: true); extra
// pods are deleted, unscheduled/pending/not-ready/newest first.  Pods are
// matched to their ReplicaSet by the controller ownerReference uid (no
// adoption of orphans).  Status (replicas, fullyLabeledReplicas,
// readyReplicas, availableReplicas, observedGeneration) is kept current.
#pragma once

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class ReplicaSetController : public Controller {
 public:
  const char* name() const override { return "replicaset"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kReplicaSets, kPods}; }

 private:
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
