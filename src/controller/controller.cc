// See controller.h.
#include "controller/controller.h"

#include <algorithm>

#include "apply/apply_policy.h"
#include "apply/lease.h"
#include "apply/lease_revert.h"
#include "apply/step_runner.h"
#include "audit/decision.h"
#include "audit/kube_approvals.h"
#include "audit/kube_store.h"
#include "apply/rfc3339.h"
#include "controller/policy_object.h"
#include "controller/policy_scope.h"
#include "controller/policy_status.h"

namespace kubeon::controller {
namespace {

using nlohmann::json;
using SysClock = std::chrono::system_clock;

constexpr const char* kPolicies = "/apis/gpu.kubeon.io/v1/gpupolicies";

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string NameOf(const json& object) {
  const json m = object.value("metadata", json::object());
  return m.is_object() ? m.value("name", "") : "";
}

const char* EventReason(apply::OutcomeKind k) {
  switch (k) {
    case apply::OutcomeKind::kDone: return "StepDone";
    case apply::OutcomeKind::kRolledBack: return "StepRolledBack";
    case apply::OutcomeKind::kRollbackFailed:
    case apply::OutcomeKind::kCrashed: return "StepFailed";
    case apply::OutcomeKind::kLeaseLost: return "LeaseLost";
  }
  return "StepFailed";
}

std::string Money(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "$%.0f", usd);
  return buf;
}

}  // namespace

Controller::Controller(kube::KubeClient& client, audit::AuditStore* store, LeaderElector* leader, JsonLog& log,
                       Metrics& metrics, PolicyViews& views, ControllerOptions options)
    : client_(client),
      store_(store),
      leader_(leader),
      log_(log),
      metrics_(metrics),
      views_(views),
      options_(std::move(options)),
      events_(client, options_.identity) {
  options_.plan.from_cluster = true;
  options_.plan.cluster_file.clear();
  Beat();
}

std::string Controller::Now() const { return apply::FormatTime(std::chrono::floor<std::chrono::seconds>(SysClock::now())); }

void Controller::Beat() { last_beat_ns_ = SteadyNs(); }

void Controller::CountApiError(const std::string& verb, int code) {
  metrics_.Add("kubeon_gpu_api_errors_total", {verb, std::to_string(code)});
}

void Controller::RecordEvent(const std::string& policy, const std::string& uid, const std::string& type,
                             const std::string& reason, const std::string& message) {
  kube::ApiResult<json> r = events_.Record(policy, uid, type, reason, message, Now());
  if (!r.ok()) {
    CountApiError(r.error().verb, r.error().http_status);
    log_.Warn("cannot record Event " + reason + ": " + r.error().ToString(), {{"policy", policy}});
  }
}

Result<std::vector<Controller::PolicyObject>> Controller::ReadPolicyObjects() {
  std::vector<PolicyObject> out;
  kube::ApiResult<kube::ListResult> list = client_.List(kPolicies);
  if (!list.ok()) {
    CountApiError(list.error().verb, list.error().http_status);
    return list.status();
  }
  for (const auto& item : list->items) {
    PolicyObject o;
    o.object = item;
    const json m = item.value("metadata", json::object());
    o.uid = m.value("uid", "");
    o.generation = m.value("generation", int64_t{1});
    out.push_back(std::move(o));
  }
  return out;
}

