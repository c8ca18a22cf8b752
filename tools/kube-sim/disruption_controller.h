// Disruption controller: keeps every PodDisruptionBudget's status
// (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed,
// observedGeneration, DisruptionAllowed condition) equal to what pdb.h
// computes from the pods in the store.
//
// Controller scale lookups: a pod owned by a ReplicaSet that a Deployment
// controls counts the Deployment's spec.replicas; otherwise the
// ReplicaSet's or StatefulSet's.  Other owners (Job, DaemonSet, ...) have
// no scale, which makes percentage budgets and maxUnavailable fail safe.
#pragma once

#include <vector>

#include "controller.h"
#include "resources.h"
#include "pdb.h"

namespace kubeon::kubesim {

ScaleFinder StoreScaleFinder(const Store& store);
// Pods selected by the PDB, in key order (pointers into the store).
std::vector<const json*> PodsForPdb(const Store& store, const json& pdb);
PdbStatus PdbStatusFromStore(const Store& store, const json& pdb);

class DisruptionController : public Controller {
 public:
  const char* name() const override { return "disruption"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kPdbs, kPods, kReplicaSets, kDeployments, kStatefulSets}; }

 private:
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
