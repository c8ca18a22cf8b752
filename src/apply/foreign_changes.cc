#include "apply/foreign_changes.h"

#include <set>
#include <string>
#include <vector>

#include "apply/node_ops.h"
#include "apply/object_fields.h"
#include "apply/step_context.h"

namespace kubeon::apply {

using json = nlohmann::json;

Status CheckForeignChanges(kube::KubeClient& client, audit::AuditStore& store) {
  auto nodes = client.List("/api/v1/nodes");
  if (!nodes.ok()) return nodes.status();
  std::vector<std::string> found;
  size_t count = 0;
  for (const auto& n : nodes->items) {
    const std::string name = OptStr(n.value("metadata", json::object()), "name").value_or("");
    std::set<std::string> ids = StepTaintValues(n);
    if (auto by = OptStr(Annotations(n), kCordonedByAnnotation)) ids.insert(*by);
    for (const auto& id : ids) {
      auto rec = store.GetChange(id);
      if (!rec.ok()) return rec.status();
      if (rec->has_value()) continue;
      ++count;
      if (found.size() < 5) found.push_back("node " + name + " is held by change \"" + id + "\"");
    }
  }
  if (found.empty()) return Status::Ok();
  std::string msg;
  for (const auto& f : found) msg += (msg.empty() ? "" : "; ") + f;
  if (count > found.size()) msg += "; and " + std::to_string(count - found.size()) + " more";
  return Status::Error(msg + " (" + kStepTaintKey + " or " + kCordonedByAnnotation +
                           "), which is not in this audit log: another executor's log holds it (a CLI's SQLite "
                           "file, or the cluster's GpuChange objects with --audit-db kubernetes); let that one "
                           "finish or roll it back first. Nothing changed",
                       StatusCode::kConflict);
}

}  // namespace kubeon::apply
