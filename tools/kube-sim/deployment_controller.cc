// See deployment_controller.h.
#include "deployment_controller.h"

#include <algorithm>
#include <set>

#include "deployment_rollout.h"
#include "resources.h"
#include "selector.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kHashLabel = "pod-template-hash";
constexpr const char* kRevisionAnnotation = "deployment.kubernetes.io/revision";
constexpr int64_t kDefaultProgressDeadlineSeconds = 600;
constexpr int64_t kDefaultRevisionHistoryLimit = 10;

// A template as the API server's Go types would hold it: null members and
// empty objects and arrays dropped (clients such as `kubectl rollout undo`
// send "creationTimestamp": null and "resources": {}; Kubernetes' semantic
// equality treats nil and empty alike).
json Normalized(const json& v) {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, member] : v.items()) {
      json n = Normalized(member);
      if (!n.is_null() && !((n.is_object() || n.is_array()) && n.empty())) out[k] = std::move(n);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) out.push_back(Normalized(e));
    return out;
  }
  return v;
}

// A template without the pod-template-hash label, normalized: what
// ReplicaSets are compared and hashed by (EqualIgnoreHash, ComputeHash).
json TemplateKey(const json& tmpl) {
  json t = Normalized(tmpl);
  if (json* labels = t.contains("metadata") && t["metadata"].contains("labels") ? &t["metadata"]["labels"] : nullptr) {
    labels->erase(kHashLabel);
    if (labels->empty()) t["metadata"].erase("labels");
    if (t["metadata"].empty()) t.erase("metadata");
  }
  return t;
}

int64_t Revision(const json& rs) {
  std::string r = Str(rs, {"metadata", "annotations", kRevisionAnnotation});
  return r.empty() ? 0 : std::atoll(r.c_str());
}

int64_t StatusCount(const json& obj, const char* field) { return Int(obj, {"status", field}, 0); }

bool SetReplicas(Store& store, const json& rs, int64_t replicas) {
  if (SpecReplicas(rs) == replicas) return false;
  json updated = rs;
  updated["spec"]["replicas"] = replicas;
  return store.Update(kReplicaSets, std::move(updated)).ok();
}

json NewReplicaSet(const json& deploy, const std::string& hash, int64_t revision, int64_t replicas) {
  json tmpl = Find(deploy, {"spec", "template"}) ? deploy["spec"]["template"] : json::object();
  tmpl["metadata"]["labels"][kHashLabel] = hash;
  json selector = Find(deploy, {"spec", "selector"}) ? deploy["spec"]["selector"] : json::object();
  selector["matchLabels"][kHashLabel] = hash;
  json meta = {{"name", Name(deploy) + "-" + hash},
               {"namespace", Namespace(deploy)},
               {"labels", tmpl["metadata"]["labels"]},
               {"annotations", {{kRevisionAnnotation, std::to_string(revision)}}},
               {"ownerReferences", json::array({ControllerOwnerRef(deploy, "apps/v1", "Deployment")})}};
  json spec = {{"replicas", replicas}, {"selector", selector}, {"template", tmpl}};
  if (int64_t mrs = Int(deploy, {"spec", "minReadySeconds"}, 0); mrs > 0) spec["minReadySeconds"] = mrs;
  return {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"metadata", meta}, {"spec", spec}};
}

// Conditions of a status under construction (deploymentutil.SetDeploymentCondition).
class Conditions {
 public:
  explicit Conditions(const json* existing) {
    if (existing != nullptr && existing->is_array()) list_ = *existing;
  }
  const json* Get(const std::string& type) const {
    for (const auto& c : list_) {
      if (c.value("type", "") == type) return &c;
    }
    return nullptr;
  }
  // Unchanged when status and reason are the same; keeps lastTransitionTime
  // when only the reason changes.
  void Set(const std::string& type, bool status, const std::string& reason, const std::string& message,
           const std::string& now) {
    json c = Make(type, status, reason, message, now);
    if (const json* cur = Get(type)) {
      if (cur->value("status", "") == c["status"] && cur->value("reason", "") == reason) return;
      if (cur->value("status", "") == c["status"]) c["lastTransitionTime"] = cur->value("lastTransitionTime", now);
    }
    Replace(std::move(c));
  }
  // Progressing=True ReplicaSetUpdated on progress: lastUpdateTime always
  // moves, lastTransitionTime is kept when it was True already.
  void Progressed(const std::string& message, const std::string& now) {
    json c = Make("Progressing", true, "ReplicaSetUpdated", message, now);
    if (const json* cur = Get("Progressing"); cur != nullptr && cur->value("status", "") == "True") {
      c["lastTransitionTime"] = cur->value("lastTransitionTime", now);
    }
    Replace(std::move(c));
  }
  const json& list() const { return list_; }

