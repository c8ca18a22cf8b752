// The cluster as the planner sees it: nodes, GPU pods, PodDisruptionBudgets
// and the workloads (controlling owners) the pods belong to.
//
// Built from a `kubectl get nodes,pods,poddisruptionbudgets,deployments,
// statefulsets,replicasets -A -o json` List (see snapshot_json.h) or from the
// Kubernetes API.  Plain data: no I/O, no behaviour beyond small helpers.
//
// Invariants after parsing: every Pod::workload is filled (a bare pod is its
// own workload, kind "Pod"); 0 <= Node::gpu_count <= kMaxGpusPerNode and
// every GPU quantity is an integer within the caps of snapshot_json.h (GPU and
// MIG resources are counted, never fractional); hourly prices are finite,
// 0 to kMaxHourlyPriceUsd (prices.h); no two nodes, pods, PDBs or controllers
// share kind, namespace and name.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "model/labels.h"

namespace kubeon::model {

inline constexpr const char* kGpuResource = "nvidia.com/gpu";
inline constexpr const char* kSharedGpuResource = "nvidia.com/gpu.shared";
inline constexpr const char* kMigResourcePrefix = "nvidia.com/mig-";
// Where the GPU Operator runs unless its ClusterPolicy or the user says
// otherwise (OpenShift installs use "nvidia-gpu-operator").
inline constexpr const char* kDefaultOperatorNamespace = "gpu-operator";

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
  bool operator==(const Taint&) const = default;  // field by field (tests compare readers)
};

struct Node {
  std::string name;
  Labels labels;
  Labels annotations;
  std::vector<Taint> taints;
  bool unschedulable = false;  // cordoned (spec.unschedulable)
  bool ready = true;           // Ready condition True (true when absent)
  std::string instance_type;   // node.kubernetes.io/instance-type (or beta label)
  // GPU Feature Discovery labels.
  std::string gpu_product;      // nvidia.com/gpu.product, "" when absent
  int gpu_count = 0;            // nvidia.com/gpu.count, else capacity nvidia.com/gpu
  int64_t gpu_memory_mib = 0;   // nvidia.com/gpu.memory (MiB), 0 when absent
  bool mig_capable = false;     // nvidia.com/mig.capable == "true"
  std::string mig_strategy;     // nvidia.com/mig.strategy: single|mixed|""
  std::optional<double> hourly_price_usd;  // annotation kubeon.io/hourly-price-usd
  std::map<std::string, int64_t> capacity;     // integer resources only
  std::map<std::string, int64_t> allocatable;  // integer resources only
  bool operator==(const Node&) const = default;  // field by field (tests compare readers)
};

struct OwnerRef {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool operator==(const OwnerRef&) const = default;  // field by field (tests compare readers)
};

// The controlling owner at the top of the chain (Deployment via ReplicaSet,
// StatefulSet, Job, CronJob via Job, DaemonSet, ...), or the pod itself.
struct WorkloadRef {
  std::string namespace_;
  std::string kind;
  std::string name;
  // By namespace, kind, name; one three-way compare per field (std::tie's
  // tuple order compares equal fields twice).
  bool operator<(const WorkloadRef& o) const {
    if (int c = namespace_.compare(o.namespace_); c != 0) return c < 0;
    if (int c = kind.compare(o.kind); c != 0) return c < 0;
    return name < o.name;
  }
  bool operator==(const WorkloadRef& o) const {
    return namespace_ == o.namespace_ && kind == o.kind && name == o.name;
  }
  std::string Display() const { return namespace_ + "/" + name; }  // "ns/name"
};

// The hash of a (namespace, kind, name) triple, for unordered containers
// keyed by WorkloadRef or by views of the same three strings (the snapshot
// reader's controller index).
inline size_t HashWorkloadKey(std::string_view namespace_, std::string_view kind, std::string_view name) noexcept {
  size_t h = std::hash<std::string_view>{}(namespace_);
  for (std::string_view s : {kind, name}) h ^= std::hash<std::string_view>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

// For unordered containers keyed by WorkloadRef (lookups at cluster scale).
struct WorkloadRefHash {
  size_t operator()(const WorkloadRef& r) const noexcept { return HashWorkloadKey(r.namespace_, r.kind, r.name); }
};

struct ContainerResources {
  std::string name;
  bool init = false;
  std::map<std::string, int64_t> requests;  // integer extended resources only
  std::map<std::string, int64_t> limits;
  bool operator==(const ContainerResources&) const = default;  // field by field (tests compare readers)
};

// One term of spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
// (the terms are ORed; the requirements inside a term are ANDed).
struct NodeSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist | Gt | Lt
  std::vector<std::string> values;
  bool operator==(const NodeSelectorRequirement&) const = default;  // field by field (tests compare readers)
};
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;
  bool operator==(const NodeSelectorTerm&) const = default;  // field by field (tests compare readers)
};

// One entry of spec.tolerations.
struct Toleration {
  std::string key;     // "" with operator Exists tolerates every taint
  std::string op;      // "Equal" (the default) | "Exists"
  std::string value;
  std::string effect;  // "" tolerates every effect
  bool Tolerates(const Taint& t) const;
  bool operator==(const Toleration&) const = default;  // field by field (tests compare readers)
};

