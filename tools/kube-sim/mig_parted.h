// What the simulated mig-manager knows: the mig-parted config format, and
// how a config is checked against a node's GPUs.
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
// Geometry is the project's MIG catalog (data/mig-catalog.json, through
// kubeon_mig: src/mig/catalog.h, src/mig/layout.h); nothing about GPU models
// is hard-coded here.  A node's GPU is the catalog model matching the GFD
// labels nvidia.com/gpu.product and nvidia.com/gpu.memory (MiB); it is MIG
// capable when the label nvidia.com/mig.capable says "true", or, without
// that label, when the catalog says so.  A GPU the config puts in MIG mode
// must be of a catalog model (else the config fails: "GPU model \"X\" is
// not in the MIG catalog"), MIG capable, and its mig-devices must be a
// placement kubeon::mig::PlaceLayout accepts; its error is passed through.
// device-filter entries select a GPU whose model lists the PCI id
// (compared case-insensitively); on an unknown model they select nothing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "api_error.h"
#include "mig/catalog.h"

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

// The catalog model for a product label and its memory (MiB, 0 = unknown):
// kubeon::mig::MigCatalog::Builtin().MatchProduct.  nullptr when the
// catalog does not know the product.
const mig::GpuModel* IdentifyGpuModel(const std::string& product, int64_t memory_mib);

// Checks one GPU's instances ({profile: count}) with kubeon::mig::PlaceLayout.
Outcome<bool> ValidateGpuLayout(const mig::GpuModel& model, const std::map<std::string, int>& devices);

// A node's GPUs, as the GFD labels describe them (all GPUs of a node are alike).
struct NodeGpu {
  std::string product;                   // nvidia.com/gpu.product
  const mig::GpuModel* model = nullptr;  // IdentifyGpuModel; nullptr = not in the catalog
  bool mig_capable = false;              // nvidia.com/mig.capable, else model->mig_capable
};

// The NodeGpu for the labels; mig_capable_label is the value of
// nvidia.com/mig.capable, "" when the node has no such label.
NodeGpu DescribeNodeGpu(const std::string& product, int64_t memory_mib, const std::string& mig_capable_label);

struct NodeMigResult {
  int full_gpus = 0;  // GPUs with MIG disabled
  int mig_gpus = 0;
  std::map<std::string, int64_t> devices;  // profile -> instances on the node
};

// What a config asks of one GPU: MIG mode and, when enabled, its instances
// ({profile: count}, no zero counts).
struct GpuMigTarget {
  bool mig_enabled = false;
  std::map<std::string, int> devices;
  bool operator==(const GpuMigTarget& o) const { return mig_enabled == o.mig_enabled && devices == o.devices; }
};

// The per-GPU targets of a config's entries on a node with `gpu_count`
// GPUs (index = GPU index).  GPUs no entry selects keep MIG disabled.
// Errors as ApplyMigConfig.
Outcome<std::vector<GpuMigTarget>> PlanMigConfig(const std::vector<MigConfigEntry>& entries, int gpu_count,
                                                  const NodeGpu& gpu);

// Applies a config's entries to a node with `gpu_count` GPUs.  GPUs no
// entry selects keep MIG disabled.  Errors name the GPU index and, for an
// invalid layout, the catalog model.
Outcome<NodeMigResult> ApplyMigConfig(const std::vector<MigConfigEntry>& entries, int gpu_count,
                                      const NodeGpu& gpu);

}  // namespace kubeon::kubesim
