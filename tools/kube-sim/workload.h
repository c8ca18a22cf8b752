// Helpers shared by the workload controllers: pods from templates, owner
// references, and the index of pods by controlling owner.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "controller.h"
#include "store.h"

namespace kubeon::kubesim {

// An ownerReference with controller: true pointing at `owner`.
json ControllerOwnerRef(const json& owner, const std::string& api_version, const std::string& kind);

// A new Pending pod named `name` in the owner's namespace, built from the
// pod template `tmpl` (metadata.labels/annotations + spec), owned by
// `owner_ref`.  The API server's defaults that the controllers rely on
// (schedulerName, restartPolicy) are filled in.
json PodFromTemplate(const json& tmpl, const std::string& ns, const std::string& name,
                     const json& owner_ref);

// Keys ("ns/name") of the active pods (not terminal, not deleting) per
// controlling owner uid.
std::map<std::string, std::vector<std::string>> ActivePodsByOwner(const Store& store);

// podutil.IsPodAvailable: Ready, and Ready for at least min_ready_seconds
// (since the Ready condition's lastTransitionTime) at `now`.
bool IsPodAvailable(const json& pod, int64_t min_ready_seconds, TimePoint now);
// When a Ready pod becomes available (its Ready transition plus
// min_ready_seconds); nullopt when it is not Ready.
std::optional<TimePoint> PodAvailableAt(const json& pod, int64_t min_ready_seconds);

// spec.replicas, defaulting to 1 as the API server does.
int64_t SpecReplicas(const json& obj);

// Writes `status` fields into obj.status (integer 0 removes the field, as
// the API's omitempty counters do, except "replicas").  Returns true when
// the store changed.
bool UpdateStatus(Store& store, const std::string& store_id, const json& obj, const json& status);

// Keys of the objects of a type per controlling owner uid.
std::map<std::string, std::vector<std::string>> OwnedByUid(const Store& store, const std::string& store_id);
// (namespace, name) of every object of a type, in key order.
std::vector<std::pair<std::string, std::string>> Keys(const Store& store, const std::string& store_id);
// The object stored under `key` ("ns/name" or "name"), or nullptr.
const json* GetByKey(const Store& store, const std::string& store_id, const std::string& key);

// Keys of the active pods in `ns` whose controlling owner has `uid`.
std::vector<std::string> ActivePodsOf(const Store& store, const std::string& ns, const std::string& uid);
// Keys of the objects of a type in `ns` whose controlling owner has `uid`.
std::vector<std::string> OwnedIn(const Store& store, const std::string& store_id, const std::string& ns,
                                 const std::string& uid);
// Adds "ns/<owner name>" to *out when obj's controlling owner is a `kind`.
void AddControllerKey(const json* obj, const std::string& kind, std::set<std::string>* out);

// The owners (objects of `owner_id`, kind `owner_kind`) a workload controller
// must look at.  incremental: those that changed since the cursor, or whose
// children (objects of `child_id`) changed; otherwise (first run, history
// compacted past the cursor) every owner, and the caller indexes children itself.
struct OwnersToReconcile {
  bool incremental = false;
  std::vector<std::pair<std::string, std::string>> keys;  // (namespace, name)
};
OwnersToReconcile ChangedOwners(const ChangeCursor& cursor, const Store& store, const std::string& owner_id,
                                const std::string& child_id, const std::string& owner_kind);

}  // namespace kubeon::kubesim