 private:
  static json Make(const std::string& type, bool status, const std::string& reason, const std::string& message,
                   const std::string& now) {
    return {{"type", type}, {"status", status ? "True" : "False"}, {"reason", reason},
            {"message", message}, {"lastUpdateTime", now}, {"lastTransitionTime", now}};
  }
  void Replace(json c) {
    for (auto& o : list_) {
      if (o.value("type", "") == c["type"]) {
        o = std::move(c);
        return;
      }
    }
    list_.push_back(std::move(c));
  }
  json list_ = json::array();
};

// One Deployment's sync: the ReplicaSets it owns, the rollout step, status.
class DeploymentSync {
 public:
  // `orphans`: keys of the ReplicaSets without a controller in the
  // Deployment's namespace.
  DeploymentSync(ControllerContext& ctx, const json& deploy, const std::vector<std::string>& orphans)
      : ctx_(ctx), store_(ctx.store), deploy_(deploy), orphans_(orphans) {}

  // Returns true when it wrote; *deadline is set when the progress deadline
  // must be checked again later.
  bool Run(const std::vector<std::string>& owned_keys, std::optional<TimePoint>* deadline);

 private:
  void AdoptOrphans();
  void SplitReplicaSets();
  bool RollingStep();
  bool RecreateStep();
  bool OldPodsExist() const;
  bool CreateNewReplicaSet(int64_t replicas);
  void SyncNewRevision();
  void Cleanup();
  bool WriteStatus(std::optional<TimePoint>* deadline);

  ControllerContext& ctx_;
  Store& store_;
  const json& deploy_;
  const std::vector<std::string>& orphans_;
  std::vector<const json*> owned_;
  const json* new_rs_ = nullptr;
  std::vector<const json*> old_;  // oldest first
  int64_t max_old_revision_ = 0;
  bool created_ = false;
  bool wrote_ = false;
};

bool DeploymentSync::Run(const std::vector<std::string>& owned_keys, std::optional<TimePoint>* deadline) {
  for (const auto& key : owned_keys) {
    if (const json* rs = GetByKey(store_, kReplicaSets, key)) owned_.push_back(rs);
  }
  AdoptOrphans();
  SplitReplicaSets();
  const bool recreate = Str(deploy_, {"spec", "strategy", "type"}) == "Recreate";
  const bool scaled = recreate ? RecreateStep() : RollingStep();
  if (!scaled && new_rs_ != nullptr && Find(deploy_, {"status"}) != nullptr) Cleanup();
  WriteStatus(deadline);
  return wrote_;
}

void DeploymentSync::AdoptOrphans() {
  const json* sel_json = Find(deploy_, {"spec", "selector"});
  if (orphans_.empty() || sel_json == nullptr) return;
  auto sel = LabelSelector::FromJson(*sel_json);
  if (!sel.ok() || sel.value().empty()) return;
  for (const auto& key : orphans_) {
    const json* stored = GetByKey(store_, kReplicaSets, key);
    if (stored == nullptr || ControllerRef(*stored) != nullptr || IsPodDeleting(*stored) ||
        !sel.value().Matches(Labels(*stored))) {
      continue;
    }
    json rs = *stored;
    json refs = rs["metadata"].contains("ownerReferences") ? rs["metadata"]["ownerReferences"] : json::array();
    refs.push_back(ControllerOwnerRef(deploy_, "apps/v1", "Deployment"));
    rs["metadata"]["ownerReferences"] = refs;
    if (!store_.Update(kReplicaSets, std::move(rs)).ok()) continue;
    wrote_ = true;
    owned_.push_back(stored);  // the same map node, now updated
  }
}

