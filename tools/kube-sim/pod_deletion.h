// Graceful pod deletion, as the API server does it
// (pkg/registry/core/pod/strategy.go CheckGracefulDelete and
// apiserver/pkg/registry/rest/delete.go BeforeDelete).
//
// DeletePod is the one way pods are deleted: DELETE, DeleteCollection,
// cascading deletes of owners, approved Evictions and the workload
// controllers all go through it.
//
//  - grace = DeleteOptions.gracePeriodSeconds, else the pod's
//    spec.terminationGracePeriodSeconds, else 30; a negative request is 1;
//  - an unscheduled pod (no spec.nodeName) or a terminal one (Succeeded,
//    Failed) is deleted at once (grace 0), as is any pod with grace 0;
//  - otherwise the pod stays, with metadata.deletionTimestamp = now + grace
//    and metadata.deletionGracePeriodSeconds = grace (one MODIFIED event);
//    the kubelet side (pod_terminator.h) removes it when its containers
//    have exited, which produces the DELETED event;
//  - a second deletion may shorten the grace, never lengthen it: with a
//    smaller grace the deadline moves to (original start + new grace) and
//    deletionGracePeriodSeconds follows; 0 removes the pod at once;
//    anything else changes nothing.
// The result is the pod as stored afterwards (terminating) or as deleted.
// Errors: 404 when absent, 409 when the uid precondition differs.
#pragma once

#include <optional>
#include <string>

#include "api_error.h"
#include "store.h"

namespace kubeon::kubesim {

constexpr int64_t kDefaultTerminationGracePeriodSeconds = 30;

Outcome<json> DeletePod(Store& store, const std::string& ns, const std::string& name,
                        std::optional<int64_t> grace_seconds, TimePoint now,
                        const std::string& uid_precondition = "");

// DeleteOptions.gracePeriodSeconds when `options` carries an integer there.
std::optional<int64_t> GraceFromOptions(const json& options);

// The grace period a terminating pod was given (deletionGracePeriodSeconds),
// or nullopt when the pod is not being deleted.
std::optional<int64_t> DeletionGrace(const json& pod);

}  // namespace kubeon::kubesim
