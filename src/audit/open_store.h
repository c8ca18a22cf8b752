// The audit log a command or the controller names (--audit-db; the
// controller's store), opened in one place:
//
//   kubernetes     the cluster's store (audit/kube_store.h): GpuChange objects
//                  and the kubeon-gpu-audit ConfigMap in namespace
//                  $POD_NAMESPACE, default kubeon-system, of the API server
//                  the kubeconfig reaches
//   "" (default)   the SQLite file DefaultAuditDbPath()
//   anything else  the path of a SQLite file (audit/sqlite_store.h)
//
// Contract: OpenAuditDb opens the store the flag names and, when asked,
// binds it to the cluster the client reaches (BindCluster with ClusterIdOf):
// a log of another cluster is refused before anything is written to it.
// Errors are values naming the store ("audit db PATH: ..." or "the
// cluster's GpuChange objects: ...").
#pragma once

#include <memory>
#include <string>

#include "audit/audit_store.h"
#include "kube/client.h"
#include "kube/snapshot.h"
#include "model/status.h"

namespace kubeon::audit {

inline constexpr char kKubernetesAuditDb[] = "kubernetes";

struct AuditDbRequest {
  std::string flag;  // --audit-db as given
  // The cluster the command talks to; nullptr: the kubernetes store connects
  // with `connect` (and binding is not possible for SQLite).
  kube::KubeClient* client = nullptr;
  kube::SnapshotOptions connect;   // kubeconfig and context
  bool create_if_missing = false;  // SQLite
  bool missing_ok = false;         // SQLite: a missing file gives no store (store == nullptr), not an error
  bool bind_cluster = false;       // REQUIRES (SQLite): client != nullptr
  // kubernetes: namespace of the store's kubeon-gpu-audit ConfigMap; "" =
  // audit::DefaultControllerNamespace() ($POD_NAMESPACE, else kubeon-system).
  std::string kube_namespace;
};

struct AuditDb {
  bool kubernetes = false;
  std::string flag_value;  // "kubernetes" or the SQLite path (`-o json`'s "audit_db")
  std::string where;       // "audit db PATH" or "the cluster's GpuChange objects"
  std::string display;     // "PATH" or "kubernetes (the cluster's GpuChange objects)"
  std::unique_ptr<kube::KubeClient> own_client;  // declared before store: outlives it
  std::unique_ptr<audit::AuditStore> store;      // nullptr only with missing_ok
  kube::KubeClient* client = nullptr;            // kubernetes: the client the store uses
};

// OK for "kubernetes", "" (the default file) and any other path; kInvalid
// for "-" and for near misses of "kubernetes" ("Kubernetes", "kubernetes ",
// "kubernets": case and blanks ignored, up to two letters off) written
// without a '/', which would otherwise become a SQLite file of that name.
Status CheckAuditDbFlag(const std::string& flag);

// Checks the flag (CheckAuditDbFlag) before anything is opened or created.
Result<AuditDb> OpenAuditDb(const AuditDbRequest& request);

// Opens the audit log `flag` names ("kubernetes" for the cluster's GpuChange
// objects, else a SQLite path, the default path when empty) for the cluster
// `client` reaches: a log of another cluster is refused before anything is
// written to it.  Shared by apply, revert and the controller (which passes
// its namespace for the GpuChange store's ConfigMap; "" = the default, see
// AuditDbRequest::kube_namespace).
Result<std::unique_ptr<AuditStore>> OpenStoreFor(const std::string& flag, kube::KubeClient& client,
                                                 bool create_if_missing, const std::string& kube_namespace = "");

}  // namespace kubeon::audit
