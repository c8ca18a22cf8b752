// See pod_logs.h.
#include "pod_logs.h"

namespace kubeon::kubesim {

void PodLogs::Append(const std::string& pod_uid, TimePoint at, const std::string& level, const std::string& message) {
  if (pod_uid.empty()) return;
  auto& lines = lines_[pod_uid];
  lines.push_back("time=\"" + Rfc3339(at) + "\" level=" + level + " msg=" + json(message).dump(-1, ' ', false, json::error_handler_t::replace));
  while (lines.size() > kMaxLines) lines.pop_front();
}

std::string PodLogs::Text(const std::string& pod_uid) const {
  auto it = lines_.find(pod_uid);
  if (it == lines_.end()) return "";
  std::string out;
  for (const auto& l : it->second) out += l + "\n";
  return out;
}

}  // namespace kubeon::kubesim
