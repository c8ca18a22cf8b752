// See scheduler.h.
#include "scheduler.h"

#include <map>
#include <set>
#include <unordered_set>

#include "quantity.h"
#include "resources.h"
#include "selector.h"
#include "workload.h"

namespace kubeon::kubesim {

namespace {

struct NodeUsage {
  ResourceList used;
  int64_t pods = 0;
};

// Empty when the node fits, else the reason as the scheduler words it.
std::string Misfit(const json& pod, const json& node, const ResourceList& alloc, const ResourceList& req,
                   const NodeUsage& use, bool check_cpu_memory) {
  if (!IsNodeReady(node)) return "node(s) had untolerated taint {node.kubernetes.io/not-ready: }";
  if (const json* u = Find(node, {"spec", "unschedulable"}); u != nullptr && u->is_boolean() && u->get<bool>()) {
    json t = {{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}};
    if (!ToleratesTaint(pod, t)) return "node(s) were unschedulable";
  }
  if (const json* taints = Find(node, {"spec", "taints"}); taints != nullptr && taints->is_array()) {
    for (const auto& t : *taints) {
      std::string effect = t.value("effect", "");
      if ((effect == "NoSchedule" || effect == "NoExecute") && !ToleratesTaint(pod, t)) {
        return "node(s) had untolerated taint {" + t.value("key", "") + ": " + t.value("value", "") + "}";
      }
    }
  }
  const json& labels = Labels(node);
  if (const json* ns = Find(pod, {"spec", "nodeSelector"}); ns != nullptr && ns->is_object()) {
    for (const auto& [k, v] : ns->items()) {
      if (!labels.contains(k) || labels[k] != v) return "node(s) didn't match Pod's node affinity/selector";
    }
  }
  const json* terms = Find(pod, {"spec", "affinity", "nodeAffinity",
                                 "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (terms != nullptr && terms->is_array()) {
    bool any = false;
    for (const auto& term : *terms) any = any || MatchesNodeSelectorTerm(term, node);
    if (!any) return "node(s) didn't match Pod's node affinity/selector";
  }
  if (alloc.count("pods") && use.pods + 1 > alloc.at("pods")) return "Too many pods";
  for (const auto& [res, qty] : req) {
    if (qty <= 0) continue;
    if (!check_cpu_memory && (res == "cpu" || res == "memory" || res == "ephemeral-storage")) continue;
    double have = alloc.count(res) ? alloc.at(res) : 0;
    double used = use.used.count(res) ? use.used.at(res) : 0;
    if (used + qty > have + 1e-9) return "Insufficient " + res;
  }
  return "";
}

double Score(const ResourceList& alloc, const ResourceList& req, const NodeUsage& use) {
  double score = 0;
  int n = 0;
  for (const char* res : {"cpu", "memory"}) {
    double a = alloc.count(res) ? alloc.at(res) : 0;
    if (a <= 0) continue;
    double used = (use.used.count(res) ? use.used.at(res) : 0) + (req.count(res) ? req.at(res) : 0);
    score += (a - used) / a;
    ++n;
  }
  return n == 0 ? 0 : score / n;
}

json SetCondition(json conditions, const json& cond) {
  if (!conditions.is_array()) conditions = json::array();
  for (auto& c : conditions) {
    if (c.value("type", "") == cond["type"]) {
      json merged = cond;
      if (c.value("status", "") == cond["status"]) merged["lastTransitionTime"] = c.value("lastTransitionTime", "");
      c = merged;
      return conditions;
    }
  }
  conditions.push_back(cond);
  return conditions;
}

}  // namespace

bool ToleratesTaint(const json& pod, const json& taint) {
  const json* tols = Find(pod, {"spec", "tolerations"});
  if (tols == nullptr || !tols->is_array()) return false;
  std::string key = taint.value("key", ""), value = taint.value("value", ""), effect = taint.value("effect", "");
  for (const auto& t : *tols) {
    std::string te = t.value("effect", "");
    if (!te.empty() && te != effect) continue;
    std::string tk = t.value("key", "");
    std::string op = t.value("operator", "Equal");
    if (tk.empty()) {
      if (op == "Exists") return true;
      continue;
    }
    if (tk != key) continue;
    if (op == "Exists" || ((op == "Equal" || op.empty()) && t.value("value", "") == value)) return true;
  }
  return false;
}

bool Scheduler::Reconcile(ControllerContext& ctx) {
  const uint64_t start_rv = ctx.store.ResourceVersion();
  Store& store = ctx.store;
  auto is_pending = [](const json& pod) {
    const json* node = Find(pod, {"spec", "nodeName"});
    if ((node != nullptr && node->is_string() && !node->get_ref<const std::string&>().empty()) || !IsPodActive(pod)) {
      return false;
    }
    std::string sched = Str(pod, {"spec", "schedulerName"});
    return sched.empty() || sched == "default-scheduler";
  };
  // Pods to try: every pending pod, or the pending pods that changed plus,
  // when capacity may have appeared (a node changed, a pod went away), the
  // ones that did not fit before.
  std::set<std::string> candidates;
  bool capacity_changed = false;
  const bool incremental = cursor_.Collect(store, [&](const std::string& id, const std::string& type, const json& obj,
                                                      const json*) {
    if (id == kNodes) capacity_changed = true;
    if (id != kPods) return;
    if (type == "DELETED" || IsPodTerminal(obj)) capacity_changed = true;
    else if (is_pending(obj)) candidates.insert(Store::Key(Namespace(obj), Name(obj)));
  });
  if (!incremental) {
    unschedulable_.clear();
    store.ForEach(kPods, "", "", [&](const std::string& key, const json& pod) {
      if (is_pending(pod)) candidates.insert(key);
      return true;
    });
  } else if (capacity_changed) {
    candidates.insert(unschedulable_.begin(), unschedulable_.end());
  }
  std::vector<std::string> pending;
  for (const auto& key : candidates) {
    const json* pod = GetByKey(store, kPods, key);
    if (pod != nullptr && is_pending(*pod)) pending.push_back(key);
    else unschedulable_.erase(key);
  }
  if (pending.empty()) {
    cursor_.AdvanceTo(start_rv);
    return false;
  }
  std::map<std::string, NodeUsage> usage;
  std::unordered_set<std::string> live;
  store.ForEach(kPods, "", "", [&](const std::string&, const json& pod) {
    const json* node = Find(pod, {"spec", "nodeName"});
    // A terminating pod holds its resources until it is gone.
    if (node == nullptr || !node->is_string() || node->get_ref<const std::string&>().empty() || IsPodTerminal(pod)) {
      return true;
    }
    NodeUsage& u = usage[node->get_ref<const std::string&>()];
    // A pod's resources cannot change, so its requests are parsed once.
    const std::string& uid = Find(pod, {"metadata", "uid"})->get_ref<const std::string&>();
    live.insert(uid);
    auto it = requests_.find(uid);
    if (it == requests_.end()) it = requests_.emplace(uid, PodRequests(pod)).first;
    for (const auto& [r, q] : it->second) u.used[r] += q;
    ++u.pods;
    return true;
  });
  if (requests_.size() > 2 * live.size() + 1024) {
    for (auto it = requests_.begin(); it != requests_.end();) it = live.count(it->first) ? std::next(it) : requests_.erase(it);
  }
  std::vector<const json*> nodes;
  std::map<std::string, ResourceList> allocatable;
  store.ForEach(kNodes, "", "", [&](const std::string&, const json& node) {
    nodes.push_back(&node);
    allocatable[Name(node)] = NodeAllocatable(node);
    return true;
  });
  bool wrote = false;
  for (const std::string& key : pending) {
    size_t slash = key.find('/');
    const json* stored = store.Get(kPods, key.substr(0, slash), key.substr(slash + 1));
    if (stored == nullptr) continue;
    json pod = *stored;
    ResourceList req = PodRequests(pod);
    const json* best = nullptr;
    double best_score = -1e300;
    std::map<std::string, int> reasons;
    for (const json* node : nodes) {
      const NodeUsage& use = usage[Name(*node)];
      const ResourceList& alloc = allocatable[Name(*node)];
      std::string why = Misfit(pod, *node, alloc, req, use, ctx.settings.scheduler_checks_cpu_memory);
      if (!why.empty()) {
        ++reasons[why];
        continue;
      }
      double s = Score(alloc, req, use);
      if (best == nullptr || s > best_score) best = node, best_score = s;
    }
    std::string now = Rfc3339(ctx.now);
    json conds = Find(pod, {"status", "conditions"}) ? pod["status"]["conditions"] : json::array();
    if (best != nullptr) {
      unschedulable_.erase(key);
      pod["spec"]["nodeName"] = Name(*best);
      pod["status"]["conditions"] = SetCondition(conds, {{"type", "PodScheduled"}, {"status", "True"},
                                                         {"lastProbeTime", nullptr}, {"lastTransitionTime", now}});
      NodeUsage& u = usage[Name(*best)];
      for (const auto& [r, q] : req) u.used[r] += q;
      ++u.pods;
    } else {
      std::string msg = "0/" + std::to_string(nodes.size()) + " nodes are available: ";
      bool first = true;
      for (const auto& [why, n] : reasons) {
        msg += (first ? "" : ", ") + std::to_string(n) + " " + why;
        first = false;
      }
      msg += ".";
      if (nodes.empty()) msg = "no nodes available to schedule pods";
      unschedulable_.insert(key);
      pod["status"]["conditions"] = SetCondition(conds, {{"type", "PodScheduled"}, {"status", "False"},
                                                         {"reason", "Unschedulable"}, {"message", msg},
                                                         {"lastProbeTime", nullptr}, {"lastTransitionTime", now}});
    }
    uint64_t before = store.ResourceVersion();
    if (store.Update(kPods, std::move(pod)).ok() && store.ResourceVersion() != before) wrote = true;
  }
  cursor_.AdvanceTo(start_rv);
  return wrote;
}

}  // namespace kubeon::kubesim
