// See event_recorder.h.
#include "controller/event_recorder.h"

#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

namespace kubeon::controller {

EventRecorder::EventRecorder(kube::KubeClient& client, std::string instance, std::string namespace_)
    : client_(client), instance_(std::move(instance)), namespace_(std::move(namespace_)) {
  std::random_device rd;
  seq_ = (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

kube::ApiResult<nlohmann::json> EventRecorder::Record(const std::string& policy, const std::string& policy_uid, const std::string& type,
                             const std::string& reason, const std::string& message, const std::string& now) {
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(seq_.fetch_add(1)));
  nlohmann::json involved = {{"apiVersion", "gpu.kubeon.io/v1"}, {"kind", "GpuPolicy"}, {"name", policy}};
  if (!policy_uid.empty()) involved["uid"] = policy_uid;
  nlohmann::json event = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", policy + "." + suffix}, {"namespace", namespace_}}},
      {"involvedObject", involved},
      {"type", type},
      {"reason", reason},
      {"message", message.size() > 1024 ? message.substr(0, 1021) + "..." : message},
      {"source", {{"component", "kubeon-gpu-controller"}}},
      {"reportingComponent", "kubeon-gpu-controller"},
      {"reportingInstance", instance_.substr(0, 128)},
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"count", 1}};
  return client_.Create("/api/v1/namespaces/" + namespace_ + "/events", event);
}

}  // namespace kubeon::controller
