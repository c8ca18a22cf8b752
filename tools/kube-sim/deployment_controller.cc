// See deployment_controller.h.
#include "deployment_controller.h"

#include <algorithm>
#include <map>
#include <set>

#include "resources.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kHashLabel = "pod-template-hash";
constexpr const char* kRevisionAnnotation = "deployment.kubernetes.io/revision";

// Whether a ReplicaSet's template equals a Deployment's, ignoring the
// pod-template-hash label (compared in place: templates can be large).
bool SameTemplate(const json& rs_tmpl, const json& tmpl) {
  if (!rs_tmpl.is_object() || !tmpl.is_object()) return rs_tmpl == tmpl;
  auto other_keys_equal = [](const json& a, const json& b, const char* skip) {
    size_t na = 0, nb = 0;
    for (const auto& [k, v] : a.items()) {
      if (k == skip) continue;
      ++na;
      auto it = b.find(k);
      if (it == b.end() || *it != v) return false;
    }
    for (const auto& [k, v] : b.items()) {
      (void)v;
      if (k != skip) ++nb;
    }
    return na == nb;
  };
  if (!other_keys_equal(rs_tmpl, tmpl, "metadata")) return false;
  const json empty = json::object();
  const json& ma = rs_tmpl.contains("metadata") ? rs_tmpl["metadata"] : empty;
  const json& mb = tmpl.contains("metadata") ? tmpl["metadata"] : empty;
  if (!other_keys_equal(ma, mb, "labels")) return false;
  const json& la = ma.contains("labels") ? ma["labels"] : empty;
  const json& lb = mb.contains("labels") ? mb["labels"] : empty;
  return other_keys_equal(la, lb, kHashLabel);
}

int64_t Revision(const json& rs) {
  std::string r = Str(rs, {"metadata", "annotations", kRevisionAnnotation});
  return r.empty() ? 0 : std::atoll(r.c_str());
}

bool SetReplicas(Store& store, const json& rs, int64_t replicas) {
  if (SpecReplicas(rs) == replicas) return false;
  json updated = rs;
  updated["spec"]["replicas"] = replicas;
  return store.Update(kReplicaSets, std::move(updated)).ok();
}

json NewReplicaSet(const json& deploy, const std::string& hash, int64_t revision) {
  json tmpl = Find(deploy, {"spec", "template"}) ? deploy["spec"]["template"] : json::object();
  tmpl["metadata"]["labels"][kHashLabel] = hash;
  json selector = Find(deploy, {"spec", "selector"}) ? deploy["spec"]["selector"] : json::object();
  selector["matchLabels"][kHashLabel] = hash;
  json meta = {{"name", Name(deploy) + "-" + hash},
               {"namespace", Namespace(deploy)},
               {"labels", tmpl["metadata"]["labels"]},
               {"annotations", {{kRevisionAnnotation, std::to_string(revision)}}},
               {"ownerReferences", json::array({ControllerOwnerRef(deploy, "apps/v1", "Deployment")})}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata", meta},
          {"spec", {{"replicas", 0}, {"selector", selector}, {"template", tmpl}}}};
}

}  // namespace

