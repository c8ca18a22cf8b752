// See openapi_custom.h.
#include "openapi_custom.h"

#include "custom_resources.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

// Swagger 2.0 has no nullable and no "integer or string" type.
void ToV2(json& s) {
  if (!s.is_object()) return;
  s.erase("nullable");
  if (s.contains("x-kubernetes-int-or-string") && s["x-kubernetes-int-or-string"] == true) {
    s.erase("type");
    s.erase("anyOf");
  }
  for (const char* key : {"properties", "patternProperties"}) {
    if (s.contains(key) && s[key].is_object()) {
      for (auto& [k, sub] : s[key].items()) ToV2(sub);
    }
  }
  for (const char* key : {"items", "additionalProperties"}) {
    if (s.contains(key)) ToV2(s[key]);
  }
}

json Definition(const ResourceType& t, const std::string& version, const std::string& ref_prefix) {
  json s = t.custom->Schema(version);
  if (!s.is_object()) s = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  s["x-kubernetes-group-version-kind"] = json::array({{{"group", t.group}, {"kind", t.kind}, {"version", version}}});
  s["properties"]["apiVersion"] = {{"type", "string"},
                                   {"description", "APIVersion defines the versioned schema of this representation of an object."}};
  s["properties"]["kind"] = {{"type", "string"}, {"description", "Kind is a string value representing the REST resource this object represents."}};
  s["properties"]["metadata"] = {{"$ref", ref_prefix + kObjectMeta}};
  return s;
}

}  // namespace

std::string CustomDefinitionName(const ResourceType& type, const std::string& version) {
  std::string reversed;
  std::string group = type.group;
  while (!group.empty()) {
    size_t dot = group.rfind('.');
    std::string part = dot == std::string::npos ? group : group.substr(dot + 1);
    reversed += (reversed.empty() ? "" : ".") + part;
    group = dot == std::string::npos ? "" : group.substr(0, dot);
  }
  return reversed + "." + version + "." + type.kind;
}

OpenApiExtra CustomOpenApi(const std::vector<const ResourceType*>& types) {
  OpenApiExtra extra;
  extra.builtin_refs = {kObjectMeta, "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"};
  for (const ResourceType* t : types) {
    for (const auto& version : t->versions) {
      std::string name = CustomDefinitionName(*t, version);
      for (auto& p : OpenApiPathsOf(*t, version, name)) extra.paths.push_back(std::move(p));
      json v2 = Definition(*t, version, "#/definitions/");
      ToV2(v2);
      extra.v2_definitions[name] = std::move(v2);
      extra.v3_schemas[name] = Definition(*t, version, "#/components/schemas/");
    }
  }
  return extra;
}

}  // namespace kubeon::kubesim
