// Changes on the cluster that this executor's log does not know: a node
// carrying the step taint gpu.kubeon.io/step=<id> or the annotation
// gpu.kubeon.io/cordoned-by=<id> of a change absent from the audit store
// in hand.  That happens when two executors keep different logs (a CLI's
// SQLite file and the controller's GpuChange objects): the one whose log
// holds the change must finish or roll it back; this one must neither plan
// around the node silently nor act beside it.
//
// CheckForeignChanges lists the nodes once and returns kConflict naming
// every such node and change (the first few), or OK.  Reads only.
#pragma once

#include "audit/audit_store.h"
#include "kube/client.h"
#include "model/status.h"

namespace kubeon::apply {

Status CheckForeignChanges(kube::KubeClient& client, audit::AuditStore& store);

}  // namespace kubeon::apply
