// A ConfigMap as a node's mounted volume sees it: the kubelet refreshes
// ConfigMap volumes only every sync period, so a node reads the content as
// it was at least settings.config_map_sync_delay_ms ago.
//
// Observe() records each content change (the ConfigMap's "data", or null
// when it does not exist) with the simulated time it was first observed;
// content present when the ConfigMap was first observed counts as synced
// long ago (it was there before kube-sim started).  View() returns the
// newest content observed at or before now - delay.
// Not thread-safe: used with the Simulator lock held.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <utility>

#include "meta.h"
#include "store.h"

namespace kubeon::kubesim {

class ConfigMapSync {
 public:
  // Records the current content of ConfigMap ns/name, and forgets content
  // older than what is visible with `delay`.
  void Observe(const Store& store, const std::string& ns, const std::string& name, TimePoint now,
               std::chrono::milliseconds delay);
  // The content (the "data" object, or null when absent) the node sees.
  // REQUIRES: Observe() was called for ns/name.
  const json& View(const std::string& ns, const std::string& name, TimePoint now,
                   std::chrono::milliseconds delay) const;
  // Whether some observed content is not yet visible (the caller must wait
  // on the clock).
  bool Pending(TimePoint now, std::chrono::milliseconds delay) const;

 private:
  std::map<std::string, std::deque<std::pair<TimePoint, json>>> history_;  // oldest first
};

// The string under `key` in a View() result, or nullptr.
const std::string* ConfigMapKey(const json& data, const std::string& key);

}  // namespace kubeon::kubesim
