// DaemonSet controller: one pod per node the DaemonSet's pods should run
// on, as kube-controller-manager's daemon controller does.
//
// A node should run the pod when it is not being deleted, the template's
// spec.nodeSelector matches its labels, its required node affinity
// (nodeSelectorTerms, ORed) matches, and every NoSchedule/NoExecute taint is
// tolerated by the template's tolerations plus the ones the real controller
// adds to every DaemonSet pod (node.kubernetes.io/not-ready and
// unreachable NoExecute; disk-pressure, memory-pressure, pid-pressure and
// unschedulable NoSchedule): DaemonSet pods run on cordoned and NotReady
// nodes.  Missing pods are created, named <ds>-<5 random characters>, with
// those tolerations added, spec.nodeName set (the scheduler does not place
// them) and label pod-template-generation; duplicates, and pods on nodes
// that should not run one, are deleted — except that, as in the real
// controller, a pod already running on a node keeps running when the node
// only gained an untolerated NoSchedule taint (a NoExecute one removes it).
// Status counts follow the pods (such a pod is numberMisscheduled).
//
// A DaemonSet annotated kube-sim.kubeon.io/synthesized (snapshot.h: made up
// from a snapshot's pods, whose real node selection is unknown) only gets
// its status maintained (desired = the nodes its pods run on); its pods are
// neither created nor deleted.
#pragma once

#include <string>
#include <vector>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

inline constexpr const char* kSynthesizedAnnotation = "kube-sim.kubeon.io/synthesized";

// Where DaemonSet `ds` runs (NodeShouldRunDaemonPod): `run` = a pod should
// run on `node` (one is created); `keep` = a pod already there may continue
// (true when only NoSchedule taints, or the cordon, are untolerated).
struct DaemonPlacement {
  bool run = false;
  bool keep = false;
};
DaemonPlacement DaemonSetPlacement(const json& ds, const json& node);

class DaemonSetController : public Controller {
 public:
  const char* name() const override { return "daemonset"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kDaemonSets, kNodes, kPods}; }

 private:
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
