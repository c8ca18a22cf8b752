// Reads a cluster snapshot: the JSON List printed by
//   kubectl get nodes,pods,poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json
// (also accepts a single object, a list per kind, or the body of a Kubernetes
// list call: anything with "items").  Items of other kinds are ignored.
// Besides those kinds it reads the GPU Operator's ClusterPolicy (nvidia.com/v1,
// `kubectl get clusterpolicies -o json`) and ConfigMaps (the operator
// namespace's, `kubectl get configmaps -n gpu-operator -o json`), which
// `kubeon-gpu snapshot` adds when the cluster has them; a second
// ClusterPolicy is a warning, the first one counts.
//
// Contract:
//  - Malformed JSON, or an item without metadata.name, is an error naming the
//    file and the item index ("cluster.json: items[12] (Pod): metadata.name missing").
//    The text is checked for structure and UTF-8 throughout, and every value
//    the reader uses for its literal; the literals of fields it does not read
//    are skipped by structure only (nesting there costs no recursion).
//  - A field of the wrong JSON type is an error naming the item and the field
//    path ("items[3] (Node n): spec.unschedulable: expected a boolean, got a
//    string"); so are integers out of range ("spec.replicas: 1e100000 is not an
//    integer from 0 to 2147483647").  Strings read where another type stands
//    (labels, names) are read as absent, as kubectl's own printers do.
//  - Memory: the text plus simdjson's index of it (the on-demand parser; no
//    document tree) plus the Cluster.  Keys may come in any order.
//  - A GPU quantity that is not a whole number (e.g. "500m") is an error naming
//    the pod, container and resource: such a request is impossible and never guessed.
//  - Owner chains are resolved: Pod -> ReplicaSet -> Deployment, Pod -> StatefulSet,
//    Pod -> Job (-> CronJob when the Job is known), else the pod itself (kind "Pod").
//    A ReplicaSet missing from the snapshot is resolved by its own
//    ownerReference name when present, else it stands as the workload.
//  - GPU counts are capped (the constants below), so a hostile label or
//    request can neither overflow a sum nor make the planner allocate per
//    GPU: over a cap is an error naming the item and the label or resource.
//  - The price annotation kubeon.io/hourly-price-usd must pass
//    ParseHourlyPriceUsd (prices.h: finite, 0 to kMaxHourlyPriceUsd); an
//    invalid one is a warning in Cluster::warnings naming the node (anyone
//    who may write the node can set it), and the node falls back to the
//    prices file.  A second ClusterPolicy is a warning too.
//  - The same object twice (kind, namespace, name) is an error naming both
//    item indices (why not a warning: see ParseItem).  Running or Pending GPU
//    pods bound to nodes the snapshot lacks are one warning with their count
//    and the first three names.
//  - Nesting: arrays and objects deeper than kMaxSnapshotNestingDepth
//    anywhere in the text (read fields or not) are an error naming the line
//    and column, found by one scan before parsing.  No recursion anywhere.
//  - Pure: ParseClusterJson does no I/O; LoadClusterFile reads one file: a
//    regular file item by item in bounded memory (ReadClusterFile,
//    snapshot_stream.h), a pipe whole; a directory or device is an error
//    (input_file.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "model/cluster.h"
#include "model/status.h"

