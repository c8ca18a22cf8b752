#include "apply/owner_rollout.h"

#include <algorithm>

#include "apply/eviction.h"
#include "apply/object_fields.h"
#include "apply/step_wait.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

int64_t IntAt(const json& obj, const json::json_pointer& p, int64_t fallback) {
  const json v = obj.value(p, json(fallback));
  return v.is_number_integer() ? v.get<int64_t>() : fallback;
}

// The owner's pods (spec.selector.matchLabels).
Result<json> OwnerPods(StepJournal& j, const json& owner, const std::string& ns) {
  kube::ListOptions lo;
  std::string sel;
  const json match = owner.value("/spec/selector/matchLabels"_json_pointer, json::object());
  for (auto& [k, v] : match.items()) {
    if (v.is_string()) sel += (sel.empty() ? "" : ",") + k + "=" + v.get<std::string>();
  }
  if (sel.empty()) return json::array();  // no selector we can read: nothing to wait for
  lo.label_selector = sel;
  auto pods = j.client().List("/api/v1/namespaces/" + ns + "/pods", lo);
  if (!pods.ok()) return pods.status();
  return pods->items;
}

// OnDelete StatefulSet: evicts the first pod not at the update revision;
// true when none is left.
Result<bool> MoveOnDeletePods(StepJournal& j, const json& sts, const std::string& ns, const std::string& update,
                              Clock::TimePoint until) {
  auto pods = OwnerPods(j, sts, ns);
  if (!pods.ok()) return pods.status();
  for (const auto& p : *pods) {
    if (OptStr(Labels(p), "controller-revision-hash") == update) continue;
    if (p["metadata"].contains("deletionTimestamp")) return false;
    Status s = EvictAndWait(j, p, until);
    if (!s.ok()) return s;
    return false;  // one pod at a time: wait for its replacement
  }
  return true;
}

}  // namespace

Status TemplateChangedError(const OwnerGoal& g, const json& before, const json& after, const json& current,
                            const std::string& id) {
  const std::string drift = FirstDrift(before, after, current);
  const std::string since = id.empty() ? "" : " since change " + id;
  if (drift.empty()) {
    return Status::Error("the lists in spec.template of " + g.Display() + " that change " +
                             (id.empty() ? std::string("being reverted") : id) + " set were reordered" + since +
                             "; nothing changed",
                         StatusCode::kConflict);
  }
  const size_t colon = drift.find(": expected ");
  return Status::Error("field spec.template" + drift.substr(0, colon) + " of " + g.Display() + " was changed" + since +
                           " (" + drift.substr(colon + 2) + "); nothing changed",
                       StatusCode::kConflict);
}

