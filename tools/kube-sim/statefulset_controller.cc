// See statefulset_controller.h.
#include "statefulset_controller.h"

#include <map>
#include <set>
#include <vector>

#include "resources.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kRevisionLabel = "controller-revision-hash";

bool Healthy(const json& pod) { return PodPhase(pod) == "Running" && IsPodReady(pod); }

}  // namespace

bool StatefulSetController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  bool wrote = false;
  const OwnersToReconcile owners = ChangedOwners(cursor_, store, kStatefulSets, kPods, "StatefulSet");
  const bool incremental = owners.incremental;
  std::map<std::string, std::vector<std::string>> pods_by_owner;
  if (!incremental) pods_by_owner = OwnedByUid(store, kPods);
  const auto& todo = owners.keys;
  for (const auto& [sts_ns, sts_name] : todo) {
    const json* stored = store.Get(kStatefulSets, sts_ns, sts_name);
    if (stored == nullptr) continue;
    json sts = *stored;
    const std::string ns = Namespace(sts);
    const std::string name = Name(sts);
    const json tmpl = Find(sts, {"spec", "template"}) ? sts["spec"]["template"] : json::object();
    int64_t generation = Int(sts, {"metadata", "generation"}, 1);
    std::string revision = Str(sts, {"status", "updateRevision"});
    const bool unchanged = Find(sts, {"status", "observedGeneration"}) == nullptr ||
                           Int(sts, {"status", "observedGeneration"}, 0) >= generation;
    if (revision.empty() || !unchanged) {
      revision = name + "-" + SafeHash(tmpl.dump());
      if (UpdateStatus(store, kStatefulSets, sts,
                       {{"updateRevision", revision}, {"observedGeneration", generation}})) {
        wrote = true;
      }
      sts = *store.Get(kStatefulSets, ns, name);
    }
    const int64_t want = SpecReplicas(sts);
    const bool parallel = Str(sts, {"spec", "podManagementPolicy"}) == "Parallel";
    const bool on_delete = Str(sts, {"spec", "updateStrategy", "type"}) == "OnDelete";
    std::map<int64_t, json> pods;  // ordinal -> pod
    const std::vector<std::string> owned =
        incremental ? OwnedIn(store, kPods, ns, Uid(sts)) : pods_by_owner[Uid(sts)];
    for (const auto& key : owned) {
      const json* pod = GetByKey(store, kPods, key);
      if (pod == nullptr) continue;
      std::string n = Name(*pod);
      if (n.rfind(name + "-", 0) != 0) continue;
      std::string ord = n.substr(name.size() + 1);
      if (ord.empty() || ord.find_first_not_of("0123456789") != std::string::npos) continue;
      pods[std::atoll(ord.c_str())] = *pod;
    }
    // Create missing ordinals.
    json ref = ControllerOwnerRef(sts, "apps/v1", "StatefulSet");
    bool lower_healthy = true;
    for (int64_t i = 0; i < want; ++i) {
      auto it = pods.find(i);
      if (it != pods.end()) {
        lower_healthy = lower_healthy && Healthy(it->second);
        continue;
      }
      if (!parallel && !lower_healthy) break;
      std::string pod_name = name + "-" + std::to_string(i);
      json pod = PodFromTemplate(tmpl, ns, pod_name, ref);
      pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = pod_name;
      pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] = std::to_string(i);
      pod["metadata"]["labels"][kRevisionLabel] = revision;
      pod["spec"]["hostname"] = pod_name;
      if (!Str(sts, {"spec", "serviceName"}).empty()) pod["spec"]["subdomain"] = Str(sts, {"spec", "serviceName"});
      auto created = store.Create(kPods, std::move(pod));
      if (created.ok()) {
        wrote = true;
        pods[i] = created.value();
      }
      lower_healthy = false;  // the new pod is not ready yet
      if (!parallel) break;
    }
    // Scale down, highest ordinal first.
    std::vector<int64_t> extra;
    for (const auto& [ord, pod] : pods) {
      if (ord >= want) extra.insert(extra.begin(), ord);
    }
    for (int64_t ord : extra) {
      if (store.Delete(kPods, ns, Name(pods[ord])).ok()) wrote = true;
      pods.erase(ord);
      if (!parallel) break;
    }
    // Rolling update: replace the highest outdated pod when all are healthy.
    bool all_healthy = static_cast<int64_t>(pods.size()) >= want;
    for (const auto& [ord, pod] : pods) all_healthy = all_healthy && Healthy(pod);
    if (!on_delete && all_healthy) {
      for (auto it = pods.rbegin(); it != pods.rend(); ++it) {
        std::string have = Str(it->second, {"metadata", "labels", kRevisionLabel});
        if (it->first < want && !have.empty() && have != revision) {
          if (store.Delete(kPods, ns, Name(it->second)).ok()) wrote = true;
          break;
        }
      }
    }
    // Status.
    int64_t replicas = 0, ready = 0, updated = 0;
    for (const auto& [ord, stale] : pods) {
      (void)ord;
      const json* pod = store.Get(kPods, ns, Name(stale));
      if (pod == nullptr || !IsPodActive(*pod)) continue;
      ++replicas;
      if (IsPodReady(*pod)) ++ready;
      if (Str(*pod, {"metadata", "labels", kRevisionLabel}) == revision) ++updated;
    }
    json status = {{"replicas", replicas},        {"readyReplicas", ready},
                   {"availableReplicas", ready},  {"currentReplicas", updated},
                   {"updatedReplicas", updated},  {"updateRevision", revision},
                   {"observedGeneration", generation}};
    if (updated == replicas) status["currentRevision"] = revision;
    const json* latest = store.Get(kStatefulSets, ns, name);
    if (latest != nullptr && UpdateStatus(store, kStatefulSets, *latest, status)) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
