// The OpenAPI v3 documents: /openapi/v3 lists one document per served
// group-version ("api/v1", "apis/apps/v1", ...) and
// /openapi/v3/<key> is an OpenAPI 3.0 document with that group-version's
// paths (openapi_paths.h) and the schemas they reach
// (components.schemas, from openapi_schema.h).  kubectl 1.27+ reads them
// for `explain` and for the field-validation support check; 1.29+ reads
// only these (not /openapi/v2) in `apply`, where a PATCH operation of a
// built-in kind lists application/strategic-merge-patch+json in its
// requestBody (custom resources do not), which is how kubectl chooses a
// strategic merge patch over a JSON merge patch.
#pragma once

#include <string>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

struct OpenApiExtra;  // openapi_paths.h

// The keys of /openapi/v3, in a fixed order (the built-ins', then the
// custom resources' of `extra` when given).
std::vector<std::string> OpenApiV3Keys(const OpenApiExtra* extra = nullptr);

// The document of one key; null when the key is not served.
json OpenApiV3Document(const std::string& key, const std::string& server_version, const OpenApiExtra* extra = nullptr);

}  // namespace kubeon::kubesim
