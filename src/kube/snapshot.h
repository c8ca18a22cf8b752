// Cluster snapshot from the Kubernetes API: the same JSON List that
//   kubectl get nodes,pods,poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json
// prints, which model::ParseClusterJson reads.
//
// Contract:
//  - Lists, across all namespaces and in this order, nodes, pods (v1),
//    poddisruptionbudgets (policy/v1), deployments, statefulsets, replicasets
//    (apps/v1), each paginated (limit 500 by default); then the GPU
//    Operator's ClusterPolicy (nvidia.com/v1 clusterpolicies) and the
//    ConfigMaps of the operator namespace (operator_namespace, else the
//    ClusterPolicy's status.namespace, else "gpu-operator"), which the plan's
//    artifacts start from.  Those two are optional: 404 (the operator is not
//    installed) or 403 (not allowed) leaves them out.
//  - Result: {"apiVersion":"v1","items":[...],"kind":"List",
//    "metadata":{"resourceVersion":""}}; every item carries apiVersion and
//    kind (list responses omit them: they are put first); items are
//    otherwise as served, in server order.  FetchSnapshotText builds this
//    text directly from the pages' item texts (simdjson, no tree; see
//    KubeClient::ListRaw), compact: nothing is re-serialised, so the size
//    never grows with the nesting depth (which the client caps anyway).
//  - Text form (FormatSnapshotText, `kubeon-gpu snapshot`): 4-space indent,
//    "key": value, empty objects and arrays as {} and [], trailing newline,
//    as kubectl prints it; keys in the order served (kubectl sorts them;
//    readers do not care).  Tokens are copied, not re-encoded.
//  - Any other failed list fails the whole snapshot (no partial cluster).
//  - RunSnapshotCommand writes the file atomically (temporary file in the same
//    directory, fsync, rename), readable by its owner only (mkstemp's 0600
//    under the umask: pod specs may carry secrets): on any error nothing is
//    written and stderr gets exactly one line.  (`kubeon-gpu snapshot` hands
//    it "-" and writes through cli/output_file, which has the same rules.)
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "model/status.h"

namespace kubeon::kube {

struct SnapshotProgress {
  std::string resource;  // "nodes", "pods", ...
  size_t items = 0;      // of this resource so far
  bool done = false;     // true once per resource, after its last page
};
using SnapshotProgressCallback = std::function<void(const SnapshotProgress&)>;

// The snapshot as compact JSON text (see the contract).
Result<std::string> FetchSnapshotText(KubeClient& client, const SnapshotProgressCallback& progress = nullptr,
                                      int64_t page_size = 500, const std::string& operator_namespace = "");

// FetchSnapshotText parsed into a tree (for tests and small clusters).
Result<nlohmann::json> FetchSnapshot(KubeClient& client, const SnapshotProgressCallback& progress = nullptr,
                                     int64_t page_size = 500, const std::string& operator_namespace = "");

// A snapshot tree as text: 4-space indent, sorted keys, trailing newline.
std::string FormatSnapshot(const nlohmann::json& snapshot);

// Compact JSON text (REQUIRES: valid JSON, such as FetchSnapshotText's) laid
// out as kubectl lays it out (see the contract), without parsing it.
std::string FormatSnapshotText(std::string_view compact);

struct SnapshotOptions {
  std::string kubeconfig;  // --kubeconfig, "" = KUBECONFIG / ~/.kube/config / in-cluster
  std::string context;     // --context
  std::string output;      // -o FILE; "" or "-" = stdout
  bool verbose = false;    // one progress line per resource on stderr
  int64_t page_size = 500;
  std::string operator_namespace;  // --operator-namespace; "" = from the ClusterPolicy, else gpu-operator
  // Environment used to find the kubeconfig; nullopt = the process environment.
  std::optional<LoadOptions> environment;
  ClientOptions client;
};

// Loads the configuration and connects (used by `snapshot` and by `plan`
// reading the cluster directly).
Result<std::unique_ptr<KubeClient>> ConnectWithOptions(const SnapshotOptions& options);

// `kubeon-gpu snapshot`: returns 0, or 1 after one line "kubeon-gpu snapshot: <error>" on `err`.
int RunSnapshotCommand(const SnapshotOptions& options, std::ostream& out, std::ostream& err);

// Writes `contents` to `path` atomically (temp file + fsync + rename), mode
// 0600 under the umask; on failure the target is untouched and no temporary
// file remains.
Status WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace kubeon::kube
