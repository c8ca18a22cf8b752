// Loading a cluster into the store, and the --state-dir file.
//
// A snapshot is the JSON List `kubectl get nodes,pods,poddisruptionbudgets,
// deployments,statefulsets,replicasets -A -o json` prints (any kind that
// resources.h serves is accepted).  After loading, every namespace an
// object uses exists as a Namespace (plus default, kube-system, kube-public,
// kube-node-lease and the GPU operator's), and a DaemonSet is synthesised
// for pods whose controlling DaemonSet is missing (the snapshot command does
// not list DaemonSets, but kubectl drain looks them up), annotated
// kube-sim.kubeon.io/synthesized=true: its real node selection is unknown,
// so the DaemonSet controller leaves its pods alone (daemonset_controller.h).
//
// The state file is the same List shape with metadata.resourceVersion set to
// the global version; objects keep their own versions when reloaded.  It
// is written to <dir>/state.json through a temporary file and rename.
#pragma once

#include <string>
#include <vector>

#include "custom_resources.h"
#include "store.h"

namespace kubeon::kubesim {

// Errors name `source` and the item index.  keep_versions: see Store::Restore.
// Custom resources are accepted when `custom` serves their kind; a CRD in
// the list is registered as it is restored, so its objects may follow it.
Outcome<size_t> LoadList(Store& store, const json& list, const std::string& source, bool keep_versions,
                         CustomTypes* custom = nullptr);
void EnsureNamespaces(Store& store, const std::vector<std::string>& always, const CustomTypes* custom = nullptr);
void SynthesizeDaemonSets(Store& store);

json DumpState(const Store& store);
// Replaces nothing already in the store; REQUIRES: an empty store.
Outcome<bool> LoadState(Store& store, const json& state, const std::string& source,
                        CustomTypes* custom = nullptr);

// Writes `content` to `path` atomically (temp file in the same directory,
// fsync, rename).  The error message names the path.
Outcome<bool> WriteFileAtomic(const std::string& path, const std::string& content);

}  // namespace kubeon::kubesim