void Controller::Reconcile() {
  Beat();
  auto progress = [this](const std::string& line) {
    Beat();
    log_.Info(line);
  };
  Result<mig::MigCatalog> catalog = inputs::LoadCatalog(options_.plan.catalog_file);
  if (!catalog.ok()) {
    log_.Error(catalog.status().message());
    return;
  }
  auto exists = [&](std::string_view p) { return catalog->ProfileExists(p); };
  // 1. the policies
  std::vector<PolicyObject> objects;
  std::vector<policy::GpuPolicy> file_policies;
  std::map<std::string, PolicyView> next;  // name -> view being built
  std::map<std::string, std::map<model::WorkloadRef, std::string>> excluded_of;  // policy -> workloads it leaves
  if (!options_.policy_file.empty()) {
    Result<std::vector<policy::GpuPolicy>> loaded = policy::LoadPolicyFile(options_.policy_file, exists);
    if (!loaded.ok()) {
      log_.Error(loaded.status().message());
      return;
    }
    file_policies = std::move(loaded.value());
    for (const auto& p : file_policies) objects.push_back(PolicyObject{json{{"metadata", {{"name", p.name}}}}, "", 1});
  } else {
    Result<std::vector<PolicyObject>> read = ReadPolicyObjects();
    if (!read.ok()) {
      {
        std::lock_guard<std::mutex> lock(api_mu_);
        api_error_ = read.status().message();
      }
      api_ok_ = false;
      log_.Error("cannot list GpuPolicies: " + read.status().message());
      return;
    }
    objects = std::move(read.value());
  }
  std::vector<policy::GpuPolicy> valid;
  std::map<std::string, const PolicyObject*> object_of;
  for (size_t i = 0; i < objects.size(); ++i) {
    const std::string name = NameOf(objects[i].object);
    object_of[name] = &objects[i];
    PolicyView v;
    v.name = name;
    v.generation = objects[i].generation;
    v.planned_at = Now();
    if (!options_.policy_file.empty()) {
      v.policy = file_policies[i];
    } else {
      Result<policy::GpuPolicy> p = ParsePolicyObject(objects[i].object, exists);
      if (!p.ok()) {
        v.error = p.status().message();
        v.error_reason = "InvalidPolicy";
        log_.Warn(v.error, {{"policy", name}});
      } else {
        v.policy = std::move(p.value());
      }
    }
    if (v.policy) {
      valid.push_back(*v.policy);
      const auto now = std::chrono::floor<std::chrono::seconds>(SysClock::now());
      v.window_open = v.policy->window ? v.policy->window->Contains(now) : false;
    }
    next[name] = std::move(v);
  }
  // 2. the cluster and the history
  int code = 0;
  Result<inputs::PlanInputs> inputs = inputs::ReadPlanInputs(options_.plan, std::move(catalog.value()), progress, &code);
  if (!inputs.ok()) {
    {
      std::lock_guard<std::mutex> lock(api_mu_);
      api_error_ = inputs.status().message();
    }
    api_ok_ = false;
    log_.Error("cannot read the cluster or the history: " + inputs.status().message());
    for (auto& [name, v] : next) {
      if (!v.policy) continue;
      v.error = "cannot plan: " + inputs.status().message();
      v.error_reason = "PlanFailed";
    }
  } else {
    api_ok_ = true;
    // 3. scope, 4. plan
    const std::map<std::string, ScopeOfPolicy> scope = ScopePolicies(inputs->cluster, valid);
    for (const auto& [name, sc] : scope) excluded_of[name] = sc.excluded;
    std::vector<policy::GpuPolicy> plannable;
    for (const auto& p : valid) {
      const ScopeOfPolicy& s = scope.at(p.name);
      PolicyView& v = next[p.name];
      v.conflicts = s.conflicts;
      if (!s.overlaps_with.empty()) {
        v.error = s.overlap_error;
        v.error_reason = "OverlappingPolicies";
        log_.Warn(s.overlap_error, {{"policy", p.name}});
      } else {
        plannable.push_back(p);
      }
    }
    const std::vector<inputs::PolicyPlan> plans = inputs::PlanEach(
        *inputs, plannable, progress, [&](const policy::GpuPolicy& p) { return scope.at(p.name).excluded; });
    for (size_t i = 0; i < plannable.size(); ++i) {
      PolicyView& v = next[plannable[i].name];
      metrics_.Set("kubeon_gpu_plan_duration_seconds", {v.name}, plans[i].seconds);
      if (!plans[i].plan.ok()) {
        // This policy fails; the others are planned and acted on.
        v.error = plans[i].plan.status().message();
        v.error_reason = "PlanFailed";
        log_.Error(v.error, {{"policy", v.name}});
        continue;
      }
      const plan::Plan& planned = *plans[i].plan;
      v.plan = planned;
      const plan::Summary& s = planned.summary;
      metrics_.Add("kubeon_gpu_plans_total", {v.name});
      metrics_.Set("kubeon_gpu_gpus_freed", {v.name}, s.gpus_freed);
      metrics_.Set("kubeon_gpu_monthly_savings_usd", {v.name}, s.savings_realizable_usd);
      metrics_.Set("kubeon_gpu_capacity_freed_usd", {v.name}, s.capacity_freed_usd);
      log_.Info("planned: " + std::to_string(s.gpus_before) + " GPUs -> " + std::to_string(s.gpus_after) + ", " +
                    Money(s.savings_realizable_usd) + "/month realizable, " + Money(s.capacity_freed_usd) +
                    "/month of capacity freed on nodes that stay, in " +
                    std::to_string(planned.schedule.steps.size()) + " step(s)",
                {{"policy", v.name}, {"planHash", PlanHash(planned)}});
    }
  }
  // Publish the views (the page and /metrics see them), forget deleted policies.
  for (const auto& old : views_.All()) {
    if (!next.count(old.name)) {
      views_.Remove(old.name);
      plan_hash_.erase(old.name);
      for (const char* m : {"kubeon_gpu_plans_total", "kubeon_gpu_gpus_freed", "kubeon_gpu_monthly_savings_usd",
                            "kubeon_gpu_capacity_freed_usd", "kubeon_gpu_plan_duration_seconds"}) {
        metrics_.Forget(m, "policy", old.name);
      }
    }
  }
  for (const auto& [name, v] : next) views_.Put(v);
  // 5. act, only while leading
  if (Leading()) {
    ImportApprovals();
    for (const auto& [name, v] : next) {
      if (!Leading()) {
        log_.Warn("no longer the leader: stopping before policy " + name);
        break;
      }
      if (v.plan && inputs.ok()) Act(v, *object_of.at(name), *inputs, excluded_of[name]);
      WriteStatus(v);
      Beat();
    }
  }
  if (inputs.ok()) views_.set_planned_once(true);
  Beat();
}