void DeploymentSync::SplitReplicaSets() {
  std::sort(owned_.begin(), owned_.end(), [](const json* a, const json* b) {
    const std::string ca = Str(*a, {"metadata", "creationTimestamp"}), cb = Str(*b, {"metadata", "creationTimestamp"});
    return ca != cb ? ca < cb : Name(*a) < Name(*b);
  });
  const json* tmpl = Find(deploy_, {"spec", "template"});
  const json key = TemplateKey(tmpl != nullptr ? *tmpl : json::object());
  const json* newest = nullptr;
  for (const json* rs : owned_) {
    if (newest == nullptr || Revision(*rs) > Revision(*newest)) newest = rs;
    const json* rs_tmpl = Find(*rs, {"spec", "template"});
    if (new_rs_ == nullptr && rs_tmpl != nullptr && TemplateKey(*rs_tmpl) == key) new_rs_ = rs;
  }
  // A Deployment not changed since it was last observed (e.g. loaded from a
  // snapshot whose templates differ in defaulted fields) keeps its newest
  // ReplicaSet rather than starting a rollout; not one scaled to 0, which
  // is an old one a Recreate rollout emptied before creating the new one.
  const bool unchanged = Find(deploy_, {"status", "observedGeneration"}) == nullptr ||
                         Int(deploy_, {"status", "observedGeneration"}, 0) >= Int(deploy_, {"metadata", "generation"}, 1);
  if (new_rs_ == nullptr && unchanged && newest != nullptr && SpecReplicas(*newest) > 0) new_rs_ = newest;
  for (const json* rs : owned_) {
    if (rs == new_rs_) continue;
    old_.push_back(rs);
    max_old_revision_ = std::max(max_old_revision_, Revision(*rs));
  }
  if (new_rs_ != nullptr) SyncNewRevision();
}

void DeploymentSync::SyncNewRevision() {
  json rs = *new_rs_;
  bool changed = false;
  if (Revision(rs) <= max_old_revision_) {
    rs["metadata"]["annotations"][kRevisionAnnotation] = std::to_string(max_old_revision_ + 1);
    changed = true;
  }
  const int64_t mrs = Int(deploy_, {"spec", "minReadySeconds"}, 0);
  if (Int(rs, {"spec", "minReadySeconds"}, 0) != mrs) {
    if (mrs > 0) rs["spec"]["minReadySeconds"] = mrs;
    else rs["spec"].erase("minReadySeconds");
    changed = true;
  }
  if (changed && store_.Update(kReplicaSets, std::move(rs)).ok()) wrote_ = true;
}

bool DeploymentSync::CreateNewReplicaSet(int64_t replicas) {
  const std::string ns = Namespace(deploy_), dname = Name(deploy_);
  const json* tmpl_ptr = Find(deploy_, {"spec", "template"});
  const std::string dump = TemplateKey(tmpl_ptr != nullptr ? *tmpl_ptr : json::object()).dump();
  std::string hash = SafeHash(dump);
  while (store_.Get(kReplicaSets, ns, dname + "-" + hash) != nullptr) {
    hash = SafeHash(dump + hash);  // collision: rehash, like collisionCount
  }
  auto created = store_.Create(kReplicaSets, NewReplicaSet(deploy_, hash, max_old_revision_ + 1, replicas));
  if (!created.ok()) return false;
  wrote_ = created_ = true;
  new_rs_ = store_.Get(kReplicaSets, ns, Name(created.value()));
  return true;
}

