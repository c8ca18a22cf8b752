#include "apply/gpu_capacity.h"

#include <algorithm>

#include "apply/object_fields.h"
#include "model/cluster.h"

namespace kubeon::apply {

using json = nlohmann::json;

int64_t GpuLedger::Free(const std::string& node, const std::string& resource) const {
  auto n = nodes.find(node);
  if (n == nodes.end()) return 0;
  auto a = n->second.allocatable.find(resource);
  auto r = n->second.requested.find(resource);
  return (a == n->second.allocatable.end() ? 0 : a->second) - (r == n->second.requested.end() ? 0 : r->second);
}

GpuLedger GpuLedger::AfterTerminations() const {
  GpuLedger out = *this;
  for (const auto& p : terminating) {
    for (const auto& [r, v] : p.gpus) out.nodes[p.node].requested[r] -= v;
  }
  out.terminating.clear();
  return out;
}

GpuLedger LedgerOf(const json& nodes, const json& pods) {
  GpuLedger out;
  for (const auto& n : nodes) {
    GpuLedger::Node& node = out.nodes[OptStr(n.value("metadata", json::object()), "name").value_or("")];
    node.schedulable = !IsUnschedulable(n);
    const json alloc = n.value("/status/allocatable"_json_pointer, json::object());
    if (!alloc.is_object()) continue;
    for (auto it = alloc.begin(); it != alloc.end(); ++it) {
      if (IsGpuResource(it.key())) node.allocatable[it.key()] = Quantity(*it);
    }
  }
  for (const auto& p : pods) {
    if (IsTerminal(p)) continue;
    const std::string node = OptStr(p.value("spec", json::object()), "nodeName").value_or("");
    const auto gpus = PodGpuRequests(p);
    for (const auto& [r, v] : gpus) {
      if (node.empty()) {
        out.pending[r] += v;
      } else {
        out.nodes[node].requested[r] += v;
      }
    }
    const json meta = p.value("metadata", json::object());
    if (!node.empty() && !gpus.empty() && meta.is_object() && meta.contains("deletionTimestamp")) {
      out.terminating.push_back({PodName(p), OptStr(meta, "uid").value_or(""), node, GracePeriodSeconds(p), gpus});
    }
  }
  return out;
}

Result<GpuLedger> ReadGpuLedger(kube::KubeClient& client) {
  auto nodes = client.List("/api/v1/nodes");
  if (!nodes.ok()) return nodes.status();
  auto pods = client.List("/api/v1/pods");
  if (!pods.ok()) return pods.status();
  return LedgerOf(nodes->items, pods->items);
}

Status CheckNeeds(const GpuLedger& ledger, const std::vector<plan::CapacityNeed>& needs) {
  for (const auto& need : needs) {
    int64_t have = 0;
    for (const auto& [node, _] : ledger.nodes) {
      if (!need.nodes.empty() && std::find(need.nodes.begin(), need.nodes.end(), node) == need.nodes.end()) continue;
      have += std::max<int64_t>(0, ledger.Free(node, need.resource));
    }
    if (have < need.count) {
      return Status::Error("capacity changed since the plan: the step needs " + std::to_string(need.count) + " free " +
                               need.resource + " (" + need.why + "), the cluster has " + std::to_string(have),
                           StatusCode::kUnavailable);
    }
  }
  return Status::Ok();
}

Status CheckWholeGpusForRevert(const GpuLedger& ledger, const std::set<std::string>& reverted, int64_t owners_need,
                               int64_t coming, const std::string& id, bool* fit_elsewhere) {
  int64_t needed = owners_need;
  auto pending = ledger.pending.find(model::kGpuResource);
  if (pending != ledger.pending.end()) needed += pending->second;  // Pending for whole GPUs: competes for them
  const int64_t needed_by_owners_and_pending = needed;
  int64_t free = 0;
  for (const auto& [name, node] : ledger.nodes) {
    auto used = node.requested.find(model::kGpuResource);
    const int64_t in_use = used == node.requested.end() ? 0 : used->second;
    if (reverted.count(name)) {
      needed += in_use;
      continue;
    }
    if (!node.schedulable) continue;
    free += std::max<int64_t>(0, ledger.Free(name, model::kGpuResource));
  }
  if (fit_elsewhere != nullptr) *fit_elsewhere = free >= needed_by_owners_and_pending;
  if (free + coming < needed) {
    return Status::Error("cannot revert change " + id + ": the workloads need " + std::to_string(needed) +
                             " whole GPUs, the cluster would have " + std::to_string(free + coming) + " (" +
                             std::to_string(needed - free - coming) + " missing); nothing changed",
                         StatusCode::kUnavailable);
  }
  return Status::Ok();
}

}  // namespace kubeon::apply