void Controller::Act(const PolicyView& v, const PolicyObject& object, const inputs::PlanInputs& inputs,
                     const std::map<model::WorkloadRef, std::string>& excluded) {
  const std::string hash = PlanHash(*v.plan);
  if (plan_hash_[v.name] != hash) {
    const plan::Summary& s = v.plan->summary;
    const std::string message = "plan: " + std::to_string(s.gpus_before) + " GPUs -> " +
                                std::to_string(s.gpus_after) + ", " + Money(s.monthly_savings_usd) + "/month in " +
                                std::to_string(v.plan->schedule.steps.size()) + " step(s)";
    RecordEvent(v.name, object.uid, "Normal", "PlanChanged", message);
    plan_hash_[v.name] = hash;
  }
  if (!store_) return;
  CarryOutRevertRequests(v, object);
  apply::ApplyPolicyOptions po;
  po.lease_namespace = options_.lease_namespace;
  po.lease_holder = options_.identity;
  po.lease_duration = options_.policy_lease;
  po.configmap_sync = options_.configmap_sync;
  po.write_observer = options_.write_observer;
  po.now = [] { return std::chrono::floor<std::chrono::seconds>(SysClock::now()); };
  po.progress = [this, name = v.name](const std::string& line) {
    Beat();
    log_.Info(line, {{"policy", name}});
  };
  const std::string operator_namespace = options_.plan.operator_namespace;
  po.replan = [&]() -> Result<apply::PlannedPolicy> {
    int code = 0;
    Result<mig::MigCatalog> catalog = inputs::LoadCatalog(options_.plan.catalog_file);
    if (!catalog.ok()) return catalog.status();
    Result<inputs::PlanInputs> again = inputs::ReadPlanInputs(options_.plan, std::move(catalog.value()), po.progress, &code);
    if (!again.ok()) return again.status();
    // The workloads excluded by this pass's scope stay excluded (the other policies are not re-read).
    std::vector<inputs::PolicyPlan> plans =
        inputs::PlanEach(*again, {*v.policy}, po.progress, [&](const policy::GpuPolicy&) { return excluded; });
    if (!plans.front().plan.ok()) return plans.front().plan.status();
    const plan::Plan& planned = *plans.front().plan;
    return apply::PlannedPolicy{planned, apply::ArtifactsFor(planned, again->cluster, operator_namespace)};
  };
  po.may_continue = [this]() -> Status {
    return Leading() ? Status::Ok() : Status::Error("no longer the controller's leader: stopping before the next step");
  };
  po.on_step_started = [&, name = v.name](const plan::ScheduleStep& step) {
    log_.Info("step started", {{"policy", name}, {"change", step.id}});
    RecordEvent(name, object.uid, "Normal", "StepStarted",
                "change " + step.id + " started on " + std::to_string(step.nodes.size()) + " node(s)");
  };
  po.on_step_finished = [&, name = v.name](const plan::ScheduleStep& step, const apply::StepOutcome& o,
                                           std::chrono::duration<double> took) {
    const std::string outcome = apply::OutcomeName(o.kind);
    metrics_.Add("kubeon_gpu_changes_total", {name, outcome});
    metrics_.Observe("kubeon_gpu_step_duration_seconds", {name}, took.count());
    const bool ok = o.kind == apply::OutcomeKind::kDone;
    (ok ? log_.Info("step " + outcome, {{"policy", name}, {"change", step.id}})
        : log_.Warn("step " + outcome + ": " + o.cause, {{"policy", name}, {"change", step.id}}));
    RecordEvent(name, object.uid, ok ? "Normal" : "Warning", EventReason(o.kind),
                "change " + step.id + " " + outcome + (o.cause.empty() ? "" : ": " + o.cause));
  };
  po.on_resumed = [&, name = v.name](const apply::StepOutcome& o) {
    metrics_.Add("kubeon_gpu_changes_total", {name, apply::OutcomeName(o.kind)});
    RecordEvent(name, object.uid, o.kind == apply::OutcomeKind::kDone ? "Normal" : "Warning", EventReason(o.kind),
                "change " + o.change_id + " left half way by an earlier executor: " + apply::OutcomeName(o.kind) +
                    (o.cause.empty() ? "" : ": " + o.cause));
  };
  apply::ApplyPolicyResult r =
      apply::ApplyPolicy(client_, store_, clock_,
                         apply::PlannedPolicy{*v.plan, apply::ArtifactsFor(*v.plan, inputs.cluster, operator_namespace)},
                         *v.policy, po);
  if (!r.report.error.empty()) log_.Warn(r.report.error, {{"policy", v.name}});
  for (const auto& s : r.report.steps) {
    log_.Info("step " + std::to_string(s.index) + ": " + s.outcome + (s.why.empty() ? "" : ": " + s.why),
              {{"policy", v.name}, {"change", s.id}});
  }
}

