// GPU capacity as the executor sees it on the live cluster, one accounting
// for the step's check and the revert's: per node, what it advertises
// (status.allocatable of nvidia.com/gpu, nvidia.com/gpu.shared and
// nvidia.com/mig-*) and what its bound, non-terminal pods request (those
// being deleted listed apart too: they hold their GPUs until they are gone,
// terminations.h); and what unbound (Pending) pods request.
//
//  - CheckNeeds: every plan::CapacityNeed holds, counting only nodes with
//    free units of the resource (among need.nodes when it names any).
//    kUnavailable "capacity changed since the plan: ..." otherwise; the step
//    then writes nothing.
//  - CheckWholeGpusForRevert: after a revert, the owners' pods, the
//    whole-GPU pods on the reverted nodes (evicted, they come back) and the
//    pods Pending for whole GPUs fit in the whole GPUs free on the other
//    schedulable nodes plus those the reverted nodes offer again.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client.h"
#include "plan/plan.h"

namespace kubeon::apply {

struct GpuLedger {
  struct Node {
    bool schedulable = true;
    std::map<std::string, int64_t> allocatable;  // GPU resources only
    std::map<std::string, int64_t> requested;    // by its bound, non-terminal pods
  };
  std::map<std::string, Node> nodes;
  std::map<std::string, int64_t> pending;  // resource -> requested by unbound, non-terminal pods
  // Bound pods being deleted (metadata.deletionTimestamp): their GPUs are
  // in `requested` until the kubelet has stopped them.
  struct TerminatingPod {
    std::string name;  // "ns/name"
    std::string uid;
    std::string node;
    int64_t grace_seconds = 30;
    std::map<std::string, int64_t> gpus;
  };
  std::vector<TerminatingPod> terminating;

  // Allocatable minus requested (negative when over-committed).
  int64_t Free(const std::string& node, const std::string& resource) const;
  // The ledger once every terminating pod is gone.
  GpuLedger AfterTerminations() const;
};

// From NodeList and PodList items (pure).
GpuLedger LedgerOf(const nlohmann::json& nodes, const nlohmann::json& pods);
// Lists nodes and pods.
Result<GpuLedger> ReadGpuLedger(kube::KubeClient& client);

Status CheckNeeds(const GpuLedger& ledger, const std::vector<plan::CapacityNeed>& needs);

// `reverted`: the nodes the revert reconfigures; `owners_need`: whole GPUs
// the owners' pods request once back; `coming`: whole GPUs the reverted
// nodes offer once back.  The error (kUnavailable) says how many are missing.
// `fit_elsewhere` (when given) tells whether the owners' pods and the pods
// Pending for whole GPUs fit in the other nodes' free whole GPUs alone.
Status CheckWholeGpusForRevert(const GpuLedger& ledger, const std::set<std::string>& reverted, int64_t owners_need,
                               int64_t coming, const std::string& id, bool* fit_elsewhere = nullptr);

}  // namespace kubeon::apply