bool DeploymentSync::RollingStep() {
  const int64_t want = SpecReplicas(deploy_);
  int64_t all_spec = 0;
  for (const json* rs : old_) all_spec += SpecReplicas(*rs);
  if (new_rs_ == nullptr) {
    return CreateNewReplicaSet(NewReplicaSetReplicas(deploy_, all_spec, 0));
  }
  all_spec += SpecReplicas(*new_rs_);
  // reconcileNewReplicaSet
  const int64_t have = SpecReplicas(*new_rs_);
  if (have != want) {
    const int64_t target = have > want ? want : NewReplicaSetReplicas(deploy_, all_spec, have);
    if (SetReplicas(store_, *new_rs_, target)) {
      wrote_ = true;
      return true;
    }
  }
  // reconcileOldReplicaSets over the active (spec.replicas > 0) old ones
  std::vector<const json*> active;
  std::vector<ReplicaSetCounts> counts;
  for (const json* rs : old_) {
    if (SpecReplicas(*rs) <= 0) continue;
    active.push_back(rs);
    counts.push_back({SpecReplicas(*rs), StatusCount(*rs, "availableReplicas")});
  }
  const std::vector<int64_t> targets =
      ScaleDownOldReplicaSets(deploy_, counts, {SpecReplicas(*new_rs_), StatusCount(*new_rs_, "availableReplicas")});
  bool scaled = false;
  for (size_t i = 0; i < active.size(); ++i) scaled |= SetReplicas(store_, *active[i], targets[i]);
  wrote_ |= scaled;
  return scaled;
}

bool DeploymentSync::OldPodsExist() const {
  std::set<std::string> old_uids;
  for (const json* rs : old_) {
    if (StatusCount(*rs, "replicas") > 0) return true;
    old_uids.insert(Uid(*rs));
  }
  if (old_uids.empty()) return false;
  bool found = false;
  store_.ForEach(kPods, Namespace(deploy_), "", [&](const std::string&, const json& pod) {
    const json* ref = ControllerRef(pod);
    found = ref != nullptr && !IsPodTerminal(pod) && old_uids.count(ref->value("uid", "")) > 0;
    return !found;
  });
  return found;
}

bool DeploymentSync::RecreateStep() {
  bool scaled = false;
  for (const json* rs : old_) scaled |= SetReplicas(store_, *rs, 0);
  wrote_ |= scaled;
  if (scaled || OldPodsExist()) return true;
  const int64_t want = SpecReplicas(deploy_);
  if (new_rs_ == nullptr) return CreateNewReplicaSet(want);
  if (SetReplicas(store_, *new_rs_, want)) {
    wrote_ = true;
    return true;
  }
  return false;
}

// cleanupDeployment, once the rollout is complete.
void DeploymentSync::Cleanup() {
  const int64_t want = SpecReplicas(deploy_);
  const bool complete = StatusCount(deploy_, "updatedReplicas") == want && StatusCount(deploy_, "replicas") == want &&
                        StatusCount(deploy_, "availableReplicas") == want &&
                        Int(deploy_, {"status", "observedGeneration"}, 0) >= Int(deploy_, {"metadata", "generation"}, 1);
  if (!complete) return;
  std::vector<const json*> cleanable;
  for (const json* rs : old_) {
    if (!IsPodDeleting(*rs)) cleanable.push_back(rs);
  }
  const int64_t limit = Int(deploy_, {"spec", "revisionHistoryLimit"}, kDefaultRevisionHistoryLimit);
  const int64_t diff = static_cast<int64_t>(cleanable.size()) - limit;
  if (diff <= 0) return;
  std::stable_sort(cleanable.begin(), cleanable.end(),
                   [](const json* a, const json* b) { return Revision(*a) < Revision(*b); });
  std::vector<std::pair<std::string, std::string>> doomed;
  for (int64_t i = 0; i < diff; ++i) {
    const json& rs = *cleanable[static_cast<size_t>(i)];
    if (StatusCount(rs, "replicas") != 0 || SpecReplicas(rs) != 0 ||
        Int(rs, {"metadata", "generation"}, 1) > Int(rs, {"status", "observedGeneration"}, 0)) {
      continue;
    }
    doomed.emplace_back(Namespace(rs), Name(rs));
  }
  for (const auto& [ns, name] : doomed) {
    const json* rs = store_.Get(kReplicaSets, ns, name);
    old_.erase(std::remove(old_.begin(), old_.end(), rs), old_.end());
    if (store_.Delete(kReplicaSets, ns, name).ok()) wrote_ = true;
  }
}

