// The OpenAPI endpoints, with the caching semantics of kube-apiserver's
// kube-openapi handlers:
//
//   GET /openapi/v2        JSON, or the gnostic protobuf when Accept names
//                          application/com.github.proto-openapi.spec.v2@v1.0+protobuf
//                          (openapi_v2.h), labelled ...spec.v2.v1.0+protobuf
//                          as kube-openapi does.  ETag "<SHA-512 hex>" of the body
//                          served; If-None-Match with it is 304.  Vary: Accept.
//   GET /openapi/v3        {"paths": {"apis/apps/v1": {"serverRelativeURL":
//                          "/openapi/v3/apis/apps/v1?hash=<SHA-512 hex>"}, ...}}
//   GET /openapi/v3/<key>  the group-version's document (openapi_v3.h), JSON.
//                          With ?hash= equal to the current hash it is
//                          immutable (Cache-Control public, immutable); a
//                          stale hash is answered with a 301 to the current
//                          URL, as a real server does after an upgrade;
//                          without a hash: no-cache with the ETag.
//
// Documents are built once per server version (settings.serverVersion
// goes into info.version) and set of custom types, and shared;
// thread-safe.  Other methods are
// 405, unknown keys 404.
#pragma once

#include <string>

#include "api.h"
#include "custom_resources.h"

namespace kubeon::kubesim {

// REQUIRES: path is "/openapi/..." without trailing slashes.  `custom`:
// the custom resource types to publish too (openapi_custom.h), or null.
ApiResponse ServeOpenApi(const ApiRequest& req, const std::string& path, const std::string& server_version,
                         const CustomTypes* custom = nullptr);

// Upper-case hex SHA-512 of `data`, the hash kube-openapi publishes.
std::string OpenApiHash(const std::string& data);

}  // namespace kubeon::kubesim
