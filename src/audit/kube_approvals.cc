// See kube_approvals.h.
#include "audit/kube_approvals.h"

#include <time.h>

#include <algorithm>

#include <utility>

#include <nlohmann/json.hpp>

namespace kubeon::audit {
namespace {

using nlohmann::json;
using Clock = std::chrono::system_clock;

constexpr char kAdmission[] = "/apis/admissionregistration.k8s.io/v1";

std::string Rfc3339(Clock::time_point t) {
  const time_t secs = Clock::to_time_t(t);
  struct tm utc;
  gmtime_r(&secs, &utc);
  char buf[32];
  strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string Annotation(const json& object, const char* key) {
  const json& meta = object.contains("metadata") ? object["metadata"] : json();
  if (!meta.is_object() || !meta.contains("annotations") || !meta["annotations"].is_object()) return "";
  const json& a = meta["annotations"];
  auto it = a.find(key);
  return it != a.end() && it->is_string() ? it->get<std::string>() : "";
}

// The time of the latest managedFields entry that owns annotation `key`, "" when none.
std::string ManagedTime(const json& object, const char* key) {
  std::string latest;
  const json meta = object.value("metadata", json::object());
  if (!meta.contains("managedFields") || !meta["managedFields"].is_array()) return "";
  const std::string field = std::string("f:") + key;
  for (const json& m : meta["managedFields"]) {
    const json fields = m.value("fieldsV1", json::object());
    const json annotations = fields.value("f:metadata", json::object()).value("f:annotations", json::object());
    if (!annotations.is_object() || !annotations.contains(field)) continue;
    const std::string t = m.value("time", "");
    if (t > latest) latest = t;  // RFC 3339 UTC strings order as times
  }
  return latest;
}

// Why the annotations are not guarded, "" when they are.
Result<std::string> Unguarded(kube::KubeClient& client) {
  const std::string prefix = "approvals by annotation are not guarded: ";
  auto policy = client.Get(std::string(kAdmission) + "/validatingadmissionpolicies/" + kApprovalsPolicy);
  if (!policy.ok() && policy.error().http_status == 404) {
    return prefix + "ValidatingAdmissionPolicy " + kApprovalsPolicy + " does not exist (install deploy/)";
  }
  if (!policy.ok()) return policy.error().ToStatus().WithPrefix("cannot read ValidatingAdmissionPolicy");
  auto bindings = client.List(std::string(kAdmission) + "/validatingadmissionpolicybindings");
  if (!bindings.ok() && bindings.error().http_status != 404) {
    return bindings.error().ToStatus().WithPrefix("cannot list ValidatingAdmissionPolicyBindings");
  }
  if (bindings.ok()) {
    for (const json& b : bindings->items) {
      const json spec = b.value("spec", json::object());
      if (spec.value("policyName", "") != kApprovalsPolicy) continue;
      const json actions = spec.value("validationActions", json::array());
      if (actions.is_array() && std::find(actions.begin(), actions.end(), "Deny") != actions.end()) return std::string();
    }
  }
  return prefix + "no ValidatingAdmissionPolicyBinding binds " + kApprovalsPolicy + " with validationActions Deny";
}

bool AlreadyLogged(const json& object, const std::string& hash) {
  const json status = object.value("status", json::object());
  if (!status.contains("log") || !status["log"].is_array()) return false;
  for (const json& e : status["log"]) {
    if (e.value("action", "") == "approve" && e.value("outcome", "") == "skipped" &&
        e.value("data", json::object()).value("approved_hash", "") == hash) {
      return true;
    }
  }
  return false;
}

}  // namespace

Result<ApprovalImport> ImportKubeApprovals(KubeAuditStore& store, kube::KubeClient& client, Clock::time_point now,
                                           std::chrono::seconds ttl) {
  ApprovalImport out;
  auto why = Unguarded(client);
  if (!why.ok()) return why.status().WithPrefix(kKubeStoreName);
  if (!why->empty()) {
    out.not_guarded = *why;
    return out;
  }
  out.guarded = true;
  auto list = client.List(kGpuChangesPath);
  if (!list.ok()) return Status::Error(std::string(kKubeStoreName) + ": cannot list changes: " + list.error().ToString());
  const std::string at = Rfc3339(now);
  for (const json& object : list->items) {
    auto rec = RecordFromObject(object);
    if (!rec.ok()) {
      out.errors.push_back(rec.status().message());
      continue;
    }
    if (!rec->has_value()) continue;
    ChangeRecord r = **rec;
    if (r.state != ChangeState::kProposed && r.state != ChangeState::kApproved) continue;
    const std::string rejected_by = Annotation(object, kRejectedByAnnotation);
    const std::string approved_by = Annotation(object, kApprovedByAnnotation);
    const std::string hash = Annotation(object, kApproveAnnotation);
    LogEntry e;
    e.time = at;
    e.change_id = r.id;
    e.outcome = "ok";
    json data = {{"user", ""}, {"source", "annotation"}, {"previous_state", std::string(ChangeStateName(r.state))}};
    if (!rejected_by.empty()) {
      r.state = ChangeState::kRejected;
      r.rejected_by = rejected_by;
      r.reason = Annotation(object, kRejectAnnotation);
      r.approved_by.clear();
      r.approved_at.clear();
      r.approval_expires_at.clear();
      r.approved_hash.clear();
      e.action = "reject";
      e.detail = "rejected by " + rejected_by + (r.reason.empty() ? "" : ": " + r.reason);
      data["user"] = rejected_by;
      data["reason"] = r.reason;
    } else if (!approved_by.empty() && !hash.empty() && r.state == ChangeState::kProposed) {
      if (hash != r.content_hash) {
        if (AlreadyLogged(object, hash)) continue;
        e.action = "approve";
        e.outcome = "skipped";
        e.detail = "approval by " + approved_by + " for another content (hash " + hash.substr(0, 16) +
                   ", the step is now " + r.content_hash.substr(0, 16) + "): ignored";
        data["user"] = approved_by;
        data["approved_hash"] = hash;
        e.data_json = data.dump();
        auto seq = store.Append(e);
        if (!seq.ok()) out.errors.push_back(seq.status().message());
        else out.ignored.push_back(r.id);
        continue;
      }
      const std::string when = ManagedTime(object, kApproveAnnotation);
      r.state = ChangeState::kApproved;
      r.approved_by = approved_by;
      r.approved_at = when.empty() ? at : when;
      r.approval_expires_at = Rfc3339(now + ttl);
      r.approved_hash = r.content_hash;
      r.rejected_by.clear();
      r.reason.clear();
      e.action = "approve";
      e.detail = "approved by " + approved_by + " until " + r.approval_expires_at + " (step hash " +
                 r.content_hash.substr(0, 16) + ")";
      data["user"] = approved_by;
      data["approved_at"] = r.approved_at;
      data["expires_at"] = r.approval_expires_at;
      data["approved_hash"] = r.approved_hash;
    } else {
      continue;
    }
    r.updated_at = at;
    Status put = store.PutChange(r, r.revision);
    if (!put.ok()) {
      out.errors.push_back(put.message());
      continue;
    }
    e.data_json = data.dump();
    auto seq = store.Append(e);
    if (!seq.ok()) out.errors.push_back(seq.status().message());
    (e.action == "reject" ? out.rejected : out.approved).push_back(r.id);
  }
  return out;
}

Status WriteDecisionAnnotations(kube::KubeClient& client, const ChangeRecord& r, bool approve, const std::string& user,
                                const std::string& reason) {
  json annotations = approve ? json{{kApproveAnnotation, r.content_hash}, {kApprovedByAnnotation, user}}
                             : json{{kRejectAnnotation, reason}, {kRejectedByAnnotation, user}};
  auto patched = client.Patch(std::string(kGpuChangesPath) + "/" + r.id, kube::PatchType::kMerge,
                              {{"metadata", {{"annotations", annotations}}}});
  if (!patched.ok()) {
    return Status::Error(std::string(kKubeStoreName) + ": cannot write the " + (approve ? "approval" : "rejection") +
                         " of change " + r.id + ": " + patched.error().ToString());
  }
  return Status::Ok();
}

}  // namespace kubeon::audit
