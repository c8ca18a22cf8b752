// ApplyPlan: carries out one policy's plan as far as its mode, approvals and
// window allow (issue 11, `kubeon-gpu apply`).  The order of the steps is the
// plan's (plan.schedule); running one step is the step runner's job, passed
// in as RunStepFn so this file holds only the bookkeeping and the decisions.
//
// For each step, in schedule order:
//  1. record it in the audit store (a new id: state proposed; a known id:
//     the record is kept, with the current step_json; an expired one is
//     proposed again, its lapsed approval cleared) BEFORE anything else;
//  2. a rolled-back step is proposed again as its next attempt when the
//     policy's retry budget and backoff allow (retry.h), and waits
//     (waiting-retry) or stays rolled back (attempts-spent) otherwise;
//     then ask the gate (gate.h) whether it may start now;
//  3. kRun: renew the policy Lease, set state running (compare-and-set on the
//     record's revision: a second executor cannot start it too), run it, and
//     record done | rolled-back | failed with the runner's message;
//  4. anything else: record what it waits for (expired approvals become
//     expired) and start no later step of the same GPU pool either, because
//     those count on the GPUs it frees (pools are independent).
// Records of this policy still proposed or approved whose id is no longer in
// the schedule become expired ("no longer in the plan"): the cluster changed,
// so what was approved is not what would run.
// The GPU pools a schedule blocks (plan.schedule.blocked_pools: no order of
// theirs fits) are reported with why and the spare GPUs they need; the other
// pools' steps, which the schedule holds, go ahead.
// With dry_run nothing is written anywhere (store may be null) and no step
// runs: the report says what would happen.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "audit/audit_store.h"
#include "model/status.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::apply {

// What running one step came to.
// kLeaseLost: the runner stopped writing (its Lease was lost); ApplyPlan
// writes nothing more either and ends the pass with the message as error.
enum class StepResultKind { kDone, kRolledBack, kRollbackFailed, kLeaseLost };

struct StepResult {
  StepResultKind kind = StepResultKind::kDone;
  std::string message;  // one line: what happened, or why it failed and what was restored
};

// Runs one step against the cluster.  The runner logs its own actions in the
// store (intent before each write, undo data in the record's undo_json).
using RunStepFn = std::function<StepResult(const plan::ScheduleStep& step)>;

struct ApplyOptions {
  policy::Mode mode = policy::Mode::kProposal;  // effective mode (policy or --mode)
  std::function<std::chrono::sys_seconds()> now;  // the time the gate sees
  bool dry_run = false;
  std::function<void(const std::string&)> progress;  // one line per step on stderr
  std::function<Status()> renew_lease;               // before each step starts; an error stops the run
};

struct StepReport {
  int index = 0;
  std::string id;
  std::string policy;
  // "done" | "rolled-back" | "rollback-failed" | "proposed" | "waiting-approval"
  // | "waiting-window" | "expired" | "already-<state>" | "not-started" (an
  // earlier step waits) | "would-run" (dry run) | "waiting-retry" (rolled
  // back; its next attempt waits for the backoff) | "attempts-spent" (rolled
  // back in every attempt the policy allows)
  std::string outcome;
  std::string why;
  std::vector<std::string> nodes;
  int gpus_freed = 0;
  double monthly_savings_usd = 0;
};

struct ApplyReport {
  std::string policy;
  std::vector<StepReport> steps;
  std::vector<std::string> expired;  // ids of records that left the plan
  bool feasible = true;
  std::map<std::string, int> spare_gpus_needed;
  std::map<std::string, std::string> blocked_pools;  // gpu model -> why its order does not fit
  std::string error;  // a store or Lease error that stopped the run ("" = none)
};

// Exit code of `apply` for these reports (documented in its --help):
// 5 a rollback failed; 4 a step failed and was rolled back; 1 an error
// stopped a run; 6 a schedule needs spare GPUs; 3 a step waits (approval or
// window); 0 otherwise.
int ApplyExitCode(const std::vector<ApplyReport>& reports);

// REQUIRES: store != nullptr unless options.dry_run; options.now set.
ApplyReport ApplyPlan(const plan::Plan& plan, const policy::GpuPolicy& policy, audit::AuditStore* store,
                      const ApplyOptions& options, const RunStepFn& run_step);

}  // namespace kubeon::apply
