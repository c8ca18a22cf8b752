// See kubelet.h.
#include "kubelet.h"

#include <set>

#include "resources.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

std::string NodeInternalIp(const json& node) {
  const json* addrs = Find(node, {"status", "addresses"});
  if (addrs != nullptr && addrs->is_array()) {
    for (const auto& a : *addrs) {
      if (a.value("type", "") == "InternalIP") return a.value("address", "");
    }
  }
  return "10.0.0.1";
}

// A stable pod IP derived from the uid.
std::string PodIp(const std::string& uid) {
  uint32_t h = 2166136261u;
  for (unsigned char c : uid) h = (h ^ c) * 16777619u;
  return "10.244." + std::to_string((h >> 8) & 0xff) + "." + std::to_string(1 + (h & 0xff) % 254);
}

}  // namespace

json RunningPodStatus(const json& pod, const json& node, const std::string& now) {
  json status = pod.contains("status") && pod["status"].is_object() ? pod["status"] : json::object();
  status["phase"] = "Running";
  status["hostIP"] = NodeInternalIp(node);
  status["hostIPs"] = json::array({{{"ip", status["hostIP"]}}});
  std::string ip = PodIp(Uid(pod));
  status["podIP"] = ip;
  status["podIPs"] = json::array({{{"ip", ip}}});
  status["startTime"] = now;
  json conds = json::array();
  for (const char* type : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    conds.push_back({{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}});
  }
  status["conditions"] = conds;
  json cstatuses = json::array();
  if (const json* cs = Find(pod, {"spec", "containers"}); cs != nullptr && cs->is_array()) {
    for (const auto& c : *cs) {
      cstatuses.push_back({{"name", c.value("name", "")},
                           {"image", c.value("image", "")},
                           {"imageID", ""},
                           {"containerID", "containerd://" + SafeHash(Uid(pod) + c.value("name", ""))},
                           {"ready", true},
                           {"started", true},
                           {"restartCount", 0},
                           {"state", {{"running", {{"startedAt", now}}}}}});
    }
  }
  status["containerStatuses"] = cstatuses;
  return status;
}

bool Kubelet::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  auto waiting_to_start = [&](const json& pod) {
    if (!IsPodActive(pod) || PodPhase(pod) != "Pending") return false;
    const json* node = Find(pod, {"spec", "nodeName"});
    if (node == nullptr || !node->is_string()) return false;
    const json* n = store.Get(kNodes, "", node->get_ref<const std::string&>());
    return n != nullptr && IsNodeReady(*n);  // a NotReady (rebooting) node starts nothing
  };
  // Pods to look at: all, or those that changed plus those already waiting
  // (a new or newly Ready node can start pods bound to it: then look at all).
  std::set<std::string> candidates;
  bool node_added = false;
  const bool incremental = cursor_.Collect(store, [&](const std::string& id, const std::string& type, const json& obj,
                                                      const json* old) {
    if (id == kNodes && (type == "ADDED" || (old != nullptr && !IsNodeReady(*old) && IsNodeReady(obj)))) {
      node_added = true;  // a new or newly Ready node: its pods may start
    }
    if (id == kPods && type != "DELETED") candidates.insert(Store::Key(Namespace(obj), Name(obj)));
  });
  if (!incremental || node_added) {
    candidates.clear();
    store.ForEach(kPods, "", "", [&](const std::string& key, const json& pod) {
      if (waiting_to_start(pod)) candidates.insert(key);
      return true;
    });
  }
  for (const auto& [key, since] : bound_since_) candidates.insert(key);
  std::map<std::string, TimePoint> still_waiting;
  std::vector<json> to_start;
  const auto delay = std::chrono::milliseconds(ctx.settings.pod_startup_delay_ms);
  for (const auto& key : candidates) {
    const json* pod = GetByKey(store, kPods, key);
    if (pod == nullptr || !waiting_to_start(*pod)) continue;
    auto it = bound_since_.find(key);
    TimePoint since = it == bound_since_.end() || it->second.first != Uid(*pod) ? ctx.now : it->second.second;
    if (ctx.now - since >= delay) {
      to_start.push_back(*pod);
    } else {
      still_waiting[key] = since;
    }
  }
  bound_since_.clear();
  for (const auto& [key, since] : still_waiting) {
    const json* pod = GetByKey(store, kPods, key);
    bound_since_[key] = {Uid(*pod), since};
  }
  waiting_ = bound_since_.size();
  bool wrote = false;
  std::string now = Rfc3339(ctx.now);
  for (json& pod : to_start) {
    const json* node = store.Get(kNodes, "", Str(pod, {"spec", "nodeName"}));
    pod["status"] = RunningPodStatus(pod, *node, now);
    if (store.Update(kPods, std::move(pod)).ok()) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
