// See configmap_sync.h.
#include "configmap_sync.h"

#include "resources.h"

namespace kubeon::kubesim {

void ConfigMapSync::Observe(const Store& store, const std::string& ns, const std::string& name, TimePoint now,
                            std::chrono::milliseconds delay) {
  const json* cm = store.Get(kConfigMaps, ns, name);
  json data = cm == nullptr ? json() : cm->value("data", json::object());
  auto& h = history_[Store::Key(ns, name)];
  if (h.empty()) {
    h.emplace_back(TimePoint::min(), std::move(data));
    return;
  }
  if (h.back().second != data) h.emplace_back(now, std::move(data));
  while (h.size() >= 2 && now - h[1].first >= delay) h.pop_front();
}

const json& ConfigMapSync::View(const std::string& ns, const std::string& name, TimePoint now,
                                std::chrono::milliseconds delay) const {
  static const json kAbsent;
  auto it = history_.find(Store::Key(ns, name));
  if (it == history_.end()) return kAbsent;
  const json* seen = &kAbsent;
  for (const auto& [at, data] : it->second) {
    if (at != TimePoint::min() && now - at < delay) break;
    seen = &data;
  }
  return *seen;
}

bool ConfigMapSync::Pending(TimePoint now, std::chrono::milliseconds delay) const {
  for (const auto& [key, h] : history_) {
    if (h.back().first != TimePoint::min() && now - h.back().first < delay) return true;
  }
  return false;
}

const std::string* ConfigMapKey(const json& data, const std::string& key) {
  if (!data.is_object()) return nullptr;
  auto it = data.find(key);
  return it != data.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

}  // namespace kubeon::kubesim
