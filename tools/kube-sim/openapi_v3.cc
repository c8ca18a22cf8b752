// See openapi_v3.h.
#include "openapi_v3.h"

#include <algorithm>

#include "openapi_paths.h"
#include "openapi_schema.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kRef = "#/components/schemas/";

json Ref(const std::string& def) { return {{"$ref", kRef + def}}; }

json OperationJson(const OpenApiOperation& op) {
  json j = OpenApiOperationJson(op, true);
  json ok = {{"description", "OK"}};
  if (!op.response.empty()) {
    ok["content"] = {{"application/json", {{"schema", Ref(op.response)}}},
                     {"application/yaml", {{"schema", Ref(op.response)}}}};
  }
  j["responses"] = {{"200", ok}, {"401", {{"description", "Unauthorized"}}}};
  if (!op.body.empty()) {
    json content = json::object();
    for (const auto& ct : op.consumes) content[ct] = {{"schema", Ref(op.body)}};
    j["requestBody"] = {{"content", content}, {"required", true}};
  }
  return j;
}

}  // namespace

std::vector<std::string> OpenApiV3Keys() {
  std::vector<std::string> keys;
  for (const auto& p : OpenApiPaths()) {
    std::string key = OpenApiV3Key(p.group_version);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

json OpenApiV3Document(const std::string& key, const std::string& server_version) {
  const OpenApiSchema& schema = OpenApiSchema::Builtin();
  json paths = json::object();
  std::vector<std::string> roots;
  for (const auto& p : OpenApiPaths()) {
    if (OpenApiV3Key(p.group_version) != key) continue;
    json item = json::object();
    if (!p.params.empty()) {
      item["parameters"] = json::array();
      for (const auto& param : p.params) item["parameters"].push_back(OpenApiParamJson(param, true));
    }
    for (const auto& op : p.operations) {
      item[op.method] = OperationJson(op);
      if (!op.body.empty()) roots.push_back(op.body);
      if (!op.response.empty()) roots.push_back(op.response);
    }
    paths[p.path] = std::move(item);
  }
  if (paths.empty()) return nullptr;
  json schemas = json::object();
  for (const auto& name : schema.Closure(roots)) schemas[name] = schema.SchemaJson(*schema.Find(name), kRef);
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", server_version}}},
          {"paths", std::move(paths)},
          {"components", {{"schemas", std::move(schemas)}}}};
}

}  // namespace kubeon::kubesim
