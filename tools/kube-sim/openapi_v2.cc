// See openapi_v2.h.
#include "openapi_v2.h"

#include "openapi_paths.h"
#include "openapi_schema.h"
#include "protobuf_writer.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kRef = "#/definitions/";

json Ref(const std::string& def) { return {{"$ref", kRef + def}}; }

json OperationJson(const OpenApiOperation& op) {
  json j = OpenApiOperationJson(op, false);
  if (!op.body.empty()) {
    j["parameters"].push_back({{"name", "body"}, {"in", "body"}, {"required", true}, {"schema", Ref(op.body)}});
  }
  json ok = {{"description", "OK"}};
  if (!op.response.empty()) ok["schema"] = Ref(op.response);
  j["responses"] = {{"200", ok}, {"401", {{"description", "Unauthorized"}}}};
  j["schemes"] = {"https"};
  j["produces"] = {"application/json", "application/yaml"};
  if (!op.consumes.empty()) j["consumes"] = op.consumes;
  return j;
}

// --- JSON -> openapi.v2 protobuf messages (field numbers from OpenAPIv2.proto)

void Strings(ProtoWriter& w, uint32_t field, const json& list) {
  if (!list.is_array()) return;
  for (const auto& s : list) w.String(field, s.get<std::string>());
}

ProtoWriter NamedAny(const std::string& name, const json& value) {
  ProtoWriter any;
  any.String(2, value.dump());  // Any.yaml
  ProtoWriter named;
  named.String(1, name);
  named.Message(2, any);
  return named;
}

ProtoWriter Schema(const json& s);

// A JSON object as the repeated Named<T> entries (name = 1, value = 2) of a
// message, each value encoded by `encode`, e.g. Properties and Definitions
// (NamedSchema in field 1) or Paths (NamedPathItem in field 2).
template <typename Encode>
ProtoWriter NamedEntries(uint32_t field, const json& object, Encode encode) {
  ProtoWriter w;
  for (const auto& [name, value] : object.items()) {
    ProtoWriter named;
    named.String(1, name);
    named.Message(2, encode(value));
    w.Message(field, named);
  }
  return w;
}

ProtoWriter Schema(const json& s) {
  ProtoWriter w;
  if (s.contains("$ref")) w.String(1, s["$ref"].get<std::string>());
  if (s.contains("format")) w.String(2, s["format"].get<std::string>());
  if (s.contains("description")) w.String(4, s["description"].get<std::string>());
  if (s.contains("required")) Strings(w, 19, s["required"]);
  if (s.contains("additionalProperties")) {
    ProtoWriter item;
    if (s["additionalProperties"].is_boolean()) item.Bool(2, s["additionalProperties"].get<bool>());
    else item.Message(1, Schema(s["additionalProperties"]));
    w.Message(21, item);
  }
  if (s.contains("type")) {
    ProtoWriter type;
    type.String(1, s["type"].get<std::string>());
    w.Message(22, type);
  }
  if (s.contains("items")) {
    ProtoWriter items;
    items.Message(1, Schema(s["items"]));
    w.Message(23, items);
  }
  if (s.contains("properties")) w.Message(25, NamedEntries(1, s["properties"], Schema));
  for (const auto& [k, v] : s.items()) {
    if (k.rfind("x-", 0) == 0) w.Message(31, NamedAny(k, v));
  }
  return w;
}

ProtoWriter Parameter(const json& p) {
  ProtoWriter param;  // openapi.v2.Parameter
  std::string in = p.value("in", "");
  if (in == "body") {
    ProtoWriter body;
    if (p.contains("description")) body.String(1, p["description"].get<std::string>());
    body.String(2, p.value("name", ""));
    body.String(3, in);
    if (p.value("required", false)) body.Bool(4, true);
    if (p.contains("schema")) body.Message(5, Schema(p["schema"]));
    param.Message(1, body);
  } else {
    // Query and path sub-schemas share field numbers 1-4; type is 6 for
    // query (after allow_empty_value) and 5 for path.
    ProtoWriter sub;
    if (p.value("required", false)) sub.Bool(1, true);
    sub.String(2, in);
    if (p.contains("description")) sub.String(3, p["description"].get<std::string>());
    sub.String(4, p.value("name", ""));
    sub.String(in == "query" ? 6 : 5, p.value("type", "string"));
    if (p.value("uniqueItems", false)) sub.Bool(in == "query" ? 20 : 19, true);
    ProtoWriter non_body;
    non_body.Message(in == "query" ? 3 : 4, sub);
    param.Message(2, non_body);
  }
  ProtoWriter item;  // openapi.v2.ParametersItem
  item.Message(1, param);
  return item;
}