bool DeploymentSync::WriteStatus(std::optional<TimePoint>* deadline) {
  const int64_t want = SpecReplicas(deploy_);
  const std::string now = Rfc3339(ctx_.now);
  int64_t replicas = 0, ready = 0, available = 0, total_spec = 0;
  std::vector<const json*> all = old_;
  if (new_rs_ != nullptr) all.push_back(new_rs_);
  for (const json* rs : all) {
    replicas += StatusCount(*rs, "replicas");
    ready += StatusCount(*rs, "readyReplicas");
    available += StatusCount(*rs, "availableReplicas");
    total_spec += SpecReplicas(*rs);
  }
  const int64_t updated = new_rs_ != nullptr ? StatusCount(*new_rs_, "replicas") : 0;
  const int64_t generation = Int(deploy_, {"metadata", "generation"}, 1);
  Conditions conds(Find(deploy_, {"status", "conditions"}));
  const int64_t progress_deadline = Int(deploy_, {"spec", "progressDeadlineSeconds"}, kDefaultProgressDeadlineSeconds);
  const bool has_deadline = progress_deadline != INT32_MAX;
  const std::string rs_name = new_rs_ != nullptr ? Name(*new_rs_) : "";
  if (has_deadline && created_) {
    conds.Set("Progressing", true, "NewReplicaSetCreated", "Created new replica set \"" + rs_name + "\"", now);
  } else if (has_deadline && new_rs_ != nullptr && conds.Get("Progressing") == nullptr) {
    conds.Set("Progressing", true, "FoundNewReplicaSet", "Found new replica set \"" + rs_name + "\"", now);
  }
  const bool min_available = available >= want - MaxUnavailable(deploy_);
  conds.Set("Available", min_available, min_available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
            min_available ? "Deployment has minimum availability." : "Deployment does not have minimum availability.",
            now);
  // syncRolloutStatus
  const json* cur = conds.Get("Progressing");
  const bool was_complete = replicas == updated && cur != nullptr && cur->value("reason", "") == "NewReplicaSetAvailable";
  const bool complete = updated == want && replicas == want && available == want;
  const int64_t old_replicas = StatusCount(deploy_, "replicas"), old_updated = StatusCount(deploy_, "updatedReplicas");
  const bool progressing = updated > old_updated || (replicas - updated) < (old_replicas - old_updated) ||
                           ready > StatusCount(deploy_, "readyReplicas") ||
                           available > StatusCount(deploy_, "availableReplicas");
  const std::string what = new_rs_ != nullptr ? "ReplicaSet \"" + rs_name + "\"" : "Deployment \"" + Name(deploy_) + "\"";
  if (has_deadline && !was_complete) {
    if (complete && new_rs_ != nullptr) {
      conds.Set("Progressing", true, "NewReplicaSetAvailable", what + " has successfully progressed.", now);
    } else if (progressing) {
      conds.Progressed(what + " is progressing.", now);
    } else if (cur != nullptr && cur->value("reason", "") != "ProgressDeadlineExceeded") {
      const auto from = ParseRfc3339(cur->value("lastUpdateTime", "")).value_or(ctx_.now);
      const TimePoint due = from + std::chrono::seconds(progress_deadline);
      if (due < ctx_.now) {
        conds.Set("Progressing", false, "ProgressDeadlineExceeded", what + " has timed out progressing.", now);
      } else {
        *deadline = due + std::chrono::milliseconds(1);  // "Before(now)": strictly after
      }
    }
  }
  if (const json* p = conds.Get("Progressing"); has_deadline && p != nullptr && !deadline->has_value() &&
                                                 p->value("status", "") == "True" &&
                                                 p->value("reason", "") != "NewReplicaSetAvailable") {
    const auto from = ParseRfc3339(p->value("lastUpdateTime", "")).value_or(ctx_.now);
    *deadline = from + std::chrono::seconds(progress_deadline) + std::chrono::milliseconds(1);
  }
  json status = Find(deploy_, {"status"}) != nullptr && deploy_["status"].is_object() ? deploy_["status"] : json::object();
  const std::pair<const char*, int64_t> counters[] = {
      {"replicas", replicas}, {"updatedReplicas", updated}, {"readyReplicas", ready},
      {"availableReplicas", available}, {"unavailableReplicas", std::max<int64_t>(0, total_spec - available)}};
  for (const auto& [k, v] : counters) {
    if (v == 0 && std::string(k) != "replicas") status.erase(k);  // omitempty
    else status[k] = v;
  }
  status["observedGeneration"] = generation;
  status["conditions"] = conds.list();
  json updated_obj = deploy_;
  updated_obj["status"] = status;
  if (new_rs_ != nullptr) {
    updated_obj["metadata"]["annotations"][kRevisionAnnotation] = std::to_string(Revision(*new_rs_));
  }
  if (updated_obj == deploy_) return false;
  const uint64_t before = store_.ResourceVersion();
  if (store_.Update(kDeployments, std::move(updated_obj)).ok() && store_.ResourceVersion() != before) wrote_ = true;
  return wrote_;
}

}  // namespace

