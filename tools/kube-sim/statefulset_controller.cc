// See statefulset_controller.h.
#include "statefulset_controller.h"

#include <map>
#include <set>
#include <vector>

#include "pod_deletion.h"
#include "resources.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kRevisionLabel = "controller-revision-hash";

bool RunningAndReady(const json& pod) { return PodPhase(pod) == "Running" && IsPodReady(pod); }

std::string PodRevision(const json& pod) { return Str(pod, {"metadata", "labels", kRevisionLabel}); }

}  // namespace

bool StatefulSetController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  bool wrote = false;
  const OwnersToReconcile owners = ChangedOwners(cursor_, store, kStatefulSets, kPods, "StatefulSet");
  const bool incremental = owners.incremental;
  std::map<std::string, std::vector<std::string>> pods_by_owner;
  if (!incremental) pods_by_owner = OwnedByUid(store, kPods);
  std::set<std::pair<std::string, std::string>> todo(owners.keys.begin(), owners.keys.end());
  todo.insert(waiting_available_.begin(), waiting_available_.end());
  waiting_available_.clear();
  for (const auto& [sts_ns, sts_name] : todo) {
    const json* stored = store.Get(kStatefulSets, sts_ns, sts_name);
    if (stored == nullptr) continue;
    json sts = *stored;
    const std::string ns = Namespace(sts);
    const std::string name = Name(sts);
    const json tmpl = Find(sts, {"spec", "template"}) ? sts["spec"]["template"] : json::object();
    const int64_t generation = Int(sts, {"metadata", "generation"}, 1);
    std::string update_rev = Str(sts, {"status", "updateRevision"});
    const bool unchanged = Find(sts, {"status", "observedGeneration"}) == nullptr ||
                           Int(sts, {"status", "observedGeneration"}, 0) >= generation;
    if (update_rev.empty() || !unchanged) update_rev = name + "-" + SafeHash(tmpl.dump());
    std::string current_rev = Str(sts, {"status", "currentRevision"});
    if (current_rev.empty()) current_rev = update_rev;
    templates_[ns + "/" + update_rev] = tmpl;
    const int64_t want = SpecReplicas(sts);
    const bool monotonic = Str(sts, {"spec", "podManagementPolicy"}) != "Parallel";
    const bool rolling = Str(sts, {"spec", "updateStrategy", "type"}) != "OnDelete";
    const json* partition_json = Find(sts, {"spec", "updateStrategy", "rollingUpdate", "partition"});
    const bool has_partition = partition_json != nullptr && partition_json->is_number_integer();
    const int64_t partition = has_partition ? partition_json->get<int64_t>() : 0;
    // ordinal -> (namespace/name key) of the pods this set owns
    std::map<int64_t, std::string> pods;
    const std::vector<std::string> owned =
        incremental ? OwnedIn(store, kPods, ns, Uid(sts)) : pods_by_owner[Uid(sts)];
    for (const auto& key : owned) {
      const json* pod = GetByKey(store, kPods, key);
      if (pod == nullptr) continue;
      std::string n = Name(*pod);
      if (n.rfind(name + "-", 0) != 0) continue;
      std::string ord = n.substr(name.size() + 1);
      if (ord.empty() || ord.find_first_not_of("0123456789") != std::string::npos) continue;
      pods[std::atoll(ord.c_str())] = key;
    }
    auto pod_at = [&](int64_t ord) -> const json* {
      auto it = pods.find(ord);
      return it == pods.end() ? nullptr : GetByKey(store, kPods, it->second);
    };
    int64_t current_count = 0;
    for (const auto& [ord, key] : pods) {
      const json* pod = GetByKey(store, kPods, key);
      if (pod != nullptr && !IsPodDeleting(*pod) && PodRevision(*pod) == current_rev) ++current_count;
    }
    const json ref = ControllerOwnerRef(sts, "apps/v1", "StatefulSet");
    auto create = [&](int64_t ord) {
      const bool at_current = rolling && (has_partition ? ord < partition : ord < current_count);
      std::string rev = at_current ? current_rev : update_rev;
      auto known = templates_.find(ns + "/" + rev);
      if (known == templates_.end()) {
        rev = update_rev;
        known = templates_.find(ns + "/" + rev);
      }
      const std::string pod_name = name + "-" + std::to_string(ord);
      json pod = PodFromTemplate(known->second, ns, pod_name, ref);
      pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = pod_name;
      pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] = std::to_string(ord);
      pod["metadata"]["labels"][kRevisionLabel] = rev;
      pod["spec"]["hostname"] = pod_name;
      if (!Str(sts, {"spec", "serviceName"}).empty()) pod["spec"]["subdomain"] = Str(sts, {"spec", "serviceName"});
      auto created = store.Create(kPods, std::move(pod));
      if (!created.ok()) return;
      wrote = true;
      pods[ord] = Store::Key(ns, pod_name);
    };
    // 1. Ordinals [0, replicas).
    bool blocked = false;
    for (int64_t i = 0; i < want && !blocked; ++i) {
      const json* pod = pod_at(i);
      if (pod == nullptr) {
        create(i);
        blocked = monotonic;
      } else if (IsPodDeleting(*pod) || !RunningAndReady(*pod)) {
        blocked = monotonic;
      }
    }
    // 2. Condemned ordinals, highest first.
    if (!blocked) {
      std::vector<int64_t> condemned;
      for (const auto& [ord, key] : pods) {
        if (ord >= want) condemned.insert(condemned.begin(), ord);
      }
      for (int64_t ord : condemned) {
        const json* pod = pod_at(ord);
        if (pod == nullptr) continue;
        if (IsPodDeleting(*pod)) {
          blocked = monotonic;
        } else if (DeletePod(store, ns, Name(*pod), std::nullopt, ctx.now).ok()) {
          wrote = true;
          blocked = monotonic;
        }
        if (blocked) break;
      }
    }
    // 3. Rolling update from the highest ordinal down to the partition.
    if (!blocked && rolling) {
      for (int64_t target = want - 1; target >= partition; --target) {
        const json* pod = pod_at(target);
        if (pod == nullptr) break;
        if (PodRevision(*pod) != update_rev && !IsPodDeleting(*pod)) {
          if (DeletePod(store, ns, Name(*pod), std::nullopt, ctx.now).ok()) wrote = true;
          break;
        }
        if (IsPodDeleting(*pod) || !RunningAndReady(*pod)) break;
      }
    }
    // Status.
    const int64_t min_ready = Int(sts, {"spec", "minReadySeconds"}, 0);
    int64_t replicas = 0, ready = 0, available = 0, current = 0, updated = 0;
    for (const auto& [ord, key] : pods) {
      const json* pod = GetByKey(store, kPods, key);
      if (pod == nullptr) continue;
      ++replicas;
      if (RunningAndReady(*pod)) {
        ++ready;
        if (IsPodAvailable(*pod, min_ready, ctx.now)) ++available;
        else waiting_available_.emplace(ns, name);
      }
      if (IsPodDeleting(*pod)) continue;
      if (PodRevision(*pod) == current_rev) ++current;
      if (PodRevision(*pod) == update_rev) ++updated;
    }
    if (rolling && updated == replicas && ready == replicas) {
      current_rev = update_rev;
      current = updated;
    }
    json status = {{"replicas", replicas},        {"readyReplicas", ready},
                   {"availableReplicas", available}, {"currentReplicas", current},
                   {"updatedReplicas", updated},  {"updateRevision", update_rev},
                   {"currentRevision", current_rev}, {"observedGeneration", generation}};
    const json* latest = store.Get(kStatefulSets, ns, name);
    if (latest != nullptr && UpdateStatus(store, kStatefulSets, *latest, status)) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
