// Simulated NVIDIA GPU Operator (the operator itself, not its operands):
// it labels GPU nodes and runs its operands as DaemonSets, as
// gpu-operator's ClusterPolicy controller does.
//
// A GPU node is one labelled nvidia.com/gpu.present=true, or with
// nvidia.com/gpu.count, or advertising nvidia.com/gpu, nvidia.com/gpu.shared
// or nvidia.com/mig-* capacity.  Each GPU node gets
// nvidia.com/gpu.deploy.<operand>=true for device-plugin,
// gpu-feature-discovery, dcgm-exporter and (when nvidia.com/mig.capable is
// "true") mig-manager, unless it already carries a value (a "false" or
// "paused-for-mig-change" is kept).  While at least one GPU node exists,
// the operand DaemonSets (kOperands) exist in settings.operator_namespace,
// each selecting nodes by its deploy label; a DaemonSet of that name that
// the snapshot loader synthesised (snapshot.h) is taken over (same uid, so
// its pods are adopted) with the operator's spec.  Deleting one brings it
// back (unless the namespace is gone).
//
// The operands themselves: device_plugin.h (device plugin and GPU feature
// discovery), mig_manager.h; dcgm-exporter only runs.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "controller.h"
#include "resources.h"

namespace kubeon::kubesim {

struct OperandSpec {
  const char* component;  // the deploy label's suffix: nvidia.com/gpu.deploy.<component>
  const char* daemonset;  // DaemonSet name (also the pods' app label)
  const char* container;
  const char* image;
};
// device plugin, GPU feature discovery, dcgm-exporter, mig-manager.
const std::vector<OperandSpec>& Operands();
const OperandSpec& OperandFor(const std::string& component);

// "nvidia.com/gpu.deploy.<component>".
std::string DeployLabel(const std::string& component);
bool IsGpuNode(const json& node);
// The value of a node label, "" when absent.
std::string NodeLabel(const json& node, const std::string& key);
// The active pods of DaemonSets in `ns` (by controlling owner name):
// (daemonset name, node name) -> pod key.
using OperandPodIndex = std::map<std::pair<std::string, std::string>, std::string>;
OperandPodIndex IndexOperandPods(const Store& store, const std::string& ns);
// The pod in `index` for (daemonset, node), or nullptr.
const json* OperandPod(const Store& store, const OperandPodIndex& index, const std::string& daemonset,
                       const std::string& node);

// Calls fn(node, pod) for every GPU node (or only those named in `only`),
// in name order, with copies of the node and of the active pod the
// operand's DaemonSet (`component`, see Operands()) runs there (nullopt when
// none): fn may write both.
void ForEachGpuNode(const Store& store, const std::string& ns, const std::string& component,
                    const std::optional<std::set<std::string>>& only,
                    const std::function<void(const json& node, const std::optional<json>& pod)>& fn);

// The nodes an operand agent must look at since its cursor: nodes that
// changed and nodes whose pods in `ns` changed; nullopt = every node (first
// run, history compacted, or ConfigMap ns/`configmap` changed).  Advances
// the cursor.
std::optional<std::set<std::string>> ChangedGpuNodes(ChangeCursor& cursor, const Store& store, const std::string& ns,
                                                     const std::string& configmap);

class GpuOperator : public Controller {
 public:
  const char* name() const override { return "gpu-operator"; }
  bool Reconcile(ControllerContext& ctx) override;
  std::vector<std::string> Inputs() const override { return {kNodes, kDaemonSets}; }

 private:
  bool EnsureDaemonSets(ControllerContext& ctx);
  ChangeCursor cursor_;
  bool has_gpu_nodes_ = false;
};

}  // namespace kubeon::kubesim
