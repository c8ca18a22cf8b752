// The Kubernetes objects of a SyntheticCluster: as the JSON List that
// `kubectl get nodes,pods,poddisruptionbudgets,deployments,statefulsets,
// replicasets -A -o json` prints (cluster.json), and as the model::Cluster
// that model::ParseClusterJson makes of it.
//
// The List: {"apiVersion": "v1", "items": [...], "kind": "List",
// "metadata": {"resourceVersion": ""}}, keys sorted and indented by four
// spaces as kubectl prints them; items grouped by kind in the order of the
// command (Nodes, Pods, PodDisruptionBudgets, Deployments, StatefulSets,
// ReplicaSets), each kind sorted by namespace and name as the API server
// lists them.  Objects carry what a real cluster shows: GFD labels and
// capacity on GPU nodes, owner references (Pod -> ReplicaSet -> Deployment,
// Pod -> StatefulSet, Pod -> Job, Pod -> DaemonSet for dcgm-exporter),
// container resources with nvidia.com/gpu in limits (and in requests for some
// workloads), Running status with Ready conditions, and PodDisruptionBudget
// status computed from the pods as the disruption controller does.
//
// BuildModelCluster gives the same model::Cluster, field for field, without
// going through text (synthetic_test compares the two).
#pragma once

#include <functional>
#include <string_view>

#include "model/cluster.h"
#include "model/status.h"
#include "gen-cluster/spec.h"

namespace kubeon::gencluster {

// Writes cluster.json to `sink`, one item at a time.  compact: each item on
// one line without the fields kubeon does not read (node addresses, images
// and system info, other conditions, container images, env and ports, pod
// and controller status, managedFields but their manager, ...): a smaller
// file (the size of the issue 13 measurements) that gives the same
// model::Cluster.
Status WriteClusterJson(const SyntheticCluster& cluster, const std::function<bool(std::string_view)>& sink,
                        bool compact = false);

// What model::ParseClusterJson returns for WriteClusterJson's text.
model::Cluster BuildModelCluster(const SyntheticCluster& cluster);

}  // namespace kubeon::gencluster
