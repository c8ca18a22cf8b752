// metadata.managedFields as kube-apiserver records them for the writes that
// go through the REST API (create, update, patch, and their subresources),
// kept cheap: one entry per (manager, operation, subresource), whose `time`
// and `apiVersion` the latest such write sets; `fieldsV1` is always {} (no
// field ownership is tracked, so no conflicts are computed).
//
// The manager is the request's `fieldManager` query parameter (kubectl
// sends "kubectl-client-side-apply", "kubectl-edit", "kubectl-label", ...),
// else the program name of its User-Agent (the text before the first '/':
// "argocd-controller", "helm", "kustomize-controller"), as the real API
// server's default; an empty User-Agent gives "unknown".  The operation is
// "Update" (kube-sim has no server-side apply); entries a client writes
// itself (e.g. {"manager": "argocd-controller", "operation": "Apply"} in a
// created object) are kept as given.  Controllers inside kube-sim write the
// store directly and record nothing.
#pragma once

#include <string>

#include "meta.h"

namespace kubeon::kubesim {

struct ManagedWrite {
  std::string manager;
  std::string operation = "Update";
  std::string api_version;  // of the request ("apps/v1")
  std::string subresource;  // "" or "status", "scale"
};

// The manager name of a request (see above); at most 128 characters, as
// kube-apiserver truncates User-Agent names.
std::string FieldManagerOf(const std::string& field_manager_param, const std::string& user_agent);

// Upserts the entry of `w` into obj.metadata.managedFields with time `now`.
// REQUIRES: obj.metadata is an object.
void RecordManagedFields(json& obj, const ManagedWrite& w, TimePoint now);

}  // namespace kubeon::kubesim
