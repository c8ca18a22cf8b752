// Approvals in Kubernetes: a reviewer approves or rejects a GpuChange by
// annotating it (kubectl, `kubeon-gpu approve --audit-db kubernetes`, or the
// reviewer page), and the controller imports the decision into the audit
// log each pass.
//
//   gpu.kubeon.io/approve: "<the change's content hash, 64 hex>"
//   gpu.kubeon.io/approved-by: "<username>"
//   gpu.kubeon.io/reject: "<reason>"
//   gpu.kubeon.io/rejected-by: "<username>"
//
// The name is trusted only because the ValidatingAdmissionPolicy
// kubeon-gpu-approvals (deploy/) refuses any write that sets or changes
// approved-by (rejected-by) to anything but request.userInfo.username: the
// API server's record of who wrote it, never a self-declared name.
//
// ImportKubeApprovals contract:
//  - First checks that the policy exists and that a
//    ValidatingAdmissionPolicyBinding with policyName kubeon-gpu-approvals
//    and validationActions containing Deny exists
//    (admissionregistration.k8s.io/v1).  Otherwise it imports nothing and
//    returns guarded = false with a reason starting "approvals by annotation
//    are not guarded: " (the controller's ApprovalsNotGuarded condition).
//  - A rejection (rejected-by set) of a proposed or approved change sets it
//    rejected (rejected_by, reason = the reject annotation, the approval
//    cleared) and appends a "reject" entry.  It wins over an approval.
//  - An approval of a proposed change whose approve annotation equals its
//    content hash sets it approved: approved_by = the annotation,
//    approved_at = the managedFields time of the write that set the approve
//    annotation when the API server records one, else `now`;
//    approval_expires_at = now + ttl; approved_hash = the content hash; and
//    appends an "approve" entry "approved by USER until T (step hash H)".
//  - An approval whose hash differs (the step changed since the reviewer
//    looked) is ignored; one "approve" entry with outcome "skipped"
//    ("approval by USER for another content ...") is appended per hash.
//  - Records are written with PutChange's compare-and-set: a change written
//    by someone else meanwhile is left for the next pass (in `errors`).
//  - Errors reading the cluster are values; one change's failure does not
//    stop the others.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "audit/kube_store.h"
#include "kube/client.h"
#include "model/status.h"

namespace kubeon::audit {

inline constexpr char kApproveAnnotation[] = "gpu.kubeon.io/approve";
inline constexpr char kApprovedByAnnotation[] = "gpu.kubeon.io/approved-by";
inline constexpr char kRejectAnnotation[] = "gpu.kubeon.io/reject";
inline constexpr char kRejectedByAnnotation[] = "gpu.kubeon.io/rejected-by";
inline constexpr char kApprovalsPolicy[] = "kubeon-gpu-approvals";

struct ApprovalImport {
  bool guarded = false;
  std::string not_guarded;            // why, when !guarded
  std::vector<std::string> approved;  // change ids set approved this pass
  std::vector<std::string> rejected;
  std::vector<std::string> ignored;   // approvals for another content, first seen this pass
  std::vector<std::string> errors;    // one line per change that could not be imported
};

Result<ApprovalImport> ImportKubeApprovals(KubeAuditStore& store, kube::KubeClient& client,
                                           std::chrono::system_clock::time_point now, std::chrono::seconds ttl);

// Writes the reviewer's decision on change `r` as annotations (merge patch):
// approve = r.content_hash and approved-by = user, or reject = reason and
// rejected-by = user.  The admission policy refuses a `user` that is not the
// caller's own name.
Status WriteDecisionAnnotations(kube::KubeClient& client, const ChangeRecord& r, bool approve,
                                const std::string& user, const std::string& reason);

}  // namespace kubeon::audit
