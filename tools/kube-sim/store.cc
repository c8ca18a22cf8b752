// See store.h.
#include "store.h"

#include <algorithm>
#include <cstdlib>

namespace kubeon::kubesim {

namespace {

// Everything but metadata and status: a change here bumps generation.
json SpecPart(const json& obj) {
  json out = obj;
  out.erase("metadata");
  out.erase("status");
  return out;
}

// Equal apart from metadata.resourceVersion and metadata.managedFields (an
// update that changes only who wrote last is a no-op, as on a real server).
bool SameContent(json a, json b) {
  for (json* o : {&a, &b}) {
    if (!o->contains("metadata")) continue;
    (*o)["metadata"].erase("resourceVersion");
    (*o)["metadata"].erase("managedFields");
  }
  return a == b;
}

}  // namespace

bool WatchSpec::Matches(const json& obj) const {
  if (!ns.empty() && Namespace(obj) != ns) return false;
  return labels.Matches(Labels(obj)) && fields.Matches(obj);
}

void Watcher::Push(WatchEvent event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (queue_.size() >= max_queue_) {
      overflowed_ = true;
      closed_ = true;
    } else {
      queue_.push_back(std::move(event));
    }
  }
  cv_.notify_all();
}

bool Watcher::Pop(std::deque<WatchEvent>* out, std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, wait, [&] { return !queue_.empty() || closed_; });
  while (!queue_.empty()) {
    out->push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return !closed_ || !out->empty();
}

void Watcher::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

bool Watcher::overflowed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return overflowed_;
}

Store::Store(size_t history_limit, Clock clock, uint64_t seed)
    : history_limit_(history_limit), clock_(std::move(clock)), rng_(seed) {}

const json* Store::Get(const std::string& store_id, const std::string& ns,
                       const std::string& name) const {
  auto t = objects_.find(store_id);
  if (t == objects_.end()) return nullptr;
  auto it = t->second.find(Key(ns, name));
  return it == t->second.end() ? nullptr : &it->second;
}

void Store::ForEach(const std::string& store_id, const std::string& ns, const std::string& after,
                    const std::function<bool(const std::string&, const json&)>& fn) const {
  auto t = objects_.find(store_id);
  if (t == objects_.end()) return;
  const auto& m = t->second;
  std::string prefix = ns.empty() ? std::string() : ns + "/";
  auto it = after.empty() ? m.lower_bound(prefix) : m.upper_bound(after);
  for (; it != m.end(); ++it) {
    if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) {
      if (it->first > prefix) break;
      continue;
    }
    if (!fn(it->first, it->second)) return;
  }
}

std::vector<json> Store::List(const std::string& store_id, const std::string& ns) const {
  std::vector<json> out;
  ForEach(store_id, ns, "", [&](const std::string&, const json& o) {
    out.push_back(o);
    return true;
  });
  return out;
}

uint64_t Store::WriteCount(const std::string& store_id) const {
  auto it = type_writes_.find(store_id);
  return it == type_writes_.end() ? 0 : it->second;
}

size_t Store::Count(const std::string& store_id) const {
  auto t = objects_.find(store_id);
  return t == objects_.end() ? 0 : t->second.size();
}

std::vector<std::string> Store::StoreIds() const {
  std::vector<std::string> out;
  for (const auto& [id, m] : objects_) {
    if (!m.empty()) out.push_back(id);
  }
  return out;
}

Outcome<json> Store::Create(const std::string& store_id, json obj) {
  const std::string ns = Namespace(obj);
  const std::string name = Name(obj);
  auto& m = objects_[store_id];
  const std::string key = Key(ns, name);
  if (m.count(key)) {
    const std::string plural = store_id.substr(store_id.find('/') + 1);
    const std::string group = store_id.find('/') == std::string::npos
                                  ? std::string()
                                  : store_id.substr(0, store_id.find('/'));
    return ApiError::AlreadyExists(group, plural, name);
  }
  json& meta = obj["metadata"];
  meta["uid"] = NewUid(rng_);
  meta["creationTimestamp"] = Rfc3339(clock_());
  if (obj.contains("spec")) meta["generation"] = 1;
  meta.erase("deletionTimestamp");
  meta["resourceVersion"] = std::to_string(++rv_);
  ++writes_;
  ++type_writes_[store_id];
  m[key] = obj;
  Record(store_id, {"ADDED", rv_, obj}, nullptr);
  return obj;
}

Outcome<json> Store::Update(const std::string& store_id, json obj) {
  const std::string ns = Namespace(obj);
  const std::string name = Name(obj);
  auto& m = objects_[store_id];
  auto it = m.find(Key(ns, name));
  const std::string plural = store_id.substr(store_id.find('/') + 1);
  const std::string group = store_id.find('/') == std::string::npos
                                ? std::string()
                                : store_id.substr(0, store_id.find('/'));
  if (it == m.end()) return ApiError::NotFound(group, plural, name);
  const json& old = it->second;
  std::string want_rv = Str(obj, {"metadata", "resourceVersion"});
  std::string have_rv = Str(old, {"metadata", "resourceVersion"});
  if (!want_rv.empty() && want_rv != have_rv) {
    return ApiError::Conflict(group, plural, name,
                              "the object has been modified; please apply your changes to "
                              "the latest version and try again");
  }
  json& meta = obj["metadata"];
  meta["uid"] = old["metadata"].value("uid", "");
  meta["creationTimestamp"] = old["metadata"].value("creationTimestamp", "");
  if (old["metadata"].contains("generation")) {
    int64_t gen = old["metadata"]["generation"].get<int64_t>();
    if (SpecPart(old) != SpecPart(obj)) ++gen;
    meta["generation"] = gen;
  } else {
    meta.erase("generation");
  }
  meta["resourceVersion"] = have_rv;
  if (SameContent(old, obj)) return old;
  meta["resourceVersion"] = std::to_string(++rv_);
  ++writes_;
  ++type_writes_[store_id];
  json previous = std::move(it->second);
  it->second = obj;
  Record(store_id, {"MODIFIED", rv_, obj}, std::move(previous));
  return obj;
}

