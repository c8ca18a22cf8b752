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

std::vector<std::string> OpenApiV3Keys(const OpenApiExtra* extra) {
  std::vector<std::string> keys;
  std::vector<OpenApiPath> all = OpenApiPaths();
  if (extra != nullptr) all.insert(all.end(), extra->paths.begin(), extra->paths.end());
  for (const auto& p : all) {
    std::string key = OpenApiV3Key(p.group_version);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

json OpenApiV3Document(const std::string& key, const std::string& server_version, const OpenApiExtra* extra) {
  const OpenApiSchema& schema = OpenApiSchema::Builtin();
  json paths = json::object();
  std::vector<std::string> roots;
  std::vector<OpenApiPath> all = OpenApiPaths();
  if (extra != nullptr) {
    all.insert(all.end(), extra->paths.begin(), extra->paths.end());
  }
  for (const auto& p : all) {
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
  if (extra != nullptr) {
    for (const auto& entry : extra->v3_schemas) {
      if (std::find(roots.begin(), roots.end(), entry.first) != roots.end()) {
        roots.insert(roots.end(), extra->builtin_refs.begin(), extra->builtin_refs.end());
        break;
      }
    }
  }
  json schemas = json::object();
  for (const auto& name : schema.Closure(roots)) schemas[name] = schema.SchemaJson(*schema.Find(name), kRef);
  if (extra != nullptr) {
    for (const auto& [name, s] : extra->v3_schemas) {
      if (roots.end() != std::find(roots.begin(), roots.end(), name)) schemas[name] = s;  // reached by a path here
    }
  }
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", server_version}}},
          {"paths", std::move(paths)},
          {"components", {{"schemas", std::move(schemas)}}}};
}

}  // namespace kubeon::kubesim
