// KubeAuditStore: the AuditStore kept in the API server, so that any replica
// of the controller (and the CLI with `--audit-db kubernetes`) can resume
// from it.  Layout (group gpu.kubeon.io/v1, deploy/crd-gpuchange.yaml):
//
//   GpuChange <id> (cluster-scoped), one per ChangeRecord:
//     metadata.name = id; label gpu.kubeon.io/policy = policy; annotation
//     gpu.kubeon.io/order = the record's creation number (ListChanges order);
//     never ownerReferences (audit records are never garbage-collected).
//     spec   {policy, contentHash, createdAt, step: <step_json as an object>}
//     status {state, revision, updatedAt, undo: <undo_json>, approvedBy,
//             approvedAt, approvalExpiresAt, approvedHash, rejectedBy, reason,
//             observedGeneration, log: [{seq, time, action, outcome, detail,
//             data}], logSummary: {entries, firstSeq, lastSeq, byAction}}
//   ConfigMap <namespace>/kubeon-gpu-audit (kAuditConfigMap), the store's
//   own state, data:
//     logSeq, changeSeq  the last sequence and creation numbers handed out
//     clusterServer, clusterKubeSystemUid   the BindCluster identity
//     log, logSummary    entries with change_id "" (run-level) and entries
//                        of changes that have no GpuChange object (JSON)
//
// Why a ConfigMap for the counters: every Append needs a number that is
// unique and increasing across replicas; a compare-and-set (resourceVersion
// precondition, KubeClient::UpdateWithRetry) on one small object gives that
// without a lease.  It is namespaced because no built-in cluster-scoped kind
// carries free-form data; the namespace is the controller's (POD_NAMESPACE,
// default kubeon-system), which deploy/ creates.  Run-level entries go to the
// same ConfigMap so that one write both numbers and stores them.
//
// Contract (in addition to AuditStore's):
//  - PutChange writes the spec (on create, and when policy, content hash,
//    created_at or step change) through the object, then the status through
//    /status with the object's resourceVersion as precondition, setting
//    status.revision = the record's revision and observedGeneration = the
//    spec's generation.  An object without status.revision (a create whose
//    status write did not land) reads as absent and is adopted by the next
//    PutChange with expected_revision 0.  A spec rewrite whose status write
//    did not land reads with the old revision, state and approval: the
//    approval names the old content hash (approved_hash), so it never
//    authorises the new step, and nothing claims a newer revision.
//  - A 409 on the status write is retried after a fresh read while the
//    revision is still expected_revision (a concurrent Append changed the
//    object); a changed revision, an existing record for expected 0 or a
//    missing one for expected > 0 is an error starting "conflict: ".
//  - Append numbers the entry from the ConfigMap counter first, then writes
//    it into the change's status.log (compare-and-set, retried).  Numbers are
//    unique and increasing across replicas; a process killed between the two
//    writes leaves a gap in the numbering (never a duplicate).
//  - Each log (a change's status.log, the ConfigMap's log) keeps at most
//    max_log_entries entries and max_log_bytes of JSON, newest kept; dropped
//    entries are counted in its logSummary.  Log() returns the kept entries
//    in sequence order and, where entries were dropped, one entry with action
//    kSummaryAction standing for them (seq = the last dropped seq, detail and
//    data_json = the summary).
//  - BindCluster compares the kube-system uid only: replicas and the CLI reach
//    one API server through different URLs (in-cluster service, kubeconfig).
//  - step_json, undo_json and LogEntry::data_json must be JSON objects or
//    empty (stored as objects, read back as compact JSON with sorted keys).
//  - Errors start "the cluster's GpuChange objects: " and name what failed
//    (the KubeClient's ApiError text, which never carries the token).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit_store.h"
#include "kube/client.h"
#include "model/status.h"

namespace kubeon::audit {

inline constexpr char kGpuChangesPath[] = "/apis/gpu.kubeon.io/v1/gpuchanges";
inline constexpr char kAuditConfigMap[] = "kubeon-gpu-audit";
inline constexpr char kPolicyLabel[] = "gpu.kubeon.io/policy";
inline constexpr char kOrderAnnotation[] = "gpu.kubeon.io/order";
inline constexpr char kSummaryAction[] = "log-summary";
// Log caps: well under etcd's 1.5 MiB object limit (and the ConfigMap's 1 MiB).
inline constexpr size_t kMaxLogEntries = 100;
inline constexpr size_t kMaxLogBytes = 256 * 1024;
inline constexpr char kKubeStoreName[] = "the cluster's GpuChange objects";

// $POD_NAMESPACE when set, else "kubeon-system".
std::string DefaultControllerNamespace();

class KubeAuditStore final : public AuditStore {
 public:
  struct Options {
    std::string namespace_ = "kubeon-system";  // of the kubeon-gpu-audit ConfigMap
    size_t max_log_entries = kMaxLogEntries;
    size_t max_log_bytes = kMaxLogBytes;
    int max_attempts = 20;  // compare-and-set attempts of one write under contention
  };

  // REQUIRES: client outlives the store.
  KubeAuditStore(kube::KubeClient& client, Options options) : client_(client), options_(std::move(options)) {}

  Status BindCluster(const ClusterIdentity& id) override;
  Result<std::optional<ClusterIdentity>> Cluster() override;
  Status PutChange(const ChangeRecord& record, int64_t expected_revision) override;
  Result<std::optional<ChangeRecord>> GetChange(const std::string& id) override;
  Result<std::vector<ChangeRecord>> ListChanges() override;
  Result<int64_t> Append(const LogEntry& entry) override;
  Result<std::vector<LogEntry>> Log(const std::string& change_id) override;

  // The GpuChange object of `id` as served (nullopt when absent).
  Result<std::optional<nlohmann::json>> GetObject(const std::string& id);
  kube::KubeClient& client() { return client_; }

 private:
  // Read, mutate and write back (create when missing) the kubeon-gpu-audit
  // ConfigMap, retried on conflicts.
  kube::ApiResult<nlohmann::json> UpsertConfigMap(const kube::Mutation& mutate);
  Result<int64_t> NextNumber(const char* key);
  std::string ConfigMapPath() const;

  kube::KubeClient& client_;
  Options options_;
};

// The record a GpuChange object holds (nullopt: no status.revision yet).
Result<std::optional<ChangeRecord>> RecordFromObject(const nlohmann::json& object);

}  // namespace kubeon::audit
