// See disruption_controller.h.
#include "disruption_controller.h"

#include <set>

#include "resources.h"
#include "selector.h"
#include "workload.h"

namespace kubeon::kubesim {

ScaleFinder StoreScaleFinder(const Store& store) {
  return [&store](const json& pod) -> Outcome<ControllerScale> {
    const json* ref = ControllerRef(pod);
    const std::string ns = Namespace(pod);
    auto not_found = ApiError::Internal("found no controllers for pod \"" + Name(pod) + "\"");
    if (ref == nullptr) return not_found;
    std::string kind = ref->value("kind", "");
    std::string name = ref->value("name", "");
    std::string uid = ref->value("uid", "");
    if (kind == "ReplicaSet") {
      const json* rs = store.Get(kReplicaSets, ns, name);
      if (rs == nullptr || Uid(*rs) != uid) return not_found;
      if (const json* dref = ControllerRef(*rs); dref != nullptr && dref->value("kind", "") == "Deployment") {
        const json* d = store.Get(kDeployments, ns, dref->value("name", ""));
        if (d != nullptr && Uid(*d) == dref->value("uid", "")) return ControllerScale{Uid(*d), SpecReplicas(*d)};
      }
      return ControllerScale{uid, SpecReplicas(*rs)};
    }
    if (kind == "StatefulSet") {
      const json* sts = store.Get(kStatefulSets, ns, name);
      if (sts == nullptr || Uid(*sts) != uid) return not_found;
      return ControllerScale{uid, SpecReplicas(*sts)};
    }
    return not_found;
  };
}

std::vector<const json*> PodsForPdb(const Store& store, const json& pdb) {
  std::vector<const json*> out;
  const json* sel = Find(pdb, {"spec", "selector"});
  if (sel == nullptr || sel->is_null()) return out;
  auto selector = LabelSelector::FromJson(*sel);
  if (!selector.ok()) return out;
  store.ForEach(kPods, Namespace(pdb), "", [&](const std::string&, const json& pod) {
    if (selector.value().Matches(Labels(pod))) out.push_back(&pod);
    return true;
  });
  return out;
}

PdbStatus PdbStatusFromStore(const Store& store, const json& pdb) {
  return ComputePdbStatus(pdb, PodsForPdb(store, pdb), StoreScaleFinder(store));
}

bool DisruptionController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  bool wrote = false;
  // Budgets to recompute: all, or the changed ones and every budget in a
  // namespace where pods or their controllers changed.
  std::set<std::string> changed_pdbs, namespaces;
  const bool incremental = cursor_.Collect(ctx.store, [&](const std::string& id, const std::string&,
                                                          const json& obj, const json*) {
    if (id == kPdbs) {
      changed_pdbs.insert(Store::Key(Namespace(obj), Name(obj)));
    } else if (id == kPods || id == kReplicaSets || id == kDeployments || id == kStatefulSets) {
      namespaces.insert(Namespace(obj));
    }
  });
  std::vector<std::pair<std::string, std::string>> todo;
  if (incremental) {
    for (const auto& ns : namespaces) {
      ctx.store.ForEach(kPdbs, ns, "", [&](const std::string& key, const json&) {
        changed_pdbs.insert(key);
        return true;
      });
    }
    for (const auto& key : changed_pdbs) {
      size_t slash = key.find('/');
      todo.emplace_back(key.substr(0, slash), key.substr(slash + 1));
    }
  } else {
    todo = Keys(ctx.store, kPdbs);
  }
  for (const auto& [ns, name] : todo) {
    const json* stored = ctx.store.Get(kPdbs, ns, name);
    if (stored == nullptr) continue;
    const json& pdb = *stored;
    json updated = pdb;
    PdbStatusFromStore(ctx.store, pdb).WriteTo(&updated, Rfc3339(ctx.now));
    // Evicted pods leave disruptedPods once they are gone.
    if (json* dp = &updated["status"]; dp->contains("disruptedPods")) {
      json kept = json::object();
      for (const auto& [pod, when] : (*dp)["disruptedPods"].items()) {
        if (ctx.store.Get(kPods, Namespace(pdb), pod) != nullptr) kept[pod] = when;
      }
      if (kept.empty()) dp->erase("disruptedPods");
      else (*dp)["disruptedPods"] = kept;
    }
    if (updated == pdb) continue;
    uint64_t before = ctx.store.ResourceVersion();
    if (ctx.store.Update(kPdbs, std::move(updated)).ok() && ctx.store.ResourceVersion() != before) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
