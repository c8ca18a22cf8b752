// The rules of a reviewer's decision on a change, shared by the reviewer
// page (controller/reviewer_api.h) and `kubeon-gpu approve` / `reject`
// (cli/change_commands.cc):
//
//  - approve takes a `proposed` change, or an `approved` one (re-approval
//    refreshes the approver and the expiry); the hash the reviewer saw must
//    equal the record's content_hash (else nothing is decided: the step
//    changed under the reviewer).  It stores approved_by/at,
//    approval_expires_at and approved_hash = content_hash, clears any
//    rejection, and the state becomes `approved`.
//  - reject takes a `proposed` or `approved` change, stores rejected_by and
//    the reason, clears the approval; the state becomes `rejected`.
//  - An `expired` change is refused with a hint to propose it again; any
//    other state is refused naming it.
//  - requesting a revert takes a `done` change and changes no field of the
//    record: it is a log entry (action "revert-request", outcome "intent",
//    data {"user", "groups"}) that the executor carries out
//    (`kubeon-gpu revert ID`, or the controller's leader).
//
// DecideChange only edits the record in memory and returns the log entry to
// append; the caller writes the record with PutChange(r, previous revision)
// (compare-and-set) and then appends the entry.
#pragma once

#include <string>
#include <vector>

#include "audit/audit_store.h"
#include "model/status.h"

namespace kubeon::audit {

inline constexpr const char* kRevertRequestAction = "revert-request";

struct DecisionRequest {
  enum class Kind { kApprove, kReject, kRevertRequest };
  Kind kind = Kind::kApprove;
  std::string username;  // the API server's identity of the reviewer
  std::vector<std::string> groups;
  std::string at;          // RFC 3339 UTC, now
  std::string expires_at;  // approve: RFC 3339 UTC, when the approval lapses
  std::string hash;        // approve: the content hash the reviewer approves ("" = not checked)
  std::string reason;      // reject: why
};

// Edits `r` as the decision says and returns the log entry to append, or a
// refusal (r unchanged).  REQUIRES: req.username non-empty.
Result<LogEntry> DecideChange(ChangeRecord& r, const DecisionRequest& req);

}  // namespace kubeon::audit
