// See decision.h.
#include "audit/decision.h"

#include <nlohmann/json.hpp>

namespace kubeon::audit {

namespace {

// OK when `text` is valid UTF-8 (the JSON writer's own rule), else kInvalid
// naming the field.
Status Utf8Field(const char* field, const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
  } catch (const nlohmann::json::type_error&) {
    return Status::Error(std::string(field) + ": not valid UTF-8", StatusCode::kInvalid);
  }
  return Status::Ok();
}

}  // namespace

Result<LogEntry> DecideChange(ChangeRecord& r, const DecisionRequest& req) {
  using Kind = DecisionRequest::Kind;
  using nlohmann::json;
  const std::string state(ChangeStateName(r.state));
  const char* action = req.kind == Kind::kApprove ? "approve" : req.kind == Kind::kReject ? "reject" : kRevertRequestAction;
  if (req.kind == Kind::kRevertRequest) {
    if (r.state != ChangeState::kDone) {
      return Status::Error("change " + r.id + " is " + state + ": only a done change can be reverted");
    }
  } else if (r.state == ChangeState::kExpired) {
    return Status::Error("change " + r.id + " has expired" + (r.reason.empty() ? "" : " (" + r.reason + ")") +
                         ": the next plan proposes it again, then decide on the new proposal");
  } else if (r.state != ChangeState::kProposed && r.state != ChangeState::kApproved) {
    return Status::Error("change " + r.id + " is " + state + ": only a proposed or approved change can be " +
                         (req.kind == Kind::kApprove ? "approved" : "rejected"));
  }
  if (req.kind == Kind::kApprove && !req.hash.empty() && req.hash != r.content_hash) {
    return Status::Error("change " + r.id + " is now step hash " + r.content_hash.substr(0, 16) +
                         ", not the hash approved (" + req.hash.substr(0, 16) +
                         "): the step changed; review it again");
  }
  // What the decision writes into the log is JSON: text that is not UTF-8
  // (a --reason typed in another encoding, a name from the cluster) is
  // refused here, naming the field, instead of aborting the writer.
  if (Status s = Utf8Field("reason", req.reason); !s.ok()) return s;
  if (Status s = Utf8Field("user", req.username); !s.ok()) return s;
  for (const std::string& g : req.groups) {
    if (Status s = Utf8Field("group", g); !s.ok()) return s;
  }
  json data = {{"user", req.username}, {"groups", req.groups}, {"previous_state", state}};
  LogEntry e;
  e.time = req.at;
  e.change_id = r.id;
  e.action = action;
  e.outcome = "ok";
  switch (req.kind) {
    case Kind::kApprove:
      r.state = ChangeState::kApproved;
      r.approved_by = req.username;
      r.approved_at = req.at;
      r.approval_expires_at = req.expires_at;
      r.approved_hash = r.content_hash;
      r.rejected_by.clear();
      r.reason.clear();
      data["expires_at"] = r.approval_expires_at;
      data["approved_hash"] = r.approved_hash;
      e.detail = "approved by " + r.approved_by + " until " + r.approval_expires_at + " (step hash " +
                 r.content_hash.substr(0, 16) + ")";
      break;
    case Kind::kReject:
      r.state = ChangeState::kRejected;
      r.rejected_by = req.username;
      r.reason = req.reason;
      r.approved_by.clear();
      r.approved_at.clear();
      r.approval_expires_at.clear();
      r.approved_hash.clear();
      data["reason"] = req.reason;
      e.detail = "rejected by " + r.rejected_by + (req.reason.empty() ? "" : ": " + req.reason);
      break;
    case Kind::kRevertRequest:
      e.outcome = "intent";
      e.detail = "revert requested by " + req.username;
      break;
  }
  if (req.kind != Kind::kRevertRequest) r.updated_at = req.at;
  e.data_json = data.dump();
  return e;
}

}  // namespace kubeon::audit
