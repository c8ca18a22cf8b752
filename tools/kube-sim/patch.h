// The three PATCH flavours of the Kubernetes API.
//
//   application/merge-patch+json            RFC 7386 JSON merge patch
//   application/strategic-merge-patch+json  Kubernetes strategic merge patch:
//       lists with a merge key (containers/volumes/env by name, ports by
//       containerPort, conditions by type, ownerReferences by uid, ...) are
//       merged element-wise; other lists are replaced; null deletes a key;
//       the directives $patch (replace|delete|merge), $retainKeys,
//       $deleteFromPrimitiveList/<f> and $setElementOrder/<f> are honoured;
//       "finalizers" is merged as a set.
//   application/json-patch+json             RFC 6902 JSON patch
//
// The merge keys are looked up by field name, not by full schema path; that
// is what the built-in types need (e.g. "ports" keys on containerPort for
// container ports and on port for service ports).
//
// Errors are 400 BadRequest (unparsable patch) or 422 Invalid (a JSON patch
// operation that cannot be applied, e.g. a failed "test").
#pragma once

#include <optional>
#include <string>

#include "api_error.h"

namespace kubeon::kubesim {

enum class PatchType { kMerge, kStrategicMerge, kJsonPatch };

// The patch type for a request Content-Type (parameters ignored), or nullopt.
std::optional<PatchType> PatchTypeFromContentType(const std::string& content_type);

json MergePatch(json original, const json& patch);
Outcome<json> StrategicMergePatch(json original, const json& patch);
Outcome<json> JsonPatch(const json& original, const json& operations);

// Parses `body` and applies it with the given flavour.
Outcome<json> ApplyPatch(PatchType type, const json& original, const std::string& body);

}  // namespace kubeon::kubesim
