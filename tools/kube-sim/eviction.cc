// See eviction.h.
#include "eviction.h"

#include "disruption_controller.h"
#include "pod_deletion.h"
#include "resources.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kViolation = "Cannot evict pod as it would violate the pod's disruption budget.";

ApiError Refused(int code, const std::string& cause_reason, const std::string& cause_message) {
  ApiError e = code == 429 ? ApiError::TooManyRequests(kViolation) : ApiError::Internal(cause_message);
  if (code != 429 && code != 500) {
    e.code = code;
    e.reason = "InternalError";
  }
  json cause = {{"reason", cause_reason}, {"message", cause_message}};
  if (code == 429) e.details = {{"causes", json::array({cause})}};
  return e;
}

bool CanIgnorePdb(const json& pod) {
  const std::string& phase = PodPhase(pod);
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" || IsPodDeleting(pod);
}

}  // namespace

Outcome<json> EvictPod(Store& store, Faults& faults, const std::string& ns, const std::string& name,
                       const json& body, bool dry_run, TimePoint now) {
  if (body.is_object()) {
    std::string api_version = body.value("apiVersion", "");
    if (!api_version.empty() && api_version != "policy/v1" && api_version != "policy/v1beta1") {
      return ApiError::BadRequest("unsupported Eviction apiVersion \"" + api_version + "\"");
    }
    std::string body_name = Str(body, {"metadata", "name"});
    if (!body_name.empty() && body_name != name) {
      return ApiError::BadRequest("name in URL does not match name in Eviction object");
    }
    if (const json* dr = Find(body, {"deleteOptions", "dryRun"}); dr != nullptr && dr->is_array() && !dr->empty()) {
      dry_run = true;
    }
  }
  const json* pod = store.Get(kPods, ns, name);
  if (pod == nullptr) return ApiError::NotFound("", "pods", name);
  if (body.is_object()) {
    std::string uid = Str(body, {"deleteOptions", "preconditions", "uid"});
    if (!uid.empty() && uid != Uid(*pod)) {
      return ApiError::Conflict("", "pods", name, "Precondition failed: UID in precondition: " + uid +
                                                     ", UID in object meta: " + Uid(*pod));
    }
  }
  if (auto code = faults.RefuseEviction(ns, name)) {
    return Refused(*code, "DisruptionBudget", "eviction refused by fault injection");
  }
  auto remove = [&]() -> Outcome<json> {
    if (!dry_run) {
      auto deleted = DeletePod(store, ns, name, GraceFromOptions(Find(body, {"deleteOptions"}) ? body["deleteOptions"] : json()), now);
      if (!deleted.ok()) return deleted.error();
    }
    return SuccessStatus(201);
  };
  if (CanIgnorePdb(*pod)) return remove();
  std::vector<json> pdbs;
  store.ForEach(kPdbs, ns, "", [&](const std::string&, const json& pdb) {
    if (PdbSelectsPod(pdb, *pod)) pdbs.push_back(pdb);
    return true;
  });
  if (pdbs.empty()) return remove();
  if (pdbs.size() > 1) {
    return ApiError::Internal("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  }
  json pdb = pdbs[0];
  PdbStatus st = PdbStatusFromStore(store, pdb);
  if (!IsPodReady(*pod)) {
    bool always = Str(pdb, {"spec", "unhealthyPodEvictionPolicy"}) == "AlwaysAllow";
    if (always || (st.current_healthy >= st.desired_healthy && st.desired_healthy > 0)) return remove();
  }
  if (st.disruptions_allowed <= 0) {
    return Refused(429, "DisruptionBudget",
                   "The disruption budget " + Name(pdb) + " needs " + std::to_string(st.desired_healthy) +
                       " healthy pods and has " + std::to_string(st.current_healthy) + " currently");
  }
  if (dry_run) return SuccessStatus(201);
  --st.disruptions_allowed;
  st.WriteTo(&pdb, Rfc3339(now));
  pdb["status"]["disruptedPods"][name] = Rfc3339(now);
  auto updated = store.Update(kPdbs, pdb);
  if (!updated.ok()) return updated.error();
  return remove();
}

}  // namespace kubeon::kubesim