namespace kubeon::model {

inline constexpr const char* kPriceAnnotation = "kubeon.io/hourly-price-usd";

// Caps on GPU counts read from a snapshot (a label or request over one is an
// error naming the node or pod).  The largest nodes today have 8 to 16 GPUs.
// GPUs per node: the label nvidia.com/gpu.count (else capacity nvidia.com/gpu).
inline constexpr int kMaxGpusPerNode = 64;
// Whole GPUs per pod (nvidia.com/gpu, containers summed): a pod runs on one node.
inline constexpr int64_t kMaxGpusPerPod = kMaxGpusPerNode;
// Any nvidia.com/* quantity: a node's capacity or allocatable, a container's
// request or limit, a pod's total (64 GPUs x 64 time-slicing replicas).
inline constexpr int64_t kMaxGpuResourceQuantity = 4096;
// Nesting of arrays and objects in a snapshot.  Kubernetes objects nest about
// 15 levels (managedFields included); deeper text is an error, so no reader
// or converter of the List (simdjson, nlohmann in tools) meets hostile depth.
inline constexpr size_t kMaxSnapshotNestingDepth = 256;
// The label nvidia.com/gpu.memory, in MiB per GPU (1 TiB; today's largest GPUs have 192 GB).
inline constexpr int64_t kMaxGpuMemoryMib = int64_t{1} << 20;

Result<Cluster> ParseClusterJson(std::string_view json_text, std::string_view source_name);
// `threads`: for a regular file, how many threads may read its items
// (snapshot_stream.h: the same Cluster and errors whatever the count).
Result<Cluster> LoadClusterFile(const std::string& path, int threads = 1);

// Parses a Kubernetes quantity that must be a whole number ("2", "2k" is not
// accepted for device resources).  Returns false for fractions or garbage.
bool ParseWholeQuantity(std::string_view text, int64_t* out);

// The reader of one List item, for readers that find the items themselves
// (snapshot_stream.h reads a file item by item).  Read(text) does for one
// item what ParseClusterJson does for each element of "items", with the same
// errors; call ResolveClusterWorkloads once after the last item.
class SnapshotItemReader {
 public:
  // simdjson reads up to this many bytes past the end of an item's text.
  static constexpr size_t kPadding = 64;
  // What went wrong beyond the returned Status, for the caller's message.
  struct Diagnostics {
    bool malformed = false;     // not valid JSON; the Status is "not valid JSON: <why>"
    size_t offset = std::string_view::npos;  // where in the text the parser stopped (npos: unknown)
    bool kind_missing = false;  // the item has no "kind" and implied_kind is ""
    bool too_deep = false;      // nested deeper than kMaxSnapshotNestingDepth at `offset`
  };
  SnapshotItemReader();
  ~SnapshotItemReader();
  // Reads one item into *cluster.  `index` and `source` name it in errors;
  // `implied_kind` is the kind of items that have none (a "PodList"'s "Pod").
  // REQUIRES: text.data() + text.size() is followed by kPadding readable bytes.
  // `nesting_checked`: the caller has found the item within
  // kMaxSnapshotNestingDepth (counting the List's 2 levels) with its own scan,
  // so Read skips that scan (and never sets too_deep).
  Status Read(std::string_view text, size_t index, std::string_view source, const std::string& implied_kind,
              Cluster* cluster, Diagnostics* diagnostics, bool nesting_checked = false);
  // Forgets the objects read so far (a repeat of one is an error) and where
  // they were: before reading the same items again into a fresh Cluster.
  void ForgetObjects();
  // The next Read's item starts at byte `offset` of a source of `total` bytes
  // (0: unknown, a pipe).  Read then grows the cluster's nodes, pods and
  // controllers to the count projected from the bytes left
  // (model/projected_capacity.h) instead of doubling them.  Only the
  // vectors' capacity depends on it, never what is read.
  // REQUIRES: total == 0 or offset + the item's size <= total.
  void Locate(size_t offset, size_t total);
  // Adds the objects `later` has read (a reader of items after this one's, in
  // another Cluster) to those this one has read, as if it had read them
  // itself.  False when one of them was read by both (the later copy is then
  // a repeat, reported by reading the items again on one reader).
  bool AddObjectsOf(const SnapshotItemReader& later);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Fills every Pod::workload from the owner chains (see the contract above)
// and adds the warning about GPU pods on missing nodes; on up to `threads`
// threads (each a range of at least 4,096 pods).
void ResolveClusterWorkloads(Cluster* cluster, int threads = 1);

// "arrays and objects nested deeper than <cap> levels <where> (the cap; ...)",
// where `where` is "at line L, column C": the one text of the nesting error.
std::string TooDeepMessage(const std::string& where);

// Text from the snapshot (names, kinds, keys) as it may appear in a one-line
// message: control characters are written as \n, \r, \t or \xHH.
std::string OneLine(std::string_view text);

}  // namespace kubeon::model
