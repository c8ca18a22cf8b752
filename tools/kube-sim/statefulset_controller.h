// StatefulSet controller: pods "<sts>-<ordinal>" for ordinals [0, replicas).
//
// Missing ordinals are recreated from spec.template (OrderedReady: only
// when every lower ordinal is Running and Ready; Parallel: at once) with
// the labels statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index
// and controller-revision-hash.  Ordinals >= replicas are deleted, highest
// first.  When the template changes (metadata.generation moves past
// status.observedGeneration) a new revision "<sts>-<hash>" becomes
// status.updateRevision; with the RollingUpdate strategy the highest
// outdated pod (one whose controller-revision-hash label differs) is
// deleted (and recreated) whenever all pods are Ready.  A StatefulSet loaded
// unchanged keeps the updateRevision it came with.
#pragma once

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class StatefulSetController : public Controller {
 public:
  const char* name() const override { return "statefulset"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kStatefulSets, kPods}; }

 private:
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
