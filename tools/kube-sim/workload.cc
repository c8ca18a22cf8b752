// See workload.h.
#include "workload.h"

#include "resources.h"

namespace kubeon::kubesim {

json ControllerOwnerRef(const json& owner, const std::string& api_version, const std::string& kind) {
  return {{"apiVersion", api_version}, {"kind", kind},          {"name", Name(owner)},
          {"uid", Uid(owner)},         {"controller", true},    {"blockOwnerDeletion", true}};
}

json PodFromTemplate(const json& tmpl, const std::string& ns, const std::string& name,
                     const json& owner_ref) {
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  json meta = {{"name", name}, {"namespace", ns}, {"ownerReferences", json::array({owner_ref})}};
  if (const json* l = Find(tmpl, {"metadata", "labels"}); l != nullptr && l->is_object()) {
    meta["labels"] = *l;
  }
  if (const json* a = Find(tmpl, {"metadata", "annotations"}); a != nullptr && a->is_object()) {
    meta["annotations"] = *a;
  }
  pod["metadata"] = meta;
  json spec = tmpl.contains("spec") && tmpl["spec"].is_object() ? tmpl["spec"] : json::object();
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  pod["spec"] = spec;
  pod["status"] = {{"phase", "Pending"}};
  return pod;
}

std::map<std::string, std::vector<std::string>> ActivePodsByOwner(const Store& store) {
  std::map<std::string, std::vector<std::string>> out;
  store.ForEach(kPods, "", "", [&](const std::string& key, const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref != nullptr && IsPodActive(pod)) out[ref->value("uid", "")].push_back(key);
    return true;
  });
  return out;
}

std::optional<TimePoint> PodAvailableAt(const json& pod, int64_t min_ready_seconds) {
  if (!IsPodReady(pod)) return std::nullopt;
  const json* conds = Find(pod, {"status", "conditions"});
  TimePoint since{};
  for (const auto& c : *conds) {
    if (c.is_object() && c.value("type", "") == "Ready") {
      since = ParseRfc3339(c.value("lastTransitionTime", "")).value_or(TimePoint{});
    }
  }
  return since + std::chrono::seconds(min_ready_seconds);
}

bool IsPodAvailable(const json& pod, int64_t min_ready_seconds, TimePoint now) {
  if (min_ready_seconds <= 0) return IsPodReady(pod);
  const std::optional<TimePoint> at = PodAvailableAt(pod, min_ready_seconds);
  return at.has_value() && *at <= now;
}

int64_t SpecReplicas(const json& obj) { return Int(obj, {"spec", "replicas"}, 1); }

bool UpdateStatus(Store& store, const std::string& store_id, const json& obj, const json& status) {
  // Counters are omitempty in the API types, except status.replicas.
  auto omitted = [](const std::string& k, const json& v) {
    return v.is_number_integer() && v.get<int64_t>() == 0 && k != "replicas";
  };
  const json* current = Find(obj, {"status"});
  bool changed = current == nullptr || !current->is_object();
  for (const auto& [k, v] : status.items()) {
    if (changed) break;
    auto it = current->find(k);
    changed = omitted(k, v) ? it != current->end() : (it == current->end() || *it != v);
  }
  if (!changed) return false;
  json updated = obj;
  if (!updated["status"].is_object()) updated["status"] = json::object();
  for (const auto& [k, v] : status.items()) {
    if (omitted(k, v)) {
      updated["status"].erase(k);
    } else {
      updated["status"][k] = v;
    }
  }
  uint64_t before = store.ResourceVersion();
  auto r = store.Update(store_id, std::move(updated));
  return r.ok() && store.ResourceVersion() != before;
}

std::map<std::string, std::vector<std::string>> OwnedByUid(const Store& store, const std::string& store_id) {
  std::map<std::string, std::vector<std::string>> out;
  store.ForEach(store_id, "", "", [&](const std::string& key, const json& obj) {
    const json* ref = ControllerRef(obj);
    if (ref != nullptr) out[ref->value("uid", "")].push_back(key);
    return true;
  });
  return out;
}

std::vector<std::pair<std::string, std::string>> Keys(const Store& store, const std::string& store_id) {
  std::vector<std::pair<std::string, std::string>> out;
  store.ForEach(store_id, "", "", [&](const std::string&, const json& obj) {
    out.emplace_back(Namespace(obj), Name(obj));
    return true;
  });
  return out;
}

const json* GetByKey(const Store& store, const std::string& store_id, const std::string& key) {
  size_t slash = key.find('/');
  return slash == std::string::npos ? store.Get(store_id, "", key)
                                     : store.Get(store_id, key.substr(0, slash), key.substr(slash + 1));
}

std::vector<std::string> ActivePodsOf(const Store& store, const std::string& ns, const std::string& uid) {
  std::vector<std::string> out;
  store.ForEach(kPods, ns, "", [&](const std::string& key, const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref != nullptr && IsPodActive(pod) && ref->value("uid", "") == uid) out.push_back(key);
    return true;
  });
  return out;
}

std::vector<std::string> OwnedIn(const Store& store, const std::string& store_id, const std::string& ns,
                                 const std::string& uid) {
  std::vector<std::string> out;
  store.ForEach(store_id, ns, "", [&](const std::string& key, const json& obj) {
    const json* ref = ControllerRef(obj);
    if (ref != nullptr && ref->value("uid", "") == uid) out.push_back(key);
    return true;
  });
  return out;
}

void AddControllerKey(const json* obj, const std::string& kind, std::set<std::string>* out) {
  if (obj == nullptr) return;
  const json* ref = ControllerRef(*obj);
  if (ref != nullptr && ref->value("kind", "") == kind) out->insert(Store::Key(Namespace(*obj), ref->value("name", "")));
}

OwnersToReconcile ChangedOwners(const ChangeCursor& cursor, const Store& store, const std::string& owner_id,
                                const std::string& child_id, const std::string& owner_kind) {
  std::set<std::string> affected;
  OwnersToReconcile out;
  out.incremental = cursor.Collect(store, [&](const std::string& id, const std::string&, const json& obj,
                                              const json* old) {
    if (id == owner_id) affected.insert(Store::Key(Namespace(obj), Name(obj)));
    if (id == child_id) {
      AddControllerKey(&obj, owner_kind, &affected);
      AddControllerKey(old, owner_kind, &affected);
    }
  });
  if (!out.incremental) {
    out.keys = Keys(store, owner_id);
    return out;
  }
  for (const auto& key : affected) {
    const size_t slash = key.find('/');
    out.keys.emplace_back(key.substr(0, slash), key.substr(slash + 1));
  }
  return out;
}

}  // namespace kubeon::kubesim