void Controller::ImportApprovals() {
  auto* kube_store = dynamic_cast<audit::KubeAuditStore*>(store_);
  if (kube_store == nullptr) return;  // SQLite: approvals come from `kubeon-gpu approve` and the page only
  Result<audit::ApprovalImport> imported =
      audit::ImportKubeApprovals(*kube_store, client_, SysClock::now(), options_.approval_ttl);
  if (!imported.ok()) {
    log_.Warn("cannot import approvals: " + imported.status().message());
    return;
  }
  approvals_not_guarded_ = imported->guarded ? "" : imported->not_guarded;
  if (!approvals_not_guarded_.empty()) log_.Warn(approvals_not_guarded_);
  for (const auto& id : imported->approved) log_.Info("approval imported from the GpuChange", {{"change", id}});
  for (const auto& id : imported->rejected) log_.Info("rejection imported from the GpuChange", {{"change", id}});
  for (const auto& id : imported->ignored) {
    log_.Warn("approval annotation for another content hash ignored", {{"change", id}});
  }
}

// A revert request (the reviewer page's Revert, a log entry
// audit::kRevertRequestAction) newer than the change's last revert attempt is
// carried out by the leader exactly as `kubeon-gpu revert ID`, under the
// policy's Lease; an attempt is logged ("revert" intent) before it acts, so
// a request is tried once.
void Controller::CarryOutRevertRequests(const PolicyView& v, const PolicyObject& object) {
  Result<std::vector<audit::ChangeRecord>> records = store_->ListChanges();
  if (!records.ok()) {
    log_.Warn("cannot read the audit log: " + records.status().message(), {{"policy", v.name}});
    return;
  }
  for (const auto& r : *records) {
    if (r.policy != v.name || r.state != audit::ChangeState::kDone) continue;
    Result<std::vector<audit::LogEntry>> entries = store_->Log(r.id);
    if (!entries.ok()) continue;
    int64_t requested = 0, attempted = 0;
    std::string by;
    for (const auto& e : *entries) {
      if (e.action == audit::kRevertRequestAction) {
        requested = e.seq;
        by = e.detail;
      } else if (e.action == "revert" && e.outcome == "intent") {
        attempted = e.seq;
      }
    }
    if (requested <= attempted || !Leading()) continue;
    apply::LeaseOptions lo;
    lo.namespace_ = options_.lease_namespace;
    lo.policy = v.name;
    lo.holder = options_.identity;
    lo.duration = options_.policy_lease;
    apply::StepOptions so;
    so.configmap_sync = options_.configmap_sync;
    so.write_observer = options_.write_observer;
    auto progress = [this, name = v.name](const std::string& line) {
      Beat();
      if (line.rfind("warning: ", 0) == 0) {
        log_.Warn(line.substr(9), {{"policy", name}});  // a lost Lease, a failed release
      } else {
        log_.Info(line, {{"policy", name}});
      }
    };
    apply::StepContext ctx{client_, *store_, clock_, apply::StepArtifacts{}, so, v.name, progress};
    Result<apply::StepOutcome> reverted = apply::RevertUnderLease(ctx, lo, r.id, [&] {
      log_.Info("reverting on request: " + by, {{"policy", v.name}, {"change", r.id}});
      RecordEvent(v.name, object.uid, "Normal", "RevertStarted", "change " + r.id + " revert requested: " + by);
    });
    if (!reverted.ok()) {
      log_.Warn("revert of " + r.id + " waits: " + reverted.status().message(), {{"policy", v.name}, {"change", r.id}});
      continue;
    }
    const apply::StepOutcome& o = *reverted;
    const bool ok = o.kind == apply::OutcomeKind::kDone;
    metrics_.Add("kubeon_gpu_changes_total", {v.name, ok ? "reverted" : apply::OutcomeName(o.kind)});
    (ok ? log_.Info("change reverted", {{"policy", v.name}, {"change", r.id}})
        : log_.Warn(std::string("revert ") + apply::OutcomeName(o.kind) + ": " + o.cause, {{"policy", v.name}, {"change", r.id}}));
    RecordEvent(v.name, object.uid, ok ? "Normal" : "Warning", ok ? "Reverted" : "RevertFailed",
                "change " + r.id + (ok ? " reverted" : " not reverted: " + o.cause));
  }
}

