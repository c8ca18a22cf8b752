// Deployment controller: one ReplicaSet per pod template.
//
// The ReplicaSet whose template equals the Deployment's (ignoring the
// pod-template-hash label) is the new one; if none exists it is created as
// "<deployment>-<hash>" with the pod-template-hash label on its selector and
// template.  Rollout: the new ReplicaSet gets spec.replicas at once; old
// ones shrink as new pods become ready (RollingUpdate) or drop to 0 at once
// (Recreate, and the new one waits until their pods are gone).  Status
// (replicas, updatedReplicas, readyReplicas, availableReplicas,
// unavailableReplicas, observedGeneration, Available/Progressing
// conditions) is what `kubectl rollout status` reads.
#pragma once

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class DeploymentController : public Controller {
 public:
  const char* name() const override { return "deployment"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kDeployments, kReplicaSets}; }

 private:
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
