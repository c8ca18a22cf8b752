// See pod_deletion.h.
#include "pod_deletion.h"

#include "resources.h"

namespace kubeon::kubesim {

std::optional<int64_t> GraceFromOptions(const json& options) {
  const json* g = options.is_object() ? Find(options, {"gracePeriodSeconds"}) : nullptr;
  if (g == nullptr || !g->is_number_integer()) return std::nullopt;
  return g->get<int64_t>();
}

std::optional<int64_t> DeletionGrace(const json& pod) {
  if (!IsPodDeleting(pod)) return std::nullopt;
  return Int(pod, {"metadata", "deletionGracePeriodSeconds"}, 0);
}

Outcome<json> DeletePod(Store& store, const std::string& ns, const std::string& name,
                        std::optional<int64_t> grace_seconds, TimePoint now, const std::string& uid_precondition) {
  const json* pod = store.Get(kPods, ns, name);
  if (pod == nullptr) return ApiError::NotFound("", "pods", name);
  if (!uid_precondition.empty() && uid_precondition != Uid(*pod)) {
    return ApiError::Conflict("", "pods", name,
                              "Precondition failed: UID in precondition: " + uid_precondition +
                                  ", UID in object meta: " + Uid(*pod));
  }
  int64_t grace = grace_seconds.value_or(
      Int(*pod, {"spec", "terminationGracePeriodSeconds"}, kDefaultTerminationGracePeriodSeconds));
  if (grace < 0) grace = 1;
  if (Str(*pod, {"spec", "nodeName"}).empty() || IsPodTerminal(*pod)) grace = 0;
  json updated = *pod;
  json& meta = updated["metadata"];
  if (const std::optional<int64_t> current = DeletionGrace(*pod)) {
    if (grace >= *current) return *pod;  // only a shorter grace changes anything
  }
  if (grace == 0) return store.Delete(kPods, ns, name, uid_precondition);
  // The deadline counts from when the deletion started (now, or the first
  // deletion when this one shortens it).
  TimePoint start = now;
  if (const std::optional<int64_t> current = DeletionGrace(*pod)) {
    auto deadline = ParseRfc3339(Str(*pod, {"metadata", "deletionTimestamp"}));
    if (deadline) start = *deadline - std::chrono::seconds(*current);
  }
  meta["deletionTimestamp"] = Rfc3339(start + std::chrono::seconds(grace));
  meta["deletionGracePeriodSeconds"] = grace;
  return store.Update(kPods, std::move(updated));
}

}  // namespace kubeon::kubesim
