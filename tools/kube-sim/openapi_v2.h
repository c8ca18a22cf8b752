// The OpenAPI v2 (Swagger 2.0) document of /openapi/v2, as JSON and in the
// protobuf encoding kubectl asks for first (Accept:
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf, the
// openapi.v2.Document message of github.com/google/gnostic
// openapiv2/OpenAPIv2.proto).  kubectl 1.27 reads it to find each kind's
// schema (x-kubernetes-group-version-kind), the patch strategies of its
// fields (three-way strategic merge patches in `kubectl apply`) and
// whether PATCH takes fieldValidation (then it leaves validation to the
// server).
//
// Paths come from openapi_paths.h and definitions from openapi_schema.h.
// The protobuf carries the subset of the Document that the JSON uses:
// vendor extensions are openapi.v2.Any values whose `yaml` is the JSON
// text of the value (JSON is YAML), as kube-openapi reads them.
#pragma once

#include <string>

#include "api_error.h"

namespace kubeon::kubesim {

struct OpenApiExtra;  // openapi_paths.h

// REQUIRES: server_version like "v1.32.0" (info.version).  `extra`: the
// custom resources' paths and definitions (openapi_custom.h), or null.
json OpenApiV2Json(const std::string& server_version, const OpenApiExtra* extra = nullptr);

// The gnostic protobuf encoding of a document shaped like OpenApiV2Json().
std::string OpenApiV2Protobuf(const json& document);

}  // namespace kubeon::kubesim
