// See replicaset_controller.h.
#include "replicaset_controller.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "pod_deletion.h"
#include "resources.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

// Deletion preference, lowest first (like ActivePodsWithRanks): unassigned,
// pending, not ready, then the most recently created.
std::tuple<int, int, int, std::string, std::string> DeletionRank(const json& pod) {
  bool assigned = !Str(pod, {"spec", "nodeName"}).empty();
  bool running = PodPhase(pod) == "Running";
  bool ready = IsPodReady(pod);
  std::string created = Str(pod, {"metadata", "creationTimestamp"});
  // Newest first: invert the ordering by negating characters.
  std::string inv;
  for (char c : created) inv.push_back(static_cast<char>(127 - c));
  std::string name_inv;
  for (char c : Name(pod)) name_inv.push_back(static_cast<char>(127 - c));
  return {assigned ? 1 : 0, running ? 1 : 0, ready ? 1 : 0, inv, name_inv};
}

}  // namespace

bool ReplicaSetController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  bool wrote = false;
  const OwnersToReconcile owners = ChangedOwners(cursor_, store, kReplicaSets, kPods, "ReplicaSet");
  const bool incremental = owners.incremental;
  std::map<std::string, std::vector<std::string>> by_owner;
  if (!incremental) by_owner = ActivePodsByOwner(store);
  // ReplicaSets waiting for a ready pod to become available come back too.
  std::set<std::pair<std::string, std::string>> todo(owners.keys.begin(), owners.keys.end());
  todo.insert(waiting_available_.begin(), waiting_available_.end());
  waiting_available_.clear();
  for (const auto& [ns, rs_name] : todo) {
    const json* rs = store.Get(kReplicaSets, ns, rs_name);
    if (rs == nullptr || IsPodDeleting(*rs)) continue;
    const int64_t want = SpecReplicas(*rs);
    std::vector<std::string> keys = incremental ? ActivePodsOf(store, ns, Uid(*rs)) : by_owner[Uid(*rs)];
    const int64_t have = static_cast<int64_t>(keys.size());
    if (have < want) {
      json ref = ControllerOwnerRef(*rs, "apps/v1", "ReplicaSet");
      const json* tmpl = Find(*rs, {"spec", "template"});
      for (int64_t i = have; i < want && tmpl != nullptr; ++i) {
        std::string name;
        do {
          name = rs_name + "-" + RandomSuffix(store.rng(), 5);
        } while (store.Get(kPods, ns, name) != nullptr);
        json pod = PodFromTemplate(*tmpl, ns, name, ref);
        pod["metadata"]["generateName"] = rs_name + "-";
        if (store.Create(kPods, std::move(pod)).ok()) {
          wrote = true;
          keys.push_back(Store::Key(ns, name));
        }
      }
    } else if (have > want) {
      std::vector<const json*> pods;
      for (const auto& k : keys) {
        if (const json* p = GetByKey(store, kPods, k)) pods.push_back(p);
      }
      std::sort(pods.begin(), pods.end(), [](const json* a, const json* b) { return DeletionRank(*a) < DeletionRank(*b); });
      std::vector<std::string> doomed;
      for (int64_t i = 0; i < have - want && i < static_cast<int64_t>(pods.size()); ++i) doomed.push_back(Name(*pods[i]));
      for (const auto& name : doomed) {
        if (DeletePod(store, ns, name, std::nullopt, ctx.now).ok()) {
          wrote = true;
          keys.erase(std::find(keys.begin(), keys.end(), Store::Key(ns, name)));
        }
      }
    }
    // Status from the pods now present.
    rs = store.Get(kReplicaSets, ns, rs_name);
    const json* sel_json = Find(*rs, {"spec", "selector"});
    auto sel = sel_json != nullptr ? LabelSelector::FromJson(*sel_json) : Outcome<LabelSelector>(LabelSelector());
    const int64_t min_ready = Int(*rs, {"spec", "minReadySeconds"}, 0);
    int64_t ready = 0, available = 0, labeled = 0;
    for (const auto& k : keys) {
      const json* pod = GetByKey(store, kPods, k);
      if (pod == nullptr) continue;
      if (IsPodReady(*pod)) ++ready;
      if (IsPodAvailable(*pod, min_ready, ctx.now)) {
        ++available;
      } else if (IsPodReady(*pod)) {
        waiting_available_.emplace(ns, rs_name);
      }
      if (sel.ok() && sel.value().Matches(Labels(*pod))) ++labeled;
    }
    json status = {{"replicas", static_cast<int64_t>(keys.size())},
                   {"fullyLabeledReplicas", labeled},
                   {"readyReplicas", ready},
                   {"availableReplicas", available},
                   {"observedGeneration", Int(*rs, {"metadata", "generation"}, 1)}};
    if (UpdateStatus(store, kReplicaSets, *rs, status)) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
