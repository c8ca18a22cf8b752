// The custom resources' part of the OpenAPI documents: for every custom
// type (custom_resources.h) and served version, its paths (openapi_paths.h,
// PATCH without strategic merge) and its definition, named as kube-apiserver
// names it (group reversed, version, kind: "io.kubeon.gpu.v1.GpuPolicy"):
// the CRD's openAPIV3Schema with `metadata` a reference to ObjectMeta,
// `apiVersion`/`kind` declared, and x-kubernetes-group-version-kind.  The
// v2 definition drops what Swagger 2.0 cannot say (`nullable`; the type of
// x-kubernetes-int-or-string fields), as the real server does.
//
// So `kubectl apply` finds the kind (client-side validation, the
// fieldValidation support check, a JSON merge patch for CRs) and `kubectl
// explain gpupolicy.spec` works.
#pragma once

#include <string>
#include <vector>

#include "openapi_paths.h"
#include "resources.h"

namespace kubeon::kubesim {

// "io.kubeon.gpu.v1.GpuPolicy" for group gpu.kubeon.io, version v1.
std::string CustomDefinitionName(const ResourceType& type, const std::string& version);

// REQUIRES: every type has `custom` set.
OpenApiExtra CustomOpenApi(const std::vector<const ResourceType*>& types);

}  // namespace kubeon::kubesim