ProtoWriter Operation(const json& op) {
  ProtoWriter w;
  Strings(w, 1, op.value("tags", json::array()));
  if (op.contains("description")) w.String(3, op["description"].get<std::string>());
  if (op.contains("operationId")) w.String(5, op["operationId"].get<std::string>());
  Strings(w, 6, op.value("produces", json::array()));
  Strings(w, 7, op.value("consumes", json::array()));
  for (const auto& p : op.value("parameters", json::array())) w.Message(8, Parameter(p));
  if (op.contains("responses")) {  // Responses: NamedResponseValue in field 1
    w.Message(9, NamedEntries(1, op["responses"], [](const json& r) {
      ProtoWriter response;
      response.String(1, r.value("description", ""));
      if (r.contains("schema")) {
        ProtoWriter item;  // SchemaItem
        item.Message(1, Schema(r["schema"]));
        response.Message(2, item);
      }
      ProtoWriter value;  // ResponseValue
      value.Message(1, response);
      return value;
    }));
  }
  Strings(w, 10, op.value("schemes", json::array()));
  for (const auto& [k, v] : op.items()) {
    if (k.rfind("x-", 0) == 0) w.Message(13, NamedAny(k, v));
  }
  return w;
}

ProtoWriter PathItem(const json& item) {
  static const std::pair<const char*, uint32_t> kMethods[] = {
      {"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}};
  ProtoWriter w;
  for (const auto& [method, field] : kMethods) {
    if (item.contains(method)) w.Message(field, Operation(item[method]));
  }
  for (const auto& p : item.value("parameters", json::array())) w.Message(9, Parameter(p));
  return w;
}

}  // namespace

json OpenApiV2Json(const std::string& server_version, const OpenApiExtra* extra) {
  const OpenApiSchema& schema = OpenApiSchema::Builtin();
  json paths = json::object();
  std::vector<OpenApiPath> all = OpenApiPaths();
  if (extra != nullptr) all.insert(all.end(), extra->paths.begin(), extra->paths.end());
  for (const auto& p : all) {
    json item = json::object();
    if (!p.params.empty()) {
      item["parameters"] = json::array();
      for (const auto& param : p.params) item["parameters"].push_back(OpenApiParamJson(param, false));
    }
    for (const auto& op : p.operations) item[op.method] = OperationJson(op);
    paths[p.path] = std::move(item);
  }
  json defs = json::object();
  for (const auto& [name, def] : schema.definitions()) defs[name] = schema.SchemaJson(def, kRef);
  if (extra != nullptr) {
    for (const auto& [name, def] : extra->v2_definitions) defs[name] = def;
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "Kubernetes"}, {"version", server_version}}},
          {"paths", std::move(paths)},
          {"definitions", std::move(defs)}};
}

std::string OpenApiV2Protobuf(const json& document) {
  ProtoWriter doc;
  doc.String(1, document.value("swagger", "2.0"));
  if (document.contains("info")) {
    ProtoWriter info;
    info.String(1, document["info"].value("title", ""));
    info.String(2, document["info"].value("version", ""));
    doc.Message(2, info);
  }
  if (document.contains("paths")) doc.Message(8, NamedEntries(2, document["paths"], PathItem));
  if (document.contains("definitions")) doc.Message(9, NamedEntries(1, document["definitions"], Schema));
  return doc.bytes();
}

}  // namespace kubeon::kubesim
