// See device_manager.h.
#include "device_manager.h"

#include <set>

#include "quantity.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

bool IsGpuResource(const std::string& res) {
  return res == "nvidia.com/gpu" || res == "nvidia.com/gpu.shared" || res.rfind("nvidia.com/mig-", 0) == 0;
}

}  // namespace

std::vector<DeviceRequest> GpuDeviceRequests(const json& pod, const json& node, const NodeGpuState& gpus) {
  std::vector<DeviceRequest> out;
  ResourceList cap;
  if (const json* c = Find(node, {"status", "capacity"}); c != nullptr && c->is_object()) {
    for (const auto& [res, q] : c->items()) {
      if (auto v = QuantityOf(q)) cap[res] = *v;
    }
  }
  for (const auto& [res, qty] : PodRequests(pod)) {
    if (!IsGpuResource(res) || qty <= 0) continue;
    DeviceRequest r{res, static_cast<int64_t>(qty), 1};
    int64_t devices = 0;
    const bool whole = res == "nvidia.com/gpu" || res == "nvidia.com/gpu.shared";
    std::string profile = whole ? "" : res.substr(std::string("nvidia.com/mig-").size());
    if (profile.size() > 7 && profile.compare(profile.size() - 7, 7, ".shared") == 0) profile.resize(profile.size() - 7);
    for (const auto& g : gpus.gpus) {
      if (whole && !g.mig_enabled) ++devices;
      for (const auto& d : g.mig) devices += !whole && d.profile == profile ? 1 : 0;
    }
    auto c = cap.find(res);
    if (devices > 0 && c != cap.end()) r.replicas = static_cast<int>(std::max<int64_t>(1, static_cast<int64_t>(c->second) / devices));
    out.push_back(r);
  }
  return out;
}

bool DeviceManager::Admit(ControllerContext& ctx, const json& pod) {
  const std::string node_name = Str(pod, {"spec", "nodeName"});
  const std::string key = Store::Key(Namespace(pod), Name(pod));
  if (node_name.empty() || IsPodDeleting(pod) || ctx.gpus.Holds(key)) return false;
  const json* node = ctx.store.Get(kNodes, "", node_name);
  if (node == nullptr) return false;
  bool wants = false;
  for (const auto& [res, qty] : PodRequests(pod)) wants = wants || (IsGpuResource(res) && qty > 0);
  if (!wants) return false;
  NodeGpuState& gpus = ctx.gpus.Ensure(*node);
  const bool starting = PodPhase(pod) == "Pending";
  auto ok = ctx.gpus.Assign(node_name, key, Uid(pod), GpuDeviceRequests(pod, *node, gpus), starting);
  if (ok.ok() || !starting) return false;
  json failed = pod;
  failed["status"]["phase"] = "Failed";
  failed["status"]["reason"] = "UnexpectedAdmissionError";
  failed["status"]["message"] = "Pod was rejected: " + ok.error().message;
  return ctx.store.Update(kPods, std::move(failed)).ok();
}

bool DeviceManager::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  std::set<std::string> changed;
  const bool incremental = cursor_.Collect(ctx.store, [&](const std::string& id, const std::string& type,
                                                          const json& obj, const json*) {
    if (id != kPods) return;
    const std::string key = Store::Key(Namespace(obj), Name(obj));
    if (type == "DELETED") {
      auto it = ctx.gpus.holder_uids().find(key);
      if (it != ctx.gpus.holder_uids().end() && it->second == Uid(obj)) ctx.gpus.Release(key);
      changed.erase(key);
    } else {
      changed.insert(key);
    }
  });
  cursor_.AdvanceTo(start_rv);
  if (!incremental) {
    // Forget holders whose pod is gone or was recreated, then look at every pod.
    std::vector<std::string> stale;
    for (const auto& [key, uid] : ctx.gpus.holder_uids()) {
      const json* pod = GetByKey(ctx.store, kPods, key);
      if (pod == nullptr || Uid(*pod) != uid) stale.push_back(key);
    }
    for (const auto& key : stale) ctx.gpus.Release(key);
    ctx.store.ForEach(kPods, "", "", [&](const std::string& key, const json& pod) {
      if (!Str(pod, {"spec", "nodeName"}).empty()) changed.insert(key);
      return true;
    });
  }
  bool wrote = false;
  for (const auto& key : changed) {
    const json* pod = GetByKey(ctx.store, kPods, key);
    if (pod == nullptr) continue;
    auto it = ctx.gpus.holder_uids().find(key);
    if (it != ctx.gpus.holder_uids().end() && it->second != Uid(*pod)) ctx.gpus.Release(key);  // recreated
    if (!IsPodTerminal(*pod)) wrote |= Admit(ctx, json(*pod));
  }
  return wrote;
}

}  // namespace kubeon::kubesim
