// The REST operations kube-sim serves, described once for both OpenAPI
// documents (openapi_v2.h, openapi_v3.h): for every served type and
// version, the collection path (list, create, deletecollection), the
// cluster-wide list of a namespaced type, the object path (get, replace,
// patch, delete) and the subresources (status, scale, eviction).
//
// Each operation carries the x-kubernetes-group-version-kind and
// x-kubernetes-action a real server publishes, and the query parameters
// the handlers honour; create, replace and patch list dryRun,
// fieldManager and fieldValidation, which is how kubectl decides that the
// server validates fields itself (it then sends fieldValidation=Strict
// instead of validating on the client).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "openapi_schema.h"
#include "resources.h"

namespace kubeon::kubesim {

struct OpenApiParam {
  std::string name;
  std::string in;    // "path" or "query"
  std::string type;  // "string", "integer" or "boolean"
  bool required = false;
  std::string description;
};

struct OpenApiOperation {
  std::string method;        // "get", "put", "post", "delete", "patch"
  std::string operation_id;  // "patchAppsV1NamespacedDeployment"
  std::string action;        // x-kubernetes-action: get, list, post, put, patch, delete, deletecollection
  std::string tag;           // "apps_v1"
  GroupVersionKind gvk;
  std::vector<OpenApiParam> params;
  std::string body;                   // definition of the request body, "" = none
  std::vector<std::string> consumes;  // request media types
  std::string response;               // definition of the 200 response, "" = none
};

struct OpenApiPath {
  std::string path;           // "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
  std::string group_version;  // "apps/v1", "v1" for the core group
  std::vector<OpenApiParam> params;  // path parameters shared by the operations
  std::vector<OpenApiOperation> operations;
};

// Every path of the built-in types, in a fixed order.
const std::vector<OpenApiPath>& OpenApiPaths();

// The paths of `type` served at `version`, whose kind is the definition
// `def` (for custom resources, openapi_custom.h).
std::vector<OpenApiPath> OpenApiPathsOf(const ResourceType& type, const std::string& version, const std::string& def);

// What custom resources add to the documents (openapi_custom.h).
struct OpenApiExtra {
  std::vector<OpenApiPath> paths;
  std::map<std::string, json> v2_definitions;  // name -> schema, refs "#/definitions/..."
  std::map<std::string, json> v3_schemas;      // name -> schema, refs "#/components/schemas/..."
  std::vector<std::string> builtin_refs;       // built-in definitions those schemas refer to
};

// "api/v1" or "apis/apps/v1": the key of a group-version in /openapi/v3.
std::string OpenApiV3Key(const std::string& group_version);

// A parameter object: v2 states the type inline, v3 in a "schema".
json OpenApiParamJson(const OpenApiParam& param, bool v3);
// The fields an operation has in both documents: description,
// operationId, tags, its parameters, x-kubernetes-action and
// x-kubernetes-group-version-kind (an object, as on a real server).
json OpenApiOperationJson(const OpenApiOperation& op, bool v3);

}  // namespace kubeon::kubesim
