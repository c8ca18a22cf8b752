// Pod terminator: the kubelet's side of a graceful deletion.
//
// A pod with metadata.deletionTimestamp (pod_deletion.h) is Terminating:
// the first time this controller sees it, the pod reports not ready (the
// Ready and ContainersReady conditions turn False; the phase is kept), and
// its containers "exit" after a shutdown time of
//     min(deletionGracePeriodSeconds, settings.pod_shutdown_ms)
// (pod_shutdown_ms -1: the whole grace period), counted from that first
// sight in ctx.now; then the pod object is removed from the store (the
// DELETED event).  A shortened grace period shortens the wait from the same
// start.  The start is kept in memory: after a restart from a state file a
// terminating pod waits its shutdown time again from the first reconcile.
// Until it is removed the pod keeps its node, its resources and its devices.
#pragma once

#include <map>
#include <string>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

class PodTerminator : public Controller {
 public:
  const char* name() const override { return "pod-terminator"; }
  bool Reconcile(ControllerContext& ctx) override;
  bool WaitingOnClock() const override { return !started_.empty(); }
  std::vector<std::string> Inputs() const override { return {kPods}; }

 private:
  // pod key -> (uid, when its termination was first seen)
  std::map<std::string, std::pair<std::string, TimePoint>> started_;
  ChangeCursor cursor_;
};

// The shutdown time of a pod given `grace_seconds`, in ms.
int64_t PodShutdownMs(int64_t grace_seconds, const Settings& settings);

}  // namespace kubeon::kubesim