bool DeploymentController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  bool wrote = false;
  const OwnersToReconcile owners = ChangedOwners(cursor_, store, kDeployments, kReplicaSets, "Deployment");
  const bool incremental = owners.incremental;
  std::map<std::string, std::vector<std::string>> rs_by_owner;
  if (!incremental) rs_by_owner = OwnedByUid(store, kReplicaSets);
  const auto& todo = owners.keys;
  for (const auto& [ns, dname] : todo) {
    const json* dp = store.Get(kDeployments, ns, dname);
    if (dp == nullptr) continue;
    const json& deploy = *dp;  // stays valid: only its status is written, last
    const json empty = json::object();
    const json& tmpl = Find(deploy, {"spec", "template"}) != nullptr ? deploy["spec"]["template"] : empty;
    // Pointers into the store stay valid while ReplicaSets are created or
    // updated (std::map nodes do not move).
    std::vector<const json*> owned;
    for (const auto& key : incremental ? OwnedIn(store, kReplicaSets, ns, Uid(deploy)) : rs_by_owner[Uid(deploy)]) {
      if (const json* rs = GetByKey(store, kReplicaSets, key)) owned.push_back(rs);
    }
    const json* current = nullptr;
    const json* newest = nullptr;
    int64_t max_revision = 0;
    for (const json* rs : owned) {
      if (newest == nullptr || Revision(*rs) > max_revision) newest = rs;
      max_revision = std::max(max_revision, Revision(*rs));
      if (current == nullptr && Find(*rs, {"spec", "template"}) != nullptr &&
          SameTemplate((*rs)["spec"]["template"], tmpl)) {
        current = rs;
      }
    }
    // A Deployment not changed since it was last observed (e.g. loaded from a
    // snapshot whose templates differ in defaulted fields) keeps its newest
    // ReplicaSet rather than starting a rollout.
    const bool unchanged = Find(deploy, {"status", "observedGeneration"}) == nullptr ||
                           Int(deploy, {"status", "observedGeneration"}, 0) >= Int(deploy, {"metadata", "generation"}, 1);
    if (current == nullptr && unchanged) current = newest;
    const int64_t want = SpecReplicas(deploy);
    const bool recreate = Str(deploy, {"spec", "strategy", "type"}) == "Recreate";
    int64_t old_active = 0;
    for (const json* rs : owned) {
      if (rs != current) old_active += Int(*rs, {"status", "replicas"}, 0);
    }
    if (current == nullptr) {
      std::string hash = SafeHash(tmpl.dump());
      while (store.Get(kReplicaSets, ns, dname + "-" + hash) != nullptr) {
        hash = SafeHash(tmpl.dump() + hash);  // collision: rehash, like collisionCount
      }
      auto created = store.Create(kReplicaSets, NewReplicaSet(deploy, hash, max_revision + 1));
      if (!created.ok()) continue;
      wrote = true;
      current = store.Get(kReplicaSets, ns, Name(created.value()));
      owned.push_back(current);
    }
    // Scale: new first (Recreate waits for old pods to be gone), old after.
    const int64_t new_ready = Int(*current, {"status", "readyReplicas"}, 0);
    if (!recreate || old_active == 0) wrote |= SetReplicas(store, *current, want);
    for (const json* rs : owned) {
      if (rs == current) continue;
      int64_t target = recreate ? 0 : std::max<int64_t>(0, std::min(SpecReplicas(*rs), want - new_ready));
      wrote |= SetReplicas(store, *rs, target);
    }
    // Status from the ReplicaSets' statuses.
    int64_t replicas = 0, ready = 0, updated = 0;
    for (const json* rs : owned) {
      replicas += Int(*rs, {"status", "replicas"}, 0);
      ready += Int(*rs, {"status", "readyReplicas"}, 0);
      if (rs == current) updated = Int(*rs, {"status", "replicas"}, 0);
    }
    std::string now = Rfc3339(ctx.now);
    const bool available = ready >= want;
    const bool complete = updated == want && replicas == want && ready >= want;
    const json* old_conds = Find(deploy, {"status", "conditions"});
    auto cond = [&](const std::string& type, bool ok, const std::string& reason, const std::string& msg) {
      json c = {{"type", type}, {"status", ok ? "True" : "False"}, {"reason", reason},
                {"message", msg}, {"lastUpdateTime", now}, {"lastTransitionTime", now}};
      if (old_conds != nullptr && old_conds->is_array()) {
        for (const auto& o : *old_conds) {
          if (o.value("type", "") == type && o.value("status", "") == c["status"] && o.value("reason", "") == reason) {
            c["lastTransitionTime"] = o.value("lastTransitionTime", now);
            c["lastUpdateTime"] = o.value("lastUpdateTime", now);
          }
        }
      }
      return c;
    };
    const std::string rs_name = Name(*current);
    json conds = json::array(
        {cond("Available", available, available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
              available ? "Deployment has minimum availability." : "Deployment does not have minimum availability."),
         cond("Progressing", true, complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
              "ReplicaSet \"" + rs_name + (complete ? "\" has successfully progressed." : "\" is progressing."))});
    json status = {{"observedGeneration", Int(deploy, {"metadata", "generation"}, 1)},
                   {"replicas", replicas},
                   {"updatedReplicas", updated},
                   {"readyReplicas", ready},
                   {"availableReplicas", ready},
                   {"unavailableReplicas", std::max<int64_t>(0, want - ready)},
                   {"conditions", conds}};
    if (UpdateStatus(store, kDeployments, deploy, status)) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
