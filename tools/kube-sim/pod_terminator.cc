// See pod_terminator.h.
#include "pod_terminator.h"

#include <algorithm>
#include <set>

#include "pod_deletion.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

// Ready and ContainersReady turn False (with a new transition time).
bool MarkNotReady(json* pod, const std::string& now) {
  json* conds = pod->contains("status") && (*pod)["status"].contains("conditions") ? &(*pod)["status"]["conditions"] : nullptr;
  if (conds == nullptr || !conds->is_array()) return false;
  bool changed = false;
  for (auto& c : *conds) {
    if (!c.is_object()) continue;
    const std::string type = c.value("type", "");
    if ((type == "Ready" || type == "ContainersReady") && c.value("status", "") != "False") {
      c["status"] = "False";
      c["lastTransitionTime"] = now;
      changed = true;
    }
  }
  if (json& status = (*pod)["status"]; status.contains("containerStatuses") && status["containerStatuses"].is_array()) {
    for (auto& c : status["containerStatuses"]) c["ready"] = false;
  }
  return changed;
}

}  // namespace

int64_t PodShutdownMs(int64_t grace_seconds, const Settings& settings) {
  const int64_t grace_ms = grace_seconds * 1000;
  return settings.pod_shutdown_ms < 0 ? grace_ms : std::min(grace_ms, settings.pod_shutdown_ms);
}

bool PodTerminator::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  std::set<std::string> candidates;
  const bool incremental = cursor_.Collect(store, [&](const std::string& id, const std::string& type, const json& obj,
                                                      const json*) {
    if (id == kPods && type != "DELETED" && IsPodDeleting(obj)) candidates.insert(Store::Key(Namespace(obj), Name(obj)));
  });
  if (!incremental) {
    store.ForEach(kPods, "", "", [&](const std::string& key, const json& pod) {
      if (IsPodDeleting(pod)) candidates.insert(key);
      return true;
    });
  }
  for (const auto& [key, started] : started_) candidates.insert(key);
  bool wrote = false;
  const std::string now = Rfc3339(ctx.now);
  std::map<std::string, std::pair<std::string, TimePoint>> still;
  for (const auto& key : candidates) {
    const json* pod = GetByKey(store, kPods, key);
    if (pod == nullptr || !IsPodDeleting(*pod)) continue;
    auto it = started_.find(key);
    const bool first = it == started_.end() || it->second.first != Uid(*pod);
    const TimePoint since = first ? ctx.now : it->second.second;
    const int64_t shutdown = PodShutdownMs(DeletionGrace(*pod).value_or(0), ctx.settings);
    if (ctx.now - since >= std::chrono::milliseconds(shutdown)) {
      if (store.Delete(kPods, Namespace(*pod), Name(*pod), Uid(*pod)).ok()) wrote = true;
      continue;
    }
    still[key] = {Uid(*pod), since};
    if (first) {
      json updated = *pod;
      if (MarkNotReady(&updated, now) && store.Update(kPods, std::move(updated)).ok()) wrote = true;
    }
  }
  started_ = std::move(still);
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
