// Kubelet stand-in: starts pods bound to existing nodes.
//
// A Pending pod with spec.nodeName on a node that exists and is Ready (see
// IsNodeReady) becomes Running
// after settings.pod_startup_delay_ms (counted from the first time this
// controller saw it bound): phase Running, hostIP, podIP, startTime, the
// Initialized/ContainersReady/Ready/PodScheduled conditions True and a
// running, ready containerStatus per container.  Nothing else about pods
// changes (no crashes, no restarts).
#pragma once

#include <map>
#include <string>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class Kubelet : public Controller {
 public:
  const char* name() const override { return "kubelet"; }
  bool Reconcile(ControllerContext& ctx) override;
  bool WaitingOnClock() const override { return waiting_ > 0; }
  std::vector<std::string> Inputs() const override { return {kPods, kNodes}; }

 private:
  // pod key -> (uid, first seen bound) for pods waiting out the delay
  std::map<std::string, std::pair<std::string, TimePoint>> bound_since_;
  size_t waiting_ = 0;
  ChangeCursor cursor_;
};

// The status a started pod reports on `node` at time `now`.
json RunningPodStatus(const json& pod, const json& node, const std::string& now);

}  // namespace kubeon::kubesim
