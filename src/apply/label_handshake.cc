#include "apply/label_handshake.h"

#include "apply/eviction.h"
#include "apply/node_ops.h"
#include "apply/object_fields.h"
#include "apply/operator_configmaps.h"
#include "apply/step_wait.h"
#include "model/cluster.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

// Whether the node advertises `expected` (resource -> count) in allocatable.
bool AllocatableMatches(const json& node, const std::map<std::string, int64_t>& expected) {
  const json alloc = node.value("/status/allocatable"_json_pointer, json::object());
  if (!alloc.is_object()) return expected.empty();
  for (const auto& [r, n] : expected) {
    if (!alloc.contains(r) || Quantity(alloc[r]) != n) return false;
  }
  return true;
}

// A wait that ran out (the MIG deadline, or the step's hard deadline) says
// where mig-manager was: `pending` means it is stuck applying the config.
Status WaitForMigManager(StepJournal& j, const std::string& node, const std::optional<std::string>& value) {
  std::optional<std::string> st;
  Status s = Poll(j, "mig-manager to report success on node " + node, j.options().mig_deadline, [&]() -> Result<bool> {
    auto n = j.client().Get(NodePath(node));
    if (!n.ok()) return n.status();
    st = OptStr(Labels(*n), kMigConfigStateLabel);
    if (st == "failed") {
      return Status::Error("mig-manager reported failed for " + value.value_or("") + " on node " + node +
                               " (see its pod's log in " + j.ctx().artifacts.operator_namespace + ")",
                           StatusCode::kAborted);
    }
    return st == "success";
  });
  if (!s.ok() && st == "pending") {
    return Status::Error(s.message() + " (mig-manager is stuck in pending on node " + node + ": see its pod's log in " +
                             j.ctx().artifacts.operator_namespace + ")",
                         s.code());
  }
  return s;
}

}  // namespace

Status SetConfigLabel(StepJournal& j, const std::string& node, const std::string& label,
                      const std::optional<std::string>& value, int gpus,
                      const std::set<std::optional<std::string>>& expect_prior) {
  auto expected = ExpectedFor(j, label, value, gpus);
  if (!expected.ok()) return expected.status();
  auto cur = j.client().Get(NodePath(node));
  if (!cur.ok()) return cur.status();
  const auto have = OptStr(Labels(*cur), label.c_str());
  const bool mig = label == kMigConfigLabel;
  const auto state = OptStr(Labels(*cur), kMigConfigStateLabel);
  if (have == value && (!mig || state == "success") && AllocatableMatches(*cur, *expected)) return Status::Ok();
  if (!expect_prior.count(have)) {
    return Status::Error("label " + label + " of node " + node + " was changed by someone else: found \"" +
                             have.value_or("") + "\"",
                         StatusCode::kConflict);
  }
  if (!mig) {
    auto holding = GpuPods(j, node, model::kGpuResource);
    if (!holding.ok()) return holding.status();
    if (!holding->empty()) {
      return Status::Error("pod " + PodName(holding->front()) + " still holds nvidia.com/gpu on node " + node +
                               ": not changing its device-plugin config",
                           StatusCode::kConflict);
    }
  }
  const std::string detail = "node " + node + ": " + (mig ? "clear " + std::string(kMigConfigStateLabel) + ", " : "") +
                             "set " + label + "=" + value.value_or("(removed)");
  Status s = j.Intent("label", detail);
  if (!s.ok()) return s;
  if (have == value && mig) {
    // mig-manager acts only on a change: remove the label first.
    auto r = j.client().UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
      n["metadata"]["labels"].erase(label);
      n["metadata"]["labels"].erase(kMigConfigStateLabel);
      return Status::Ok();
    });
    if (!r.ok()) return r.status();
    s = j.Wrote("label", "node " + node + ": " + label + " removed to re-trigger mig-manager");
    if (!s.ok()) return s;
  }
  auto r = j.client().UpdateWithRetry(NodePath(node), [&](json& n) -> Status {
    json& labels = n["metadata"]["labels"];
    if (!labels.is_object()) labels = json::object();
    const auto now = OptStr(labels, label.c_str());
    if (now != value && now != have && !(have == value && !now)) {
      return Status::Error("label " + label + " of node " + node + " changed meanwhile to \"" + now.value_or("") + "\"",
                           StatusCode::kConflict);
    }
    if (mig) labels.erase(kMigConfigStateLabel);
    if (value) {
      labels[label] = *value;
    } else {
      labels.erase(label);
    }
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  s = j.Wrote("label", detail);
  if (!s.ok()) return s;
  if (mig) {
    s = WaitForMigManager(j, node, value);
    if (!s.ok()) return s;
    // A success that skipped the run (config already applied) after a run
    // that died pending leaves the operands paused.
    s = RestorePausedLabels(j, node);
    if (!s.ok()) return s;
  }
  return Poll(j, "node " + node + " to advertise its new devices", j.options().allocatable_deadline,
              [&]() -> Result<bool> {
                auto n = j.client().Get(NodePath(node));
                if (!n.ok()) return n.status();
                return AllocatableMatches(*n, *expected);
              });
}

}  // namespace kubeon::apply
