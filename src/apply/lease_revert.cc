#include "apply/lease_revert.h"

#include "apply/step_runner.h"

namespace kubeon::apply {

StepOutcome WhileKeepingLease(PolicyLease& lease, std::chrono::seconds duration,
                              const std::function<void(const std::string&)>& progress,
                              const std::function<StepOutcome(const Fence& fence)>& work) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(duration);
  LeaseKeeper keeper(lease, ms / 3);
  const Fence fence = [&keeper, deadline = ms * 2 / 3] { return keeper.Fresh(deadline); };
  StepOutcome o = work(fence);
  if (keeper.lost() && progress) progress("warning: " + keeper.error());
  return o;
}

Result<StepOutcome> RevertUnderLease(const StepContext& ctx, const LeaseOptions& options, const std::string& id,
                                     const std::function<void()>& on_held) {
  PolicyLease lease(ctx.client, options);
  if (Status held = lease.Acquire(); !held.ok()) return held;
  if (on_held) on_held();
  StepOutcome o = WhileKeepingLease(lease, options.duration, ctx.progress, [&](const Fence& fence) {
    StepContext fenced = ctx;
    fenced.fence = fence;
    return RevertChange(fenced, id);
  });
  if (Status released = lease.Release(); !released.ok() && ctx.progress) ctx.progress("warning: " + released.message());
  return o;
}

}  // namespace kubeon::apply
