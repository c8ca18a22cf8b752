// Work under a policy's Lease (lease.h), written once for every executor:
//
//  - WhileKeepingLease: runs `work` while a LeaseKeeper renews the held
//    Lease every duration / 3, handing it the fence (step_context.h) that
//    fails once a renewal failed or none succeeded within the renew deadline
//    (duration x 2/3, client-go's ratio); says in `progress` when a renewal
//    failed meanwhile ("warning: ..."), so no caller drops that warning.
//  - RevertUnderLease: the revert of change `id` as the `revert` command and
//    the controller run it: acquires the Lease of ctx.policy (an error,
//    nothing changed, when someone else holds it), reverts while keeping it
//    (step_runner.h RevertChange), releases it (a failed release is a
//    warning in `progress`).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "apply/lease.h"
#include "apply/step_context.h"

namespace kubeon::apply {

StepOutcome WhileKeepingLease(PolicyLease& lease, std::chrono::seconds duration,
                              const std::function<void(const std::string&)>& progress,
                              const std::function<StepOutcome(const Fence& fence)>& work);

// `on_held`, when given, is called once the Lease is held, before anything
// is written.  REQUIRES: lease.policy == ctx.policy (or lease.name set).
Result<StepOutcome> RevertUnderLease(const StepContext& ctx, const LeaseOptions& lease, const std::string& id,
                                     const std::function<void()>& on_held = {});

}  // namespace kubeon::apply