void Controller::WriteStatus(const PolicyView& v) {
  if (!options_.policy_file.empty()) return;  // no object to write to
  PolicyStatusInputs in;
  in.now = Now();
  in.approvals_guarded = approvals_not_guarded_.empty();
  if (store_) {
    Result<std::vector<audit::ChangeRecord>> records = store_->ListChanges();
    if (records.ok()) {
      const audit::ChangeRecord* last = nullptr;
      for (const auto& r : *records) {
        if (r.policy != v.name) continue;
        if (r.state == audit::ChangeState::kProposed) in.pending_approvals.push_back(r.id);
        const bool acted = r.state == audit::ChangeState::kRunning || r.state == audit::ChangeState::kDone ||
                           r.state == audit::ChangeState::kFailed || r.state == audit::ChangeState::kRolledBack ||
                           r.state == audit::ChangeState::kReverted;
        if (acted && (!last || r.updated_at > last->updated_at)) last = &r;
      }
      std::sort(in.pending_approvals.begin(), in.pending_approvals.end());
      if (last) in.last_change = LastChange{last->id, std::string(audit::ChangeStateName(last->state)), last->updated_at};
    } else {
      log_.Warn("cannot read the audit log: " + records.status().message(), {{"policy", v.name}});
    }
  }
  kube::ApiResult<json> r =
      WritePolicyStatus(client_, v.name, [&](const json& previous) { return BuildPolicyStatus(previous, v, in); });
  if (!r.ok()) {
    CountApiError(r.error().verb, r.error().http_status);
    log_.Warn("cannot write status: " + r.error().ToString(), {{"policy", v.name}});
  }
}

