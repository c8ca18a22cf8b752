// The simulated GPUs of every node and which pod holds which device: the
// hardware's MIG state (mode and instances per GPU) and the kubelet device
// manager's checkpoint (device -> pod), in one place because a MIG change
// and a device assignment must agree on it.
//
// A node's GPUs are first seen (Ensure) as the node describes them:
// nvidia.com/gpu.count GPUs (else the advertised nvidia.com/gpu capacity,
// divided by nvidia.com/gpu.replicas, plus one GPU when MIG devices are
// advertised); the first `nvidia.com/gpu` of them have MIG disabled, the
// rest MIG enabled with the advertised nvidia.com/mig-<profile> instances
// dealt out one by one across them (a snapshot does not say which GPU
// holds which instance).
//
// Devices are held by pod key ("ns/name", with the pod's uid kept to tell
// a recreated pod from the old one).  A whole GPU (MIG disabled) or a MIG
// device may be shared by up to `replicas` pods (time-slicing); otherwise
// one pod.  Every device has a stable id: "GPU-<hash>" for a GPU, and
// "MIG-<hash>" for a MIG device (a new id each time MIG devices are
// recreated).
//
// Invariants: gpus[i].index == i; a MIG-disabled GPU has no MIG devices;
// every holder listed on a device has an entry in holder_uids().
// Not thread-safe: used with the Simulator lock held.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api_error.h"
#include "meta.h"
#include "mig_parted.h"

namespace kubeon::kubesim {

struct SimMigDevice {
  std::string profile;
  std::string uuid;
  std::vector<std::string> holders;  // pod keys
};

struct SimGpu {
  int index = 0;
  std::string uuid;
  bool mig_enabled = false;
  std::vector<SimMigDevice> mig;     // empty unless mig_enabled
  std::vector<std::string> holders;  // pod keys holding the whole GPU (MIG disabled)

  bool Busy() const;                 // some pod holds it or one of its MIG devices
  GpuMigTarget Geometry() const;     // mode and instance counts
};

struct NodeGpuState {
  std::vector<SimGpu> gpus;
  uint64_t generation = 0;  // bumped on every geometry change (the device plugin re-reads)
};

// What a pod asked for and was given on one resource.
struct DeviceRequest {
  std::string resource;  // nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-<p>[.shared]
  int64_t count = 0;
  int replicas = 1;  // pods that may share one device of this resource
};

class NodeGpus {
 public:
  // The node's state, created from the node object on first sight.
  NodeGpuState& Ensure(const json& node);
  NodeGpuState* Find(const std::string& node);
  const NodeGpuState* Find(const std::string& node) const;

  // Sets the node's GPUs to `targets` (one per GPU).  GPUs whose geometry
  // changes get new MIG devices (new ids, no holders).  REQUIRES: the node
  // was Ensure()d and no pod holds a device on a GPU that changes.
  void Reconfigure(const std::string& node, const std::vector<GpuMigTarget>& targets);
  // Sets MIG mode per GPU as after a reboot: MIG instances do not survive
  // one, the mode does.  Releases every holder on the node.
  void Reboot(const std::string& node, const std::vector<GpuMigTarget>& targets);

  // Gives `pod_key` devices of `node` for every request.  all_or_nothing:
  // on a shortfall nothing is assigned and the error names the resource as
  // the kubelet does; otherwise as many as are free are assigned.  A pod
  // already holding devices is left as it is (returns true).
  Outcome<bool> Assign(const std::string& node, const std::string& pod_key, const std::string& pod_uid,
                       const std::vector<DeviceRequest>& requests, bool all_or_nothing);
  // Frees every device the pod holds.  Returns true if it held any.
  bool Release(const std::string& pod_key);
  bool Holds(const std::string& pod_key) const { return holder_uids_.count(pod_key) > 0; }
  const std::map<std::string, std::string>& holder_uids() const { return holder_uids_; }

  // The GET /sim/devices document: per node, GPU index -> MIG devices -> holders.
  json View() const;
  // Persistence (--state-dir): everything above.
  json ToJson() const;
  Outcome<bool> FromJson(const json& j);

 private:
  std::map<std::string, NodeGpuState> nodes_;
  std::map<std::string, std::string> holder_uids_;  // pod key -> uid
  std::map<std::string, std::string> holder_node_;  // pod key -> node
};

}  // namespace kubeon::kubesim
