// The kubelet's device manager: at admission each pod bound to a node that
// requests nvidia.com/gpu, nvidia.com/gpu.shared or nvidia.com/mig-<p>
// (.shared) gets specific devices of the node (NodeGpus), and keeps them
// until its object is removed from the store (a Terminating or finished
// pod still holds them).
//
// A pod not yet started that cannot get every device it asks for fails as
// the kubelet fails it: phase Failed, reason UnexpectedAdmissionError,
// message "Allocate failed due to requested number of devices unavailable
// for <resource>. ...".  A pod already running when first seen (from a
// snapshot) gets what is free.  A device may be shared by as many pods as
// the node advertises per device (time-slicing replicas: capacity of the
// resource / devices of that kind).
//
// Runs after the scheduler and before the kubelet, so a pod is admitted
// before it starts.
#pragma once

#include <string>
#include <vector>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

// The GPU devices a pod requests, with the node's replicas per device.
std::vector<DeviceRequest> GpuDeviceRequests(const json& pod, const json& node, const NodeGpuState& gpus);

class DeviceManager : public Controller {
 public:
  const char* name() const override { return "device-manager"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kPods}; }

 private:
  // Assigns devices to one pod; returns true if it wrote (a failed admission).
  bool Admit(ControllerContext& ctx, const json& pod);
  ChangeCursor cursor_;
};

}  // namespace kubeon::kubesim
