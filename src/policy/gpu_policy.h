// GpuPolicy: what the optimizer may do, where, and when (DESIGN.md "Policy").
//
// A policy file holds one or more YAML documents separated by `---`:
//
//   apiVersion: gpu.kubeon.io/v1
//   kind: GpuPolicy
//   metadata: {name: gpu-sharing}        # also labels, annotations, namespace
//   spec:
//     kind: Sharing                      # required, the only kind
//     mode: Proposal | Approve | Auto    # default Proposal
//     nodeSelector: {label: value}       # default: every GPU node
//     mig:
//       allowedProfiles: [1g.10gb, ...]  # default: every profile except +me
//       headroom: "20%"                  # 0%..200%, default "20%"
//     timeSlicing:
//       namespaces: [ml-dev]             # default none
//       maxReplicas: 4                   # 1..64, default 4
//     disruption:
//       stayingPods: Restartable         # None | Restartable | Any, default Restartable
//       maxNodesPerPool: 1               # 1..100, default 1: nodes of one GPU model cordoned at once
//       patchGitOpsOwners: false         # default false: owners managed by Argo CD, Flux or Helm are
//                                        # not patched (their repository must change instead)
//     window: "Sat 02:00-06:00 UTC"      # required for Approve and Auto
//
// Parsing validates everything and reports ALL problems at once, one per
// line: `<file>:<line>: policy "<name>": <field path>: <problem>`, the line
// being the 1-based line of the offending node (of the key for unknown or
// duplicate fields and for null values; of the enclosing map's key for
// missing fields; of the document for missing top-level fields), sorted by
// line.  YAML syntax errors stop parsing and are reported alone.  An explicit null value (`mode:`) counts as absent.  A plain YAML
// scalar that resolves to a number, boolean or null (YAML 1.1 rules, as
// kubectl reads them: 20, 0.2, true, yes, off) is not a string; quote it.
// Integer fields take only what YAML 1.1 (kubectl), YAML 1.2 (yaml-cpp) and
// JSON read alike: -?(0|[1-9][0-9]*); `010` (octal 8 for kubectl), `0x10`,
// `1_000` and `+5` are errors, and sexagesimal `1:30` is a string.  Boolean
// fields take only true/false (also True, TRUE, ...); yes/no/on/off/y/n are
// errors.
// Empty documents are skipped; a file without any policy is an error.
//
// Invariants of a parsed GpuPolicy: every field holds a validated value or
// its default; names are unique within the file; allowed_profiles has no
// duplicates and names only profiles that exist on some GPU model;
// 0 <= headroom <= 2; 1 <= max_replicas <= 64; 1 <= max_nodes_per_pool <= 100;
// 1 <= max_attempts <= 10; 0 <= retry_backoff_hours <= 168; window is set when mode is Approve or Auto.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/labels.h"
#include "model/status.h"
#include "policy/window.h"

namespace kubeon::policy {

inline constexpr const char* kPolicyApiVersion = "gpu.kubeon.io/v1";
inline constexpr const char* kPolicyKind = "GpuPolicy";
inline constexpr const char* kSharingKind = "Sharing";
inline constexpr int kMaxReplicasLimit = 64;
inline constexpr int kMaxNodesPerPoolLimit = 100;
inline constexpr int kMaxAttemptsLimit = 10;
inline constexpr double kMaxRetryBackoffHours = 7 * 24;
inline constexpr const char* kMaxRetryBackoffText = "7d";

enum class Mode { kProposal, kApprove, kAuto };

// "Proposal", "Approve" or "Auto".
std::string_view ModeName(Mode mode);

// Which GPU pods that stay on a node may be disrupted by a change of that
// node's MIG mode (mig-parted resets every GPU of the node, so every GPU pod
// there is evicted and must come back on its own):
//  - kNone: never; a node takes a new MIG layout only when all its GPU pods move.
//  - kRestartable (default): pods whose owner recreates them (Deployment,
//    ReplicaSet, StatefulSet, DaemonSet), not annotated
//    cluster-autoscaler.kubernetes.io/safe-to-evict: "false", without local
//    storage (emptyDir on disk, hostPath), and not busy (see planner.h).
//  - kAny: every staying pod, Jobs and bare pods included (a bare pod is lost).
enum class StayingPods { kNone, kRestartable, kAny };

// "None", "Restartable" or "Any".
std::string_view StayingPodsName(StayingPods s);

struct GpuPolicy {
  std::string name;
  std::string file;  // the file name given to the parser
  int line = 0;      // 1-based line where the document starts
  Mode mode = Mode::kProposal;
  std::map<std::string, std::string> node_selector;  // empty selects every node
  std::vector<std::string> allowed_profiles;  // meaningful only when allowed_profiles_set
  bool allowed_profiles_set = false;          // false: every profile except +me variants
  double headroom = 0.2;                      // fraction: 0.2 for "20%"
  std::string headroom_text = "20%";
  std::vector<std::string> time_slicing_namespaces;
  int max_replicas = 4;
  StayingPods staying_pods = StayingPods::kRestartable;
  int max_nodes_per_pool = 1;         // nodes of one GPU model pool cordoned at once
  bool patch_gitops_owners = false;   // patch owners a GitOps tool manages
  // A step that failed and was rolled back is proposed again, up to
  // max_attempts attempts in all, the n-th retry no sooner than
  // retry_backoff * 2^(n-1) after the previous attempt ended
  // (spec.disruption.maxAttempts, spec.disruption.retryBackoff).
  int max_attempts = 3;
  double retry_backoff_hours = 0.25;
  std::string retry_backoff_text = "15m";
  std::optional<Window> window;

  // True when the MIG profile (e.g. "1g.10gb") may be used under this policy.
  bool AllowsProfile(std::string_view name) const;
  // True when workloads of namespace `ns` may be time-sliced.
  bool TimeSlicingNamespace(std::string_view ns) const;
  // True when every nodeSelector entry equals the node's label.
  bool SelectsNode(const model::Labels& labels) const;
};

// Tells whether a MIG profile name exists on some GPU model (the caller passes
// the MIG catalog's ProfileExists).
using ProfileExistsFn = std::function<bool(std::string_view)>;

// Parses and validates every policy in `yaml_text`; `file_name` only labels
// error messages and GpuPolicy::file.  REQUIRES: profile_exists is callable.
Result<std::vector<GpuPolicy>> ParsePolicies(std::string_view yaml_text,
                                             std::string_view file_name,
                                             const ProfileExistsFn& profile_exists);

// Reads `path` and parses it with ParsePolicies.
Result<std::vector<GpuPolicy>> LoadPolicyFile(const std::string& path,
                                              const ProfileExistsFn& profile_exists);

// Every field path the parser accepts, e.g. "spec.mig.headroom"; maps with
// free-form keys (metadata.labels, spec.nodeSelector) are listed without
// their keys.  Used to keep deploy/crd-gpupolicy.yaml in step with the parser.
std::vector<std::string> PolicyFieldPaths();

}  // namespace kubeon::policy
