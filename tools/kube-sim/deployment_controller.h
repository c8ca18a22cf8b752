// Deployment controller: rollouts of pod templates through ReplicaSets, as
// pkg/controller/deployment does them.
//
//  - The new ReplicaSet is the (oldest) owned one whose template equals the
//    Deployment's, ignoring the pod-template-hash label; when none exists
//    it is created as "<deployment>-<hash>" with pod-template-hash on its
//    selector, template and labels, spec.minReadySeconds copied, and
//    deployment.kubernetes.io/revision = highest old revision + 1 (an old
//    ReplicaSet that becomes the new one again, a rollback, is renumbered
//    the same way; the Deployment carries the revision annotation too).
//    Orphaned ReplicaSets matching the selector are adopted.  A Deployment
//    loaded from a snapshot and not changed since (observedGeneration up to
//    date) keeps its newest ReplicaSet.
//  - RollingUpdate (deployment_rollout.h): scale the new ReplicaSet up
//    within maxSurge; if it did not grow, scale old ones (oldest first)
//    down within maxUnavailable, counting pods available after
//    minReadySeconds.  Recreate: old ReplicaSets to 0, then wait until
//    none of their pods exists any more (terminated, not just
//    Terminating), then create / scale up the new one.
//  - Once complete, old ReplicaSets with no pods beyond
//    spec.revisionHistoryLimit (default 10) are deleted, oldest revision
//    first.
//  - Status (syncRolloutStatus / calculateStatus): observedGeneration,
//    replicas, updatedReplicas, readyReplicas, availableReplicas,
//    unavailableReplicas; Available (MinimumReplicasAvailable when
//    available >= replicas - maxUnavailable) and, while
//    progressDeadlineSeconds (default 600) is set, Progressing:
//    NewReplicaSetCreated / FoundNewReplicaSet, ReplicaSetUpdated on every
//    progress (lastUpdateTime moves), NewReplicaSetAvailable when complete,
//    False ProgressDeadlineExceeded when lastUpdateTime + deadline passes
//    without progress (checked on the clock).
// Not simulated: spec.paused, proportional scaling of several active
// ReplicaSets on a replicas change (the rollout converges instead),
// collisionCount, ReplicaFailure conditions.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class DeploymentController : public Controller {
 public:
  const char* name() const override { return "deployment"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kDeployments, kReplicaSets, kPods}; }
  bool WaitingOnClock() const override { return !deadlines_.empty(); }

 private:
  ChangeCursor cursor_;
  // (namespace, name) -> when its progress deadline passes
  std::map<std::pair<std::string, std::string>, TimePoint> deadlines_;
};

}  // namespace kubeon::kubesim
