// What a request asks to do, in the terms authorization speaks: the
// apiserver's RequestInfo (k8s.io/apiserver/pkg/endpoints/request) and the
// 403 Forbidden Status it answers a denial with.
//
// Resource requests are /api/v1/... and /apis/<group>/<version>/...
// below the discovery documents; the verb comes from the method:
//   GET item = get, GET collection = list, GET with watch (=anything but
//   "0"/"false") or under /watch/ = watch, POST = create, PUT = update,
//   PATCH = patch, DELETE item = delete, DELETE collection = deletecollection.
// /api/v1/namespaces/<ns>/... sets the namespace; so does
// /api/v1/namespaces/<ns> itself (resource "namespaces", name <ns>).
// A list or watch whose fieldSelector pins metadata.name=<n> has name <n>
// (so resourceNames rules apply to it).  The group, resource and
// subresource are read from the URL alone, never from a list of known
// kinds, so custom resources are authorized the same way.
// Everything else (/, /api, /apis, /apis/<g>[/<v>], /version, /healthz,
// /openapi/..., /sim/...) is a non-resource request: verb = the lower-case
// method, path = the URL path.
#pragma once

#include <map>
#include <string>

#include "api_error.h"
#include "identity.h"

namespace kubeon::kubesim {

struct RequestAttributes {
  bool resource_request = false;
  std::string verb;
  std::string api_group;    // "" = core
  std::string api_version;
  std::string resource;     // plural
  std::string subresource;  // "" = none
  std::string ns;           // "" = cluster scope
  std::string name;         // "" = collection
  std::string path;         // the URL path (non-resource requests)

  // "pods", "pods/eviction": how RBAC rules name what is asked for.
  std::string CombinedResource() const {
    return subresource.empty() ? resource : resource + "/" + subresource;
  }
};

// REQUIRES: `query` holds the decoded query parameters.
RequestAttributes AttributesOf(const std::string& method, const std::string& path,
                               const std::multimap<std::string, std::string>& query);

// The 403 Forbidden a real API server answers a denied request with
// (reason Forbidden, details {name, group, kind}), e.g.
//   pods "p" is forbidden: User "alice" cannot get resource "pods" in API
//   group "" in the namespace "ml"
ApiError Forbidden(const UserInfo& user, const RequestAttributes& a);

}  // namespace kubeon::kubesim
