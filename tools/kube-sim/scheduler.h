// Scheduler: binds Pending pods without spec.nodeName to a node.
//
// A node fits when it is Ready, not cordoned (spec.unschedulable) unless the
// pod tolerates node.kubernetes.io/unschedulable, every NoSchedule/NoExecute
// taint is tolerated, spec.nodeSelector matches, required node affinity
// (nodeSelectorTerms, ORed) matches, and every requested resource (extended
// resources such as nvidia.com/gpu, nvidia.com/mig-*, nvidia.com/gpu.shared;
// cpu/memory unless disabled in the settings; the pod count) fits in
// allocatable minus what bound, non-terminal pods request (a Terminating pod
// holds its resources until it is gone).  Among fitting nodes
// the least-allocated (cpu, memory) wins, ties by name.  A pod that fits
// nowhere gets condition PodScheduled=False, reason Unschedulable, with a
// "0/N nodes are available: ..." message.  Only pods for
// "default-scheduler" (or no schedulerName) are handled.
#pragma once

#include <set>
#include <string>
#include <unordered_map>

#include "quantity.h"

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

// Whether the pod's tolerations tolerate the taint (v1.Toleration semantics:
// an empty toleration effect matches every effect; an empty key with
// operator Exists matches every taint; Exists ignores the value; Equal, or
// no operator, needs the same value; any other operator matches nothing).
bool ToleratesTaint(const json& pod, const json& taint);

class Scheduler : public Controller {
 public:
  const char* name() const override { return "scheduler"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kPods, kNodes}; }

 private:
  std::unordered_map<std::string, ResourceList> requests_;  // pod uid -> requests
  std::set<std::string> unschedulable_;                      // pod keys that fit nowhere last time
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
