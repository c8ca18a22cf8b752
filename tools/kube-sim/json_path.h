// The subset of Kubernetes JSONPath that CRD additionalPrinterColumns use
// (k8s.io/client-go/util/jsonpath, "simple" paths): dotted fields, array
// indices, [*], and the equality filter [?(@.field=="value")].
//
//   .spec.mode                                  -> "Approve"
//   .spec.containers[0].image                   -> "nginx"
//   .status.conditions[?(@.type=="Ready")].status
//   .spec.items[*].name                         -> every match
//
// An optional surrounding {...} is accepted.  Evaluation never fails: a
// path that does not parse, or that leads nowhere, matches nothing.
#pragma once

#include <string>
#include <vector>

#include "meta.h"

namespace kubeon::kubesim {

// Whether `path` is in the supported subset.
bool IsSimpleJsonPath(const std::string& path);

// The values `path` selects in `obj`, in document order.
std::vector<const json*> EvalJsonPath(const json& obj, const std::string& path);

}  // namespace kubeon::kubesim
