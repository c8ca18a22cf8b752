// Waiting out terminating pods before a capacity check (a step's start, a
// revert).  A pod being deleted keeps its GPUs until the kubelet has stopped
// it, for up to its grace period; an inference server's can be minutes.  So
// right after one step, the next one (or a revert) would see the GPUs the
// first step's old pods still hold as taken.
//
//  - CheckCapacityAwaitingTerminations: the check `fits` passes on the live
//    ledger: OK.  It fails even as if every terminating pod were gone: its
//    error at once.  Otherwise the terminating pods are waited for (each
//    until NotFound or replaced under its name), bounded by the longest
//    grace period plus StepOptions::pod_gone_margin, said in progress and
//    recorded in the log ("await-terminations" intent / ok), and the check
//    runs again on a fresh ledger.  A pod still there at the bound (a
//    NotReady node, a finalizer) is an error naming it (kUnavailable).
// Reads only; nothing is written to the cluster.
#pragma once

#include <functional>

#include "apply/gpu_capacity.h"
#include "apply/step_journal.h"

namespace kubeon::apply {

Status CheckCapacityAwaitingTerminations(StepJournal& j, const std::function<Status(const GpuLedger&)>& fits);

}  // namespace kubeon::apply
