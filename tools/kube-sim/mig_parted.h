// What the simulated mig-manager knows: the mig-parted config format and
// the MIG geometry of NVIDIA GPUs.
//
// Config (the ConfigMap key config.yaml, as mig-parted reads it):
//   version: v1
//   mig-configs:
//     <name>:
//       - devices: all | [0, 1, ...]
//         mig-enabled: true|false
//         mig-devices: {"1g.10gb": 7, ...}
//         device-filter: "0x233010DE" | ["0x...", ...]     (optional)
// Unknown keys, a wrong version and mistyped values are errors naming the
// config, the entry and the key.
//
// Geometry (reference/mig-facts.md): 8 memory slices and 7 compute slices
// (A30: 4 and 4); each profile has placements {starts}:size on the memory
// slices and a maximum instance count.  A layout is valid when its
// instances can be placed without overlapping memory slices and the
// compute slices add up to at most the GPU's.  GPUs are identified from the
// GFD labels nvidia.com/gpu.product and nvidia.com/gpu.memory (MiB); an
// unidentified MIG-capable GPU gets the generic check (names Ng.Mgb with
// N in {1,2,3,4,7}, at most 7 instances, compute slices <= 7).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

struct MigConfigEntry {
  bool all_devices = true;
  std::vector<int> devices;
  bool mig_enabled = false;
  std::map<std::string, int> mig_devices;
  std::vector<std::string> device_filter;  // upper-case "0xDDDDVVVV"
};
using MigConfigSet = std::map<std::string, std::vector<MigConfigEntry>>;

// `source` names the input in errors ("configmap gpu-operator/x key config.yaml").
Outcome<MigConfigSet> ParseMigPartedConfig(const std::string& yaml_text, const std::string& source);

struct MigProfile {
  std::string name;
  int compute_slices = 0;
  int memory_slices = 0;
  int max_instances = 0;
  std::vector<int> starts;
};

struct GpuModel {
  std::string name;  // "A100-40GB"
  int memory_slices = 8;
  int compute_slices = 7;
  std::vector<MigProfile> profiles;
  std::vector<std::string> device_ids;  // PCI "0xDDDD10DE"
  const MigProfile* Find(const std::string& profile) const;
};

// nullptr when the GPU is not MIG capable or not identified (see
// IsMigCapableProduct to tell the two apart).
const GpuModel* IdentifyGpuModel(const std::string& product, int64_t memory_mib);
bool IsMigCapableProduct(const std::string& product);

// Checks one GPU's instances; `model` nullptr = the generic check.
Outcome<bool> ValidateGpuLayout(const GpuModel* model, const std::map<std::string, int>& devices);

struct NodeMigResult {
  int full_gpus = 0;  // GPUs with MIG disabled
  int mig_gpus = 0;
  std::map<std::string, int64_t> devices;  // profile -> instances on the node
};

// Applies a config's entries to a node with `gpu_count` GPUs.  GPUs no
// entry selects keep MIG disabled.
Outcome<NodeMigResult> ApplyMigConfig(const std::vector<MigConfigEntry>& entries, int gpu_count,
                                      const GpuModel* model, bool mig_capable);

}  // namespace kubeon::kubesim
