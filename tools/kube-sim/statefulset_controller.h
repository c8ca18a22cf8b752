// StatefulSet controller: pods "<sts>-<ordinal>" for ordinals [0, replicas),
// as pkg/controller/statefulset (stateful_set_control.go) manages them.
//
// Revisions: status.updateRevision is "<sts>-<hash of spec.template>"
// (recomputed when metadata.generation moves past observedGeneration; a
// StatefulSet loaded unchanged keeps the one it came with) and every pod
// carries its revision in the controller-revision-hash label.
// status.currentRevision is the revision the set ran before; it becomes
// updateRevision once a RollingUpdate has every pod updated and Ready.
//
// One sync, as the real one:
//  1. ordinals [0, replicas): a missing one is created (at currentRevision
//     when RollingUpdate and ordinal < partition, or, without a partition,
//     ordinal < the number of current pods; else at updateRevision).  With
//     podManagementPolicy OrderedReady (the default) the sync stops at the
//     first ordinal it created, or that is Terminating, or that is not
//     Running and Ready; Parallel goes on.  A Terminating pod's ordinal is
//     only recreated once the old pod object is gone.
//  2. ordinals >= replicas are deleted (gracefully), highest first;
//     OrderedReady deletes one at a time and waits for it to be gone.
//  3. RollingUpdate: from the highest ordinal down to the partition, the
//     first pod not at updateRevision is deleted (and recreated by 1); the
//     walk stops at a pod that is not Running and Ready.  OnDelete: pods
//     are only replaced when someone deletes them.
// Status: observedGeneration, replicas (pods that exist), readyReplicas,
// availableReplicas (Ready for spec.minReadySeconds), currentReplicas and
// updatedReplicas (not Terminating, at that revision), currentRevision,
// updateRevision.
//
// Revision templates are kept in memory: a pod to be recreated at a
// currentRevision whose template this process never saw (loaded from a
// snapshot or state file) is created at updateRevision instead.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class StatefulSetController : public Controller {
 public:
  const char* name() const override { return "statefulset"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kStatefulSets, kPods}; }
  bool WaitingOnClock() const override { return !waiting_available_.empty(); }

 private:
  ChangeCursor cursor_;
  std::map<std::string, json> templates_;  // "<ns>/<revision>" -> pod template
  std::set<std::pair<std::string, std::string>> waiting_available_;  // (namespace, name)
};

}  // namespace kubeon::kubesim