Outcome<json> Store::Delete(const std::string& store_id, const std::string& ns,
                            const std::string& name, const std::string& uid_precondition) {
  auto& m = objects_[store_id];
  auto it = m.find(Key(ns, name));
  const std::string plural = store_id.substr(store_id.find('/') + 1);
  const std::string group = store_id.find('/') == std::string::npos
                                ? std::string()
                                : store_id.substr(0, store_id.find('/'));
  if (it == m.end()) return ApiError::NotFound(group, plural, name);
  if (!uid_precondition.empty() && Uid(it->second) != uid_precondition) {
    return ApiError::Conflict(group, plural, name,
                              "Precondition failed: UID in precondition: " + uid_precondition +
                                  ", UID in object meta: " + Uid(it->second));
  }
  json obj = std::move(it->second);
  m.erase(it);
  obj["metadata"]["resourceVersion"] = std::to_string(++rv_);
  ++writes_;
  ++type_writes_[store_id];
  Record(store_id, {"DELETED", rv_, obj}, nullptr);
  return obj;
}

void Store::Restore(const std::string& store_id, json obj, bool keep_version) {
  json& meta = obj["metadata"];
  if (!meta.contains("uid") || !meta["uid"].is_string() || meta["uid"].get<std::string>().empty()) {
    meta["uid"] = NewUid(rng_);
  }
  if (!meta.contains("creationTimestamp") || !meta["creationTimestamp"].is_string()) {
    meta["creationTimestamp"] = Rfc3339(clock_());
  }
  if (obj.contains("spec") && !meta.contains("generation")) meta["generation"] = 1;
  uint64_t kept = keep_version ? std::strtoull(Str(obj, {"metadata", "resourceVersion"}).c_str(), nullptr, 10) : 0;
  if (kept > 0) {
    rv_ = std::max(rv_, kept);
  } else {
    meta["resourceVersion"] = std::to_string(++rv_);
  }
  ++writes_;
  ++type_writes_[store_id];
  const std::string key = Key(Namespace(obj), Name(obj));  // before obj is moved from
  objects_[store_id][key] = std::move(obj);
  published_.store(rv_);
}

void Store::Compact() {
  history_.clear();
  compacted_ = rv_;
  published_.store(rv_);
}

void Store::SetResourceVersion(uint64_t rv) {
  if (rv > rv_) rv_ = rv;
  published_.store(rv_);
}

void Store::Deliver(Watcher& w, const WatchEvent& e, const json& old_object) {
  const WatchSpec& spec = w.spec();
  bool now = spec.Matches(e.object);
  if (e.type == "MODIFIED") {
    bool before = spec.Matches(old_object);
    if (before && now) w.Push(e);
    else if (before) w.Push({"DELETED", e.rv, e.object});
    else if (now) w.Push({"ADDED", e.rv, e.object});
    return;
  }
  if (now) w.Push(e);
}

void Store::Record(const std::string& store_id, WatchEvent event, json old_object) {
  for (auto it = watchers_.begin(); it != watchers_.end();) {
    auto w = it->lock();
    if (!w) {
      it = watchers_.erase(it);
      continue;
    }
    if (w->spec().store_id == store_id) Deliver(*w, event, old_object);
    ++it;
  }
  history_.push_back({store_id, std::move(event), std::move(old_object)});
  while (history_.size() > history_limit_) {
    compacted_ = history_.front().event.rv;
    history_.pop_front();
  }
  published_.store(rv_);
}

bool Store::ChangesSince(uint64_t rv, const ChangeFn& fn) const {
  if (rv < compacted_) return false;
  auto it = std::upper_bound(history_.begin(), history_.end(), rv,
                             [](uint64_t v, const HistoryEntry& h) { return v < h.event.rv; });
  for (; it != history_.end(); ++it) {
    fn(it->store_id, it->event.type, it->event.object, it->old_object.is_null() ? nullptr : &it->old_object);
  }
  return true;
}

Outcome<std::shared_ptr<Watcher>> Store::Watch(const WatchSpec& spec,
                                               std::optional<uint64_t> from_rv,
                                               size_t max_queue) {
  if (from_rv && *from_rv < compacted_) {
    return ApiError::Expired("too old resource version: " + std::to_string(*from_rv) + " (" +
                             std::to_string(compacted_ + 1) + ")");
  }
  auto w = std::make_shared<Watcher>(spec, max_queue);
  if (!from_rv) {
    ForEach(spec.store_id, spec.ns, "", [&](const std::string&, const json& o) {
      if (spec.Matches(o)) w->Push({"ADDED", rv_, o});
      return true;
    });
  } else {
    for (const auto& h : history_) {
      if (h.store_id == spec.store_id && h.event.rv > *from_rv) Deliver(*w, h.event, h.old_object);
    }
  }
  watchers_.push_back(w);
  return w;
}

}  // namespace kubeon::kubesim
