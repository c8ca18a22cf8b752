// The API server's admission rules that clients can trip over, kept small:
// object names (DNS-1123 subdomain; namespaces and nodes: DNS-1123 label
// for namespaces), required fields of pods, and the pod-spec
// immutability rule (only containers[*].image, initContainers[*].image,
// activeDeadlineSeconds, terminationGracePeriodSeconds and additional
// tolerations may change on an existing pod), and a Deployment's
// rollingUpdate fenceposts (deployment_rollout.h).  Failures are 422 Invalid
// with the field path in the message.
#pragma once

#include "api_error.h"
#include "resources.h"

namespace kubeon::kubesim {

Outcome<bool> ValidateCreate(const ResourceType& type, const json& obj);
Outcome<bool> ValidateUpdate(const ResourceType& type, const json& old_obj, const json& new_obj);

}  // namespace kubeon::kubesim
