// See policy_status.h.
#include "controller/policy_status.h"

#include "plan/sha256.h"

namespace kubeon::controller {
namespace {

using nlohmann::json;

json Condition(const std::string& type, bool status, const std::string& reason, const std::string& message,
               int64_t generation, const json& previous, const std::string& now) {
  const std::string s = status ? "True" : "False";
  std::string since = now;
  if (previous.is_object() && previous.contains("conditions") && previous["conditions"].is_array()) {
    for (const auto& c : previous["conditions"]) {
      if (c.is_object() && c.value("type", "") == type && c.value("status", "") == s &&
          c.contains("lastTransitionTime") && c["lastTransitionTime"].is_string()) {
        since = c["lastTransitionTime"].get<std::string>();
      }
    }
  }
  return {{"type", type},         {"status", s}, {"reason", reason}, {"message", message},
          {"lastTransitionTime", since}, {"observedGeneration", generation}};
}

std::string Dollars(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "$%.0f", usd);
  return buf;
}

}  // namespace

std::string PlanHash(const plan::Plan& plan) {
  std::string text = plan.schedule.feasible ? "feasible\n" : "infeasible\n";
  for (const auto& s : plan.schedule.steps) text += s.content_hash + "\n";
  for (const auto& [model, n] : plan.schedule.spare_gpus_needed) text += model + "=" + std::to_string(n) + "\n";
  for (const auto& [pool, why] : plan.schedule.blocked_pools) text += "blocked " + pool + "\n";
  return plan::Sha256Hex(text);
}

json BuildPolicyStatus(const json& previous, const PolicyView& view, const PolicyStatusInputs& in) {
  json status = json::object();
  status["observedGeneration"] = view.generation;
  json conflicts = json::array();
  for (const auto& c : view.conflicts) conflicts.push_back(c);
  status["conflicts"] = conflicts;
  status["pendingApprovals"] = in.pending_approvals;
  if (in.last_change) {
    status["lastChange"] = {{"name", in.last_change->name}, {"state", in.last_change->state},
                            {"time", in.last_change->time}};
  } else if (previous.is_object() && previous.contains("lastChange")) {
    status["lastChange"] = previous["lastChange"];
  }
  std::string message;
  if (view.plan) {
    const plan::Summary& s = view.plan->summary;
    status["lastPlan"] = {{"time", view.planned_at},
                          {"gpusBefore", s.gpus_before},
                          {"gpusAfter", s.gpus_after},
                          {"monthlySavingsUsd", s.savings_realizable_usd},
                          {"capacityFreedUsd", s.capacity_freed_usd},
                          {"steps", static_cast<int64_t>(view.plan->schedule.steps.size())},
                          {"feasible", view.plan->schedule.feasible},
                          {"planHash", PlanHash(*view.plan)}};
    message = std::to_string(s.gpus_before) + " GPUs -> " + std::to_string(s.gpus_after) + ", " +
              Dollars(s.savings_realizable_usd) + "/month realizable (nodes freed), " +
              Dollars(s.capacity_freed_usd) + "/month of capacity freed on nodes that stay, in " +
              std::to_string(view.plan->schedule.steps.size()) + " step(s)";
  } else {
    if (previous.is_object() && previous.contains("lastPlan")) status["lastPlan"] = previous["lastPlan"];
    message = view.error;
  }
  status["message"] = message;

  json conditions = json::array();
  const int64_t gen = view.generation;
  if (view.plan) {
    conditions.push_back(Condition("Ready", true, "Planned", message, gen, previous, in.now));
  } else {
    conditions.push_back(Condition("Ready", false, view.error_reason.empty() ? "PlanFailed" : view.error_reason,
                                   view.error, gen, previous, in.now));
  }
  const bool has_window = view.policy && view.policy->window;
  conditions.push_back(Condition(
      "WindowOpen", view.window_open, !has_window ? "NoWindow" : view.window_open ? "InsideWindow" : "OutsideWindow",
      has_window ? "window " + view.policy->window->text() : "the policy has no change window", gen, previous,
      in.now));
  std::string reason, why;
  const bool change_failed =
      in.last_change && (in.last_change->state == "failed" || in.last_change->state == "rolled-back");
  if (!view.plan) {
    reason = view.error_reason.empty() ? "PlanFailed" : view.error_reason;
    why = view.error;
  } else if (change_failed) {
    reason = "ChangeFailed";
    why = "change " + in.last_change->name + " " + in.last_change->state;
  } else if (!view.plan->schedule.feasible) {
    reason = "Infeasible";
    std::string pools;
    for (const auto& [pool, w] : view.plan->schedule.blocked_pools) {
      pools += (pools.empty() ? "" : "; ") + pool + " (" + w + ")";
    }
    why = "no order of changes fits GPU pool(s) " + pools + "; their nodes stay as they are, the other pools' " +
          std::to_string(view.plan->schedule.steps.size()) + " step(s) go ahead; spare GPUs needed:";
    for (const auto& [model, n] : view.plan->schedule.spare_gpus_needed) why += " " + std::to_string(n) + " x " + model;
  } else if (!view.conflicts.empty()) {
    reason = "SplitWorkload";
    why = view.conflicts.front() + (view.conflicts.size() > 1 ? " (and " + std::to_string(view.conflicts.size() - 1) +
                                                                    " more in status.conflicts)"
                                                              : "");
  } else if (!in.approvals_guarded) {
    reason = "ApprovalsNotGuarded";
    why = "the ValidatingAdmissionPolicy kubeon-gpu-approvals or its binding is missing: approvals are not trusted";
  }
  conditions.push_back(reason.empty()
                           ? Condition("Degraded", false, "AsExpected", "", gen, previous, in.now)
                           : Condition("Degraded", true, reason, why, gen, previous, in.now));
  status["conditions"] = conditions;
  return status;
}

kube::ApiResult<json> WritePolicyStatus(kube::KubeClient& client, const std::string& name,
                         const std::function<json(const json& previous)>& build) {
  const std::string path = "/apis/gpu.kubeon.io/v1/gpupolicies/" + name + "/status";
  kube::ApiResult<json> r = client.UpdateWithRetry(path, [&](json& object) {
    const json previous = object.contains("status") ? object["status"] : json::object();
    object["status"] = build(previous);
    return Status::Ok();
  });
  if (!r.ok() && r.error().http_status == 404) return json::object();
  return r;
}

}  // namespace kubeon::controller