// Where a pod may run: what its spec says about nodes.  A pod template's
// copy (Controller::pod_template) lets the schedule tell where a recreated pod
// may go.
struct Placement {
  Labels node_selector;                                // spec.nodeSelector
  std::vector<Toleration> tolerations;                 // spec.tolerations
  std::vector<NodeSelectorTerm> required_node_terms;   // required node affinity (terms ORed)
  // True when the node's labels, name, taints and schedulability let a new
  // pod with this placement be scheduled there (the scheduler's filters for
  // nodeSelector, required node affinity and NoSchedule/NoExecute taints;
  // a cordoned node takes no new pod).
  bool AllowsNode(const Node& node) const;
  // The node name when required node affinity names exactly one node
  // (kubernetes.io/hostname In [x] or metadata.name In [x] in every term).
  std::string PinnedNode() const;
  bool operator==(const Placement&) const = default;  // field by field (tests compare readers)
};

struct Pod {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node_name;  // "" when not scheduled
  std::string phase;      // Pending | Running | Succeeded | Failed | Unknown
  Labels labels;
  std::optional<OwnerRef> controller;  // the pod's direct controller
  std::vector<ContainerResources> containers;  // init containers flagged
  WorkloadRef workload;
  // Whole GPUs the pod holds: max(sum over app containers, max over init
  // containers) of nvidia.com/gpu (limit when no request, as the device
  // plugin's extended resources require request == limit).
  int64_t gpus = 0;
  // Other GPU resources already held (nvidia.com/mig-*, nvidia.com/gpu.shared).
  std::map<std::string, int64_t> gpu_slices;
  bool daemonset = false;
  // cluster-autoscaler.kubernetes.io/safe-to-evict, when the annotation is "true" or "false".
  std::optional<bool> safe_to_evict;
  // Volumes whose data lives on the node (emptyDir not in Memory, hostPath),
  // less those named in cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes.
  std::vector<std::string> local_volumes;
  std::vector<NodeSelectorTerm> required_node_terms;
  Labels node_selector;                  // spec.nodeSelector
  std::vector<Toleration> tolerations;   // spec.tolerations
  int64_t termination_grace_period_seconds = 30;  // spec.terminationGracePeriodSeconds
  // The pod's node filters as one Placement (required_node_terms included).
  Placement PlacementOf() const { return {node_selector, tolerations, required_node_terms}; }
  bool Active() const { return phase == "Running" || phase == "Pending"; }
  bool operator==(const Pod&) const = default;  // field by field (tests compare readers)
};

struct LabelSelectorRequirement {
  std::string key;
  std::string op;  // In | NotIn | Exists | DoesNotExist
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;  // field by field (tests compare readers)
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;
  bool empty_selects_all = true;  // an empty selector ({}) selects everything
  bool Matches(const Labels& labels) const;
  bool operator==(const LabelSelector&) const = default;  // field by field (tests compare readers)
};

struct PodDisruptionBudget {
  std::string namespace_;
  std::string name;
  LabelSelector selector;
  std::string min_available;    // "" | "2" | "50%"
  std::string max_unavailable;  // "" | "1" | "25%"
  int disruptions_allowed = 0;  // status.disruptionsAllowed
  int expected_pods = 0;        // status.expectedPods
  bool operator==(const PodDisruptionBudget&) const = default;  // field by field (tests compare readers)
};

// A controller object (Deployment, StatefulSet, ReplicaSet) as read.
struct Controller {
  std::string namespace_;
  std::string kind;
  std::string name;
  std::string uid;
  int replicas = 0;
  std::optional<OwnerRef> owner;  // e.g. ReplicaSet -> Deployment
  Labels labels;
  Labels annotations;
  std::vector<std::string> managers;  // metadata.managedFields[].manager, in order, no duplicates
  // Deployment spec.strategy.type ("RollingUpdate" when absent) and the raw
  // rollingUpdate.maxSurge / maxUnavailable ("" when absent: Kubernetes'
  // default "25%"); StatefulSet spec.updateStrategy.type ("RollingUpdate"
  // when absent) and rollingUpdate.partition / maxUnavailable.
  std::string strategy;
  std::string max_surge;
  std::string max_unavailable;
  int partition = 0;
  Placement pod_template;  // spec.template.spec's node filters
  bool operator==(const Controller&) const = default;  // field by field (tests compare readers)
};

// What the GPU Operator's ClusterPolicy (nvidia.com/v1) says about the parts
// the plan's artifacts must fit; fields are "" when the policy leaves them unset.
struct GpuOperatorPolicy {
  std::string name;
  std::string namespace_;                   // status.namespace: where the operator runs
  std::string mig_strategy;                 // spec.mig.strategy
  std::string mig_config_name;              // spec.migManager.config.name
  std::string mig_config_default;           // spec.migManager.config.default
  std::string device_plugin_config_name;    // spec.devicePlugin.config.name
  std::string device_plugin_config_default; // spec.devicePlugin.config.default
  bool with_reboot = false;                 // spec.migManager.env WITH_REBOOT=true
  bool operator==(const GpuOperatorPolicy&) const = default;  // field by field (tests compare readers)
};

struct ConfigMap {
  std::string namespace_;
  std::string name;
  std::map<std::string, std::string> data;
  bool operator==(const ConfigMap&) const = default;  // field by field (tests compare readers)
};

struct Cluster {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<Controller> controllers;
  std::optional<GpuOperatorPolicy> gpu_operator;  // the ClusterPolicy, when the snapshot has one
  std::vector<ConfigMap> config_maps;             // ConfigMaps the snapshot carries (the operator's)
  // What the reader skipped or doubted, one line each naming the file and item;
  // the planner copies them into every Plan::warnings.
  std::vector<std::string> warnings;

  const Node* FindNode(const std::string& name) const;
  const ConfigMap* FindConfigMap(const std::string& namespace_, const std::string& name) const;
  bool operator==(const Cluster&) const = default;  // field by field (tests compare readers)
};

}  // namespace kubeon::model
