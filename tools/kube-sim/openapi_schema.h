// The object model of the kinds kube-sim serves, as data: openapi_types.json
// (compiled in) in a compact notation, expanded here into OpenAPI schemas
// (openapi_v2.h, openapi_v3.h) and used to validate and prune the objects
// clients write (field_validation.h).
//
// Notation of openapi_types.json:
//   "packages":    short prefix -> OpenAPI package ("core" ->
//                  "io.k8s.api.core.v1"); a definition "core.Pod" is
//                  published as "io.k8s.api.core.v1.Pod".
//   "definitions": short name -> one of
//     {"type": "string", "format": "date-time"}   a scalar definition
//     {"type": "object"}                           free-form JSON
//     {"gvk": [group, version, kind], "required": [...], "like": "other",
//      "fields": {name: spec}}                     a structure; "like" copies
//                  the fields of another structure first; a definition with
//                  a gvk is a kind and gets apiVersion, kind and metadata.
//   field spec:    "TYPE [merge[=KEY]] [retainKeys] [patch=replace]"
//     TYPE is string, integer (int32), int64, number, boolean, byte
//     (base64 string), object (free-form), a definition name, "[]T" (list
//     of T) or "{}T" (map of string to T).  merge=KEY is Kubernetes'
//     patchStrategy "merge" with patchMergeKey KEY; the options become
//     x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key.
//
// Invariants (checked by Parse): every referenced definition exists, every
// type is known, every kind's gvk is unique.  Builtin() aborts if the
// compiled-in data breaks them (a build defect, caught by the unit test).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

struct GroupVersionKind {
  std::string group;  // "" = core
  std::string version;
  std::string kind;
  bool operator<(const GroupVersionKind& o) const {
    return std::tie(group, version, kind) < std::tie(o.group, o.version, o.kind);
  }
};

struct SchemaField {
  enum class Shape { kSingle, kList, kMap };
  std::string name;
  Shape shape = Shape::kSingle;
  std::string type;            // scalar name or the full name of a definition
  std::string patch_strategy;  // "", "merge", "retainKeys", "merge,retainKeys", "replace"
  std::string merge_key;
};

struct SchemaDefinition {
  std::string name;            // full name, "io.k8s.api.core.v1.Pod"
  std::string scalar_type;     // set for scalar and free-form definitions
  std::string format;
  std::vector<SchemaField> fields;  // in publication order
  std::vector<std::string> required;
  std::optional<GroupVersionKind> gvk;

  const SchemaField* Field(const std::string& field_name) const;
};

class OpenApiSchema {
 public:
  // Parses the compact notation; errors name the definition and field.
  static Outcome<OpenApiSchema> Parse(std::string_view compact_json);
  // The compiled-in openapi_types.json.
  static const OpenApiSchema& Builtin();

  const std::map<std::string, SchemaDefinition>& definitions() const { return defs_; }
  const SchemaDefinition* Find(const std::string& full_name) const;
  const SchemaDefinition* ForKind(const GroupVersionKind& gvk) const;

  // The OpenAPI schema object of one definition; references are
  // `ref_prefix` + full name ("#/definitions/" for v2,
  // "#/components/schemas/" for v3).
  json SchemaJson(const SchemaDefinition& def, const std::string& ref_prefix) const;
  // `roots` and every definition they reach, sorted by name.
  std::set<std::string> Closure(const std::vector<std::string>& roots) const;

  // Removes from `obj` (an object of definition `def_name`) every field the
  // schema does not know, at any depth, and returns their paths in the
  // form the apiserver's strict decoder reports ("spec.foo",
  // "spec.containers[0].imagePullPolcy"), sorted by key at each level.  Values of
  // the wrong JSON type are left alone.  A field that `reference` (null, or
  // the stored version of the object) has at the same place is kept and
  // not reported.
  std::vector<std::string> Prune(const std::string& def_name, json& obj,
                                 const json& reference = nullptr) const;

 private:
  void PruneValue(const SchemaField& field, json& value, const json* ref, const std::string& path,
                  std::vector<std::string>& unknown) const;
  void PruneObject(const SchemaDefinition& def, json& obj, const json* ref, const std::string& path,
                   std::vector<std::string>& unknown) const;
  json FieldJson(const SchemaField& field, const std::string& ref_prefix) const;

  std::map<std::string, SchemaDefinition> defs_;
  std::map<GroupVersionKind, std::string> kinds_;
};

}  // namespace kubeon::kubesim