Status PatchOwner(StepJournal& j, const OwnerGoal& g) {
  const std::string path = OwnerPath(g.kind, g.namespace_, g.name);
  auto cur = j.client().Get(path);
  if (!cur.ok()) return cur.status();
  if (!g.gitops.empty() && !j.options().patch_gitops_owners) {
    const std::string line = g.Display() + " (managed by " + g.gitops + "): not patched; apply in its repository: " +
                             (g.patch ? g.patch->dump() : json{{"spec", {{"template", *g.template_}}}}.dump());
    j.outcome().gitops_patches.push_back(line);
    j.Progress(line);
    return j.Log("patch-owner", "skipped", line);
  }
  auto& owners = j.run().owners;
  auto it = std::find_if(owners.rbegin(), owners.rend(),
                         [&](const OwnerUndo& o) { return o.Is(g.kind, g.namespace_, g.name); });
  size_t at = 0;
  if (it == owners.rend()) {
    OwnerUndo o;
    o.kind = g.kind;
    o.namespace_ = g.namespace_;
    o.name = g.name;
    const json before = cur->value("/spec/template"_json_pointer, json::object());
    o.template_before = before.is_object() ? before : json::object();
    o.annotation_before = OptStr(Annotations(*cur), kChangeAnnotation);
    owners.push_back(std::move(o));
    at = owners.size() - 1;
  } else {
    at = static_cast<size_t>(std::distance(it, owners.rend())) - 1;
  }
  owners[at].intent = true;
  Status s = j.Intent("patch-owner", "patch " + g.Display() + (g.patch ? ": " + g.patch->dump() : ": template restored"));
  if (!s.ok()) return s;
  auto r = j.client().UpdateWithRetry(path, [&](json& obj) -> Status {
    if (g.patch) {
      StrategicMerge(obj, *g.patch);
    } else if (g.restore_fields) {
      json& tpl = obj["spec"]["template"];
      auto back = RestoreFields(g.restore_fields->before, g.restore_fields->after, tpl);
      if (!back) return TemplateChangedError(g, g.restore_fields->before, g.restore_fields->after, tpl, "");
      tpl = std::move(*back);
    } else {
      obj["spec"]["template"] = *g.template_;
    }
    if (g.add_toleration) {  // this step's toleration, in place of an earlier step's
      json& tol = obj["spec"]["template"]["spec"]["tolerations"];
      json kept = json::array();
      if (tol.is_array()) {
        for (const auto& t : tol) {
          if (OptStr(t, "key") != kStepTaintKey) kept.push_back(t);
        }
      }
      kept.push_back(StepToleration(g.change.value_or("")));
      tol = std::move(kept);
    }
    json& ann = obj["metadata"]["annotations"];
    if (!ann.is_object()) ann = json::object();
    if (g.change) {
      ann[kChangeAnnotation] = *g.change;
    } else {
      ann.erase(kChangeAnnotation);
    }
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  const json after = r->value("/spec/template"_json_pointer, json::object());
  owners[at].template_after = after.is_object() ? after : json::object();
  owners[at].patched = true;
  s = j.Wrote("patch-owner", g.Display() + " patched");
  if (!s.ok()) return s;
  return j.Save();
}

Status WaitRollout(StepJournal& j, const std::string& kind, const std::string& ns, const std::string& name) {
  const std::string path = OwnerPath(kind, ns, name);
  const std::string what = "the rollout of " + kind + " " + ns + "/" + name;
  j.Progress("waiting for " + what);
  const auto until = j.ctx().clock.Now() + j.options().rollout_deadline;
  bool told = false;
  // Done only once the old pods are gone too: until then they hold their
  // GPUs (for their grace period), which the next step may need.
  auto old_pods_gone = [&](const json& o) -> Result<bool> {
    auto pods = OwnerPods(j, o, ns);
    if (!pods.ok()) return pods.status();
    for (const auto& p : *pods) {
      if (!p.value("metadata", json::object()).contains("deletionTimestamp")) continue;
      if (!told) j.Progress("waiting for the old pods of " + kind + " " + ns + "/" + name + " to terminate (" +
                            PodName(p) + " ...)");
      told = true;
      return false;
    }
    return true;
  };
  return Poll(j, what, j.options().rollout_deadline, [&]() -> Result<bool> {
    auto obj = j.client().Get(path);
    if (!obj.ok()) return obj.status();
    const json& o = *obj;
    const int64_t gen = IntAt(o, "/metadata/generation"_json_pointer, 0);
    const int64_t observed = IntAt(o, "/status/observedGeneration"_json_pointer, 0);
    const int64_t want = IntAt(o, "/spec/replicas"_json_pointer, 1);
    if (observed < gen) return false;
    auto status = [&](const char* field) { return IntAt(o, json::json_pointer(std::string("/status/") + field), 0); };
    if (kind == "StatefulSet") {
      const std::string update = OptStr(o.value("status", json::object()), "updateRevision").value_or("");
      if (OptStr(o.value("/spec/updateStrategy"_json_pointer, json::object()), "type") == "OnDelete" &&
          !update.empty()) {
        auto moved = MoveOnDeletePods(j, o, ns, update, until);
        if (!moved.ok() || !*moved) return moved;
      }
      if (!(status("updatedReplicas") == want && status("readyReplicas") == want && status("replicas") == want)) {
        return false;
      }
      return old_pods_gone(o);
    }
    if (!(status("updatedReplicas") == want && status("replicas") == want && status("availableReplicas") == want &&
          status("readyReplicas") == want)) {
      return false;
    }
    return old_pods_gone(o);
  });
}

}  // namespace kubeon::apply
