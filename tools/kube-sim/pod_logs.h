// What simulated containers print: the lines `kubectl logs` reads from
// GET /api/v1/namespaces/<ns>/pods/<name>/log.
//
// Lines are kept per pod uid (a recreated pod starts with an empty log, as
// a real one does), at most kMaxLines per pod (the oldest are dropped).
// Logs are not persisted with --state-dir.
// Not thread-safe: used with the Simulator lock held.
#pragma once

#include <deque>
#include <map>
#include <string>

#include "meta.h"

namespace kubeon::kubesim {

class PodLogs {
 public:
  static constexpr size_t kMaxLines = 2000;
  // Appends one line, prefixed the way logrus prints (time="..." level=...).
  void Append(const std::string& pod_uid, TimePoint at, const std::string& level, const std::string& message);
  // The log text ("" when the pod printed nothing).
  std::string Text(const std::string& pod_uid) const;
  // Drops a deleted pod's log.
  void Forget(const std::string& pod_uid) { lines_.erase(pod_uid); }

 private:
  std::map<std::string, std::deque<std::string>> lines_;
};

}  // namespace kubeon::kubesim
