// EventRecorder: core/v1 Events about GpuPolicies (kubectl describe gpupolicy
// NAME and kubectl get events show them).
//
// involvedObject = {apiVersion gpu.kubeon.io/v1, kind GpuPolicy, name, uid};
// GpuPolicy is cluster-scoped, so the Event goes to namespace "default" (as
// client-go's recorder does for cluster-scoped objects).  Event names are
// "<policy>.<16 hex>" (unique per event); source.component and
// reportingController are "kubeon-gpu-controller", reportingInstance the
// replica's identity.  type Normal or Warning; reason CamelCase (StepStarted,
// StepDone, StepRolledBack, StepFailed, PlanChanged).
// Failures to record are returned (the API's error), never retried: an Event
// is best effort.
#pragma once

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "kube/client.h"

namespace kubeon::controller {

class EventRecorder {
 public:
  // REQUIRES: client outlives the recorder.
  EventRecorder(kube::KubeClient& client, std::string instance, std::string namespace_ = "default");

  kube::ApiResult<nlohmann::json> Record(const std::string& policy, const std::string& policy_uid, const std::string& type,
                const std::string& reason, const std::string& message, const std::string& now);

 private:
  kube::KubeClient& client_;
  std::string instance_;
  std::string namespace_;
  std::atomic<uint64_t> seq_{0};
};

}  // namespace kubeon::controller