void Controller::Trigger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    triggered_ = true;
  }
  cv_.notify_all();
}

void Controller::Run(const std::atomic<bool>& stop) {
  while (!stop.load()) {
    Reconcile();
    std::unique_lock<std::mutex> lock(mu_);
    const auto until = std::chrono::steady_clock::now() + options_.resync;
    // Wake at least every second to notice `stop` (it is not a condition we are notified of).
    while (!triggered_ && !stop.load() && std::chrono::steady_clock::now() < until) {
      Beat();
      cv_.wait_for(lock, std::chrono::seconds(1));
    }
    triggered_ = false;
  }
}

void Controller::WatchPolicies(const std::atomic<bool>& stop) {
  if (!options_.policy_file.empty()) return;
  std::map<std::string, int64_t> generations;
  while (!stop.load()) {
    kube::WatchOptions wo;
    wo.cancel = &stop;
    wo.timeout_seconds = 60;
    kube::ApiResult<std::string> r = client_.Watch(kPolicies, "", wo, [&](const kube::WatchEvent& e) {
      if (e.type == kube::WatchEventType::kBookmark) return true;
      bool changed = false;
      if (e.type == kube::WatchEventType::kResync) {
        generations.clear();
        changed = true;
      } else {
        const std::string name = NameOf(e.object);
        const int64_t gen = e.object.value("metadata", json::object()).value("generation", int64_t{0});
        if (e.type == kube::WatchEventType::kDeleted) {
          changed = generations.erase(name) > 0;
        } else {
          auto [it, inserted] = generations.emplace(name, gen);
          changed = inserted || it->second != gen;
          it->second = gen;
        }
      }
      if (changed) Trigger();
      return !stop.load();
    });
    if (!r.ok() && !stop.load()) {
      CountApiError(r.error().verb, r.error().http_status);
      log_.Warn("watch of GpuPolicies ended: " + r.error().ToString() + "; watching again in 5s");
      for (int i = 0; i < 50 && !stop.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

std::string Controller::Health() const {
  const int64_t age = SteadyNs() - last_beat_ns_.load();
  if (age > std::chrono::duration_cast<std::chrono::nanoseconds>(options_.stuck_after).count()) {
    return "the control loop has not moved for " + std::to_string(age / 1000000000) + "s";
  }
  return "";
}

std::string Controller::Ready() const {
  if (!views_.planned_once()) return "not planned yet";
  if (!api_ok_.load()) {
    std::lock_guard<std::mutex> lock(api_mu_);
    return "the API server or the history is unreachable: " + api_error_;
  }
  return "";
}

}  // namespace kubeon::controller
