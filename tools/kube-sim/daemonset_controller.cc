// See daemonset_controller.h.
#include "daemonset_controller.h"

#include <map>
#include <set>

#include "scheduler.h"
#include "selector.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

// The tolerations the daemon controller adds to every DaemonSet pod
// (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations).
const json& DaemonTolerations() {
  static const json t = json::parse(R"([
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}])");
  return t;
}

// The template's pod spec with the daemon tolerations added.
json TemplatePod(const json& ds) {
  json pod = {{"spec", ds.value("spec", json::object()).value("template", json::object()).value("spec", json::object())}};
  json& tols = pod["spec"]["tolerations"];
  if (!tols.is_array()) tols = json::array();
  for (const auto& t : DaemonTolerations()) {
    bool present = false;
    for (const auto& have : tols) present = present || (have.value("key", "") == t["key"] && have.value("effect", "") == t["effect"]);
    if (!present) tols.push_back(t);
  }
  return pod;
}

bool IsDeleting(const json& obj) { return Find(obj, {"metadata", "deletionTimestamp"}) != nullptr; }

}  // namespace

DaemonPlacement DaemonSetPlacement(const json& ds, const json& node) {
  if (IsDeleting(node)) return {};
  json pod = TemplatePod(ds);
  const json& labels = Labels(node);
  if (const json* sel = Find(pod, {"spec", "nodeSelector"}); sel != nullptr && sel->is_object()) {
    for (const auto& [k, v] : sel->items()) {
      if (!labels.contains(k) || labels[k] != v) return {};
    }
  }
  const json* terms = Find(pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                                 "nodeSelectorTerms"});
  if (terms != nullptr && terms->is_array()) {
    bool any = false;
    for (const auto& term : *terms) any = any || MatchesNodeSelectorTerm(term, node);
    if (!any) return {};
  }
  DaemonPlacement out{true, true};
  if (const json* u = Find(node, {"spec", "unschedulable"}); u != nullptr && u->is_boolean() && u->get<bool>()) {
    if (!ToleratesTaint(pod, {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}})) out.run = false;
  }
  if (const json* taints = Find(node, {"spec", "taints"}); taints != nullptr && taints->is_array()) {
    for (const auto& t : *taints) {
      std::string effect = t.value("effect", "");
      if ((effect == "NoSchedule" || effect == "NoExecute") && !ToleratesTaint(pod, t)) {
        out.run = false;
        if (effect == "NoExecute") out.keep = false;
      }
    }
  }
  return out;
}

bool DaemonSetController::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  // What changed: DaemonSets (their own object or their pods) and nodes.
  std::set<std::string> dirty_ds, dirty_nodes;
  const bool incremental = cursor_.Collect(store, [&](const std::string& id, const std::string&, const json& obj,
                                                      const json* old) {
    if (id == kDaemonSets) dirty_ds.insert(Store::Key(Namespace(obj), Name(obj)));
    if (id == kNodes) {
      const bool same = old != nullptr && Labels(*old) == Labels(obj) &&
                        old->value("spec", json::object()) == obj.value("spec", json::object()) &&
                        IsDeleting(*old) == IsDeleting(obj);
      if (!same) dirty_nodes.insert(Name(obj));
    }
    if (id == kPods) AddControllerKey(&obj, "DaemonSet", &dirty_ds);
  });
  const bool all_nodes = !incremental;
  std::vector<std::pair<std::string, std::string>> daemonsets = Keys(store, kDaemonSets);
  cursor_.AdvanceTo(start_rv);
  if (incremental && dirty_ds.empty() && dirty_nodes.empty()) return false;
  std::vector<std::string> node_names;
  store.ForEach(kNodes, "", "", [&](const std::string&, const json& n) {
    node_names.push_back(Name(n));
    return true;
  });
  bool wrote = false;
  for (const auto& [ns, name] : daemonsets) {
    const json* ds_ptr = store.Get(kDaemonSets, ns, name);
    if (ds_ptr == nullptr) continue;
    const bool ds_dirty = all_nodes || dirty_ds.count(Store::Key(ns, name)) > 0;
    if (!ds_dirty && dirty_nodes.empty()) continue;
    const json ds = *ds_ptr;
    const bool managed = Str(ds, {"metadata", "annotations", kSynthesizedAnnotation}).empty() && !IsDeleting(ds);
    // This DaemonSet's pods per node.
    std::map<std::string, std::vector<std::string>> by_node;
    for (const auto& key : ActivePodsOf(store, ns, Uid(ds))) {
      const json* pod = GetByKey(store, kPods, key);
      by_node[Str(*pod, {"spec", "nodeName"})].push_back(key);
    }
    const std::vector<std::string>& check = ds_dirty ? node_names : std::vector<std::string>(dirty_nodes.begin(), dirty_nodes.end());
    for (const auto& node_name : managed ? check : std::vector<std::string>()) {
      const json* node = store.Get(kNodes, "", node_name);
      const DaemonPlacement place = node != nullptr ? DaemonSetPlacement(ds, *node) : DaemonPlacement{};
      const bool want = place.run;
      std::vector<std::string>& pods = by_node[node_name];
      size_t keep = place.keep ? 1 : 0;
      while (pods.size() > keep) {
        size_t slash = pods.back().find('/');
        if (store.Delete(kPods, ns, pods.back().substr(slash + 1)).ok()) wrote = true;
        pods.pop_back();
      }
      if (want && pods.empty()) {
        json tmpl = ds.value("spec", json::object()).value("template", json::object());
        tmpl["spec"] = TemplatePod(ds)["spec"];
        tmpl["metadata"]["labels"]["pod-template-generation"] =
            std::to_string(Int(ds, {"metadata", "generation"}, 1));
        json pod = PodFromTemplate(tmpl, ns, name + "-" + RandomSuffix(store.rng(), 5),
                                   ControllerOwnerRef(ds, "apps/v1", "DaemonSet"));
        pod["spec"]["nodeName"] = node_name;
        auto created = store.Create(kPods, std::move(pod));
        if (created.ok()) {
          wrote = true;
          pods.push_back(Store::Key(ns, Name(created.value())));
        }
      }
    }
    if (by_node.count("") > 0) by_node.erase("");
    int64_t desired = 0, scheduled = 0, ready = 0, misscheduled = 0;
    for (const auto& node_name : node_names) {
      const json* node = store.Get(kNodes, "", node_name);
      auto it = by_node.find(node_name);
      const bool has = it != by_node.end() && !it->second.empty();
      // A synthesised DaemonSet's selection is unknown: its pods are where it runs.
      const bool want = managed ? node != nullptr && DaemonSetPlacement(ds, *node).run : has;
      desired += want ? 1 : 0;
      scheduled += want && has ? 1 : 0;
      misscheduled += !want && has ? 1 : 0;
      if (want && has) {
        const json* pod = GetByKey(store, kPods, it->second.front());
        ready += pod != nullptr && IsPodReady(*pod) ? 1 : 0;
      }
    }
    const json* fresh = store.Get(kDaemonSets, ns, name);
    if (fresh == nullptr) continue;
    wrote |= UpdateStatus(store, kDaemonSets, *fresh,
                          {{"desiredNumberScheduled", desired}, {"currentNumberScheduled", scheduled},
                           {"updatedNumberScheduled", scheduled}, {"numberReady", ready},
                           {"numberAvailable", ready}, {"numberUnavailable", desired - ready},
                           {"numberMisscheduled", misscheduled},
                           {"observedGeneration", Int(*fresh, {"metadata", "generation"}, 1)}});
  }
  return wrote;
}

}  // namespace kubeon::kubesim
