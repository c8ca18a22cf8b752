// Parsing of Kubernetes REST resource paths.
//
//   /api/v1[/watch]/[namespaces/<ns>/]<resource>[/<name>[/<subresource>]]
//   /apis/<group>/<version>[/watch]/[namespaces/<ns>/]<resource>[/<name>[/<sub>]]
//   /api/v1/namespaces[/<name>[/status|/finalize]]
//
// A cluster-wide path to a namespaced type (/api/v1/pods) is only a
// collection; a namespaced path to a cluster-scoped type does not exist.
// Unknown groups, versions, resources and subresources are 404 NotFound.
#pragma once

#include <string>

#include "api_error.h"
#include "custom_resources.h"
#include "resources.h"

namespace kubeon::kubesim {

struct Route {
  std::string group;
  std::string version;
  const ResourceType* type = nullptr;
  std::string ns;           // "" = cluster-wide (or cluster-scoped type)
  std::string name;         // "" = the collection
  std::string subresource;  // "" = the object itself
  bool watch_prefix = false;
};

// REQUIRES: path starts with "/api/" or "/apis/".  `custom`: the custom
// resource types served besides the built-ins (may be null).
Outcome<Route> ParseRoute(const std::string& path, const CustomTypes* custom = nullptr);

// The 404 a real server gives for a path it does not serve.
ApiError PathNotFound();

}  // namespace kubeon::kubesim