bool DeploymentController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  std::set<std::pair<std::string, std::string>> todo;
  // A pod counts for the Deployment that controls its ReplicaSet.
  auto add_via_rs = [&](const json& pod) {
    const json* ref = ControllerRef(pod);
    if (ref == nullptr || ref->value("kind", "") != "ReplicaSet") return;
    const json* rs = store.Get(kReplicaSets, Namespace(pod), ref->value("name", ""));
    const json* dref = rs != nullptr ? ControllerRef(*rs) : nullptr;
    if (dref != nullptr && dref->value("kind", "") == "Deployment") todo.emplace(Namespace(pod), dref->value("name", ""));
  };
  auto add_owner = [&](const json* obj) {
    const json* ref = obj != nullptr ? ControllerRef(*obj) : nullptr;
    if (ref != nullptr && ref->value("kind", "") == "Deployment") todo.emplace(Namespace(*obj), ref->value("name", ""));
  };
  const bool incremental = cursor_.Collect(store, [&](const std::string& id, const std::string&, const json& obj,
                                                      const json* old) {
    if (id == kDeployments) todo.emplace(Namespace(obj), Name(obj));
    if (id == kReplicaSets) {
      add_owner(&obj);
      add_owner(old);
      // An orphan may be adopted by the Deployments of its namespace.
      if (ControllerRef(obj) == nullptr) {
        store.ForEach(kDeployments, Namespace(obj), "", [&](const std::string&, const json& d) {
          todo.emplace(Namespace(d), Name(d));
          return true;
        });
      }
    }
    if (id == kPods) add_via_rs(obj);
  });
  std::map<std::string, std::vector<std::string>> rs_by_owner;
  if (!incremental) {
    rs_by_owner = OwnedByUid(store, kReplicaSets);
    for (const auto& key : Keys(store, kDeployments)) todo.insert(key);
  }
  for (auto it = deadlines_.begin(); it != deadlines_.end();) {
    if (it->second <= ctx.now) {
      todo.insert(it->first);
      it = deadlines_.erase(it);
    } else {
      ++it;
    }
  }
  bool wrote = false;
  std::map<std::string, std::vector<std::string>> orphans;  // namespace -> ReplicaSet keys, filled on first use
  std::set<std::string> scanned;
  for (const auto& key : todo) {
    if (scanned.insert(key.first).second) {
      store.ForEach(kReplicaSets, key.first, "", [&](const std::string& rs_key, const json& rs) {
        if (ControllerRef(rs) == nullptr) orphans[key.first].push_back(rs_key);
        return true;
      });
    }
    const json* deploy = store.Get(kDeployments, key.first, key.second);
    deadlines_.erase(key);
    if (deploy == nullptr || IsPodDeleting(*deploy)) continue;
    const std::vector<std::string> owned =
        incremental ? OwnedIn(store, kReplicaSets, key.first, Uid(*deploy)) : rs_by_owner[Uid(*deploy)];
    std::optional<TimePoint> deadline;
    wrote |= DeploymentSync(ctx, *deploy, orphans[key.first]).Run(owned, &deadline);
    if (deadline) deadlines_[key] = *deadline;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
