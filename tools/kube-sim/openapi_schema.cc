// See openapi_schema.h.
#include "openapi_schema.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace kubeon::kubesim {

// Defined in the source CMake generates from openapi_types.json.
std::string_view BuiltinOpenApiTypesJson();

namespace {

const std::set<std::string> kScalars = {"string", "integer", "int64", "number", "boolean", "byte", "object"};

json ScalarJson(const std::string& type, const std::string& format) {
  json s = json::object();
  if (type == "integer") {
    s = {{"type", "integer"}, {"format", "int32"}};
  } else if (type == "int64") {
    s = {{"type", "integer"}, {"format", "int64"}};
  } else if (type == "number") {
    s = {{"type", "number"}, {"format", "double"}};
  } else if (type == "byte") {
    s = {{"type", "string"}, {"format", "byte"}};
  } else if (type == "object") {
    s = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  } else {
    s = {{"type", type}};
  }
  if (!format.empty()) s["format"] = format;
  return s;
}

ApiError SchemaError(const std::string& where, const std::string& why) {
  return ApiError::Internal("openapi types: " + where + ": " + why);
}

class Parser {
 public:
  explicit Parser(const json& doc) : doc_(doc) {}

  Outcome<std::string> FullName(const std::string& short_name) const {
    size_t dot = short_name.find('.');
    if (dot == std::string::npos) return SchemaError(short_name, "definition names are <package>.<Name>");
    const json& pkgs = doc_["packages"];
    auto it = pkgs.find(short_name.substr(0, dot));
    if (it == pkgs.end() || !it->is_string()) return SchemaError(short_name, "unknown package");
    return it->get<std::string>() + short_name.substr(dot);
  }

  Outcome<SchemaField> ParseField(const std::string& def, const std::string& name, const json& spec) const {
    std::string where = def + "." + name;
    if (!spec.is_string()) return SchemaError(where, "a field spec is a string");
    std::istringstream in(spec.get<std::string>());
    std::string type;
    in >> type;
    SchemaField f;
    f.name = name;
    if (type.rfind("[]", 0) == 0) {
      f.shape = SchemaField::Shape::kList;
      type = type.substr(2);
    } else if (type.rfind("{}", 0) == 0) {
      f.shape = SchemaField::Shape::kMap;
      type = type.substr(2);
    }
    if (kScalars.count(type) != 0) {
      f.type = type;
    } else {
      auto full = FullName(type);
      if (!full.ok()) return SchemaError(where, "unknown type \"" + type + "\"");
      if (!doc_["definitions"].contains(type)) return SchemaError(where, "undefined type \"" + type + "\"");
      f.type = full.value();
    }
    std::vector<std::string> strategies;
    for (std::string opt; in >> opt;) {
      if (opt == "merge") {
        strategies.push_back("merge");
      } else if (opt.rfind("merge=", 0) == 0) {
        strategies.push_back("merge");
        f.merge_key = opt.substr(6);
      } else if (opt == "retainKeys") {
        strategies.push_back("retainKeys");
      } else if (opt == "patch=replace") {
        strategies.push_back("replace");
      } else {
        return SchemaError(where, "unknown option \"" + opt + "\"");
      }
    }
    for (const auto& s : strategies) f.patch_strategy += (f.patch_strategy.empty() ? "" : ",") + s;
    return f;
  }

  // Fields of `short_name` with "like" resolved.
  Outcome<std::vector<SchemaField>> Fields(const std::string& short_name, int depth) const {
    if (depth > 8) return SchemaError(short_name, "\"like\" chain too deep");
    const json& body = doc_["definitions"][short_name];
    std::vector<SchemaField> out;
    if (body.contains("like")) {
      std::string other = body["like"].get<std::string>();
      if (!doc_["definitions"].contains(other)) return SchemaError(short_name, "like names an undefined type");
      auto base = Fields(other, depth + 1);
      if (!base.ok()) return base.error();
      out = std::move(base).value();
    }
    if (body.contains("fields")) {
      if (!body["fields"].is_object()) return SchemaError(short_name, "fields is an object");
      for (const auto& [name, spec] : body["fields"].items()) {
        auto f = ParseField(short_name, name, spec);
        if (!f.ok()) return f.error();
        out.push_back(std::move(f).value());
      }
    }
    return out;
  }

 private:
  const json& doc_;
};

}  // namespace

const SchemaField* SchemaDefinition::Field(const std::string& field_name) const {
  for (const auto& f : fields) {
    if (f.name == field_name) return &f;
  }
  return nullptr;
}

Outcome<OpenApiSchema> OpenApiSchema::Parse(std::string_view compact_json) {
  json doc = json::parse(compact_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return SchemaError("document", "not a JSON object");
  if (!doc["packages"].is_object() || !doc["definitions"].is_object()) {
    return SchemaError("document", "needs \"packages\" and \"definitions\" objects");
  }
  Parser parser(doc);
  OpenApiSchema out;
  for (const auto& [short_name, body] : doc["definitions"].items()) {
    auto full = parser.FullName(short_name);
    if (!full.ok()) return full.error();
    if (!body.is_object()) return SchemaError(short_name, "a definition is an object");
    SchemaDefinition d;
    d.name = full.value();
    if (body.contains("type")) {
      d.scalar_type = body["type"].get<std::string>();
      d.format = body.value("format", "");
      if (kScalars.count(d.scalar_type) == 0) return SchemaError(short_name, "unknown scalar type");
    } else {
      if (body.contains("gvk")) {
        const json& g = body["gvk"];
        if (!g.is_array() || g.size() != 3) return SchemaError(short_name, "gvk is [group, version, kind]");
        d.gvk = GroupVersionKind{g[0].get<std::string>(), g[1].get<std::string>(), g[2].get<std::string>()};
        if (out.kinds_.count(*d.gvk) != 0) return SchemaError(short_name, "duplicate gvk");
        out.kinds_[*d.gvk] = d.name;
        auto meta = parser.FullName("meta.ObjectMeta");
        if (!meta.ok() || !doc["definitions"].contains("meta.ObjectMeta")) {
          return SchemaError(short_name, "a kind needs the definition meta.ObjectMeta");
        }
        d.fields.push_back({"apiVersion", SchemaField::Shape::kSingle, "string", "", ""});
        d.fields.push_back({"kind", SchemaField::Shape::kSingle, "string", "", ""});
        d.fields.push_back({"metadata", SchemaField::Shape::kSingle, meta.value(), "", ""});
      }
      auto fields = parser.Fields(short_name, 0);
      if (!fields.ok()) return fields.error();
      for (auto& f : fields.value()) d.fields.push_back(std::move(f));
      if (body.contains("required")) d.required = body["required"].get<std::vector<std::string>>();
      for (const auto& r : d.required) {
        if (d.Field(r) == nullptr) return SchemaError(short_name, "required field \"" + r + "\" is not a field");
      }
    }
    out.defs_[d.name] = std::move(d);
  }
  return out;
}

const OpenApiSchema& OpenApiSchema::Builtin() {
  static const OpenApiSchema schema = [] {
    auto parsed = Parse(BuiltinOpenApiTypesJson());
    if (!parsed.ok()) {
      std::cerr << "kube-sim: " << parsed.error().message << std::endl;
      std::abort();
    }
    return std::move(parsed).value();
  }();
  return schema;
}

const SchemaDefinition* OpenApiSchema::Find(const std::string& full_name) const {
  auto it = defs_.find(full_name);
  return it == defs_.end() ? nullptr : &it->second;
}

const SchemaDefinition* OpenApiSchema::ForKind(const GroupVersionKind& gvk) const {
  auto it = kinds_.find(gvk);
  return it == kinds_.end() ? nullptr : Find(it->second);
}

json OpenApiSchema::FieldJson(const SchemaField& field, const std::string& ref_prefix) const {
  json item = kScalars.count(field.type) != 0 ? ScalarJson(field.type, "")
                                              : json{{"$ref", ref_prefix + field.type}};
  json s;
  switch (field.shape) {
    case SchemaField::Shape::kSingle: s = std::move(item); break;
    case SchemaField::Shape::kList: s = {{"type", "array"}, {"items", std::move(item)}}; break;
    case SchemaField::Shape::kMap: s = {{"type", "object"}, {"additionalProperties", std::move(item)}}; break;
  }
  if (!field.patch_strategy.empty()) s["x-kubernetes-patch-strategy"] = field.patch_strategy;
  if (!field.merge_key.empty()) s["x-kubernetes-patch-merge-key"] = field.merge_key;
  return s;
}

json OpenApiSchema::SchemaJson(const SchemaDefinition& def, const std::string& ref_prefix) const {
  if (!def.scalar_type.empty()) return ScalarJson(def.scalar_type, def.format);
  json props = json::object();
  for (const auto& f : def.fields) props[f.name] = FieldJson(f, ref_prefix);
  json s = {{"type", "object"}, {"properties", std::move(props)}};
  if (!def.required.empty()) s["required"] = def.required;
  if (def.gvk) {
    s["x-kubernetes-group-version-kind"] =
        json::array({{{"group", def.gvk->group}, {"kind", def.gvk->kind}, {"version", def.gvk->version}}});
  }
  return s;
}

std::set<std::string> OpenApiSchema::Closure(const std::vector<std::string>& roots) const {
  std::set<std::string> seen;
  std::vector<std::string> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    std::string name = todo.back();
    todo.pop_back();
    const SchemaDefinition* d = Find(name);
    if (d == nullptr || !seen.insert(name).second) continue;
    for (const auto& f : d->fields) {
      if (kScalars.count(f.type) == 0) todo.push_back(f.type);
    }
  }
  return seen;
}

std::vector<std::string> OpenApiSchema::Prune(const std::string& def_name, json& obj, const json& reference) const {
  std::vector<std::string> unknown;
  const SchemaDefinition* def = Find(def_name);
  if (def != nullptr && def->scalar_type.empty() && obj.is_object()) PruneObject(*def, obj, &reference, "", unknown);
  return unknown;
}

namespace {

// reference[key] / reference[index], or nullptr.
const json* Child(const json* ref, const std::string& key) {
  if (ref == nullptr || !ref->is_object()) return nullptr;
  auto it = ref->find(key);
  return it == ref->end() ? nullptr : &*it;
}
const json* Child(const json* ref, size_t index) {
  return ref != nullptr && ref->is_array() && index < ref->size() ? &(*ref)[index] : nullptr;
}

}  // namespace

void OpenApiSchema::PruneObject(const SchemaDefinition& def, json& obj, const json* ref, const std::string& path,
                                std::vector<std::string>& unknown) const {
  std::vector<std::string> drop;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string field_path = path.empty() ? it.key() : path + "." + it.key();
    const SchemaField* f = def.Field(it.key());
    if (f == nullptr) {
      if (Child(ref, it.key()) != nullptr) continue;  // already stored: grandfathered
      unknown.push_back(field_path);
      drop.push_back(it.key());
      continue;
    }
    PruneValue(*f, it.value(), Child(ref, it.key()), field_path, unknown);
  }
  for (const auto& k : drop) obj.erase(k);
}

void OpenApiSchema::PruneValue(const SchemaField& field, json& value, const json* ref, const std::string& path,
                               std::vector<std::string>& unknown) const {
  const SchemaDefinition* def = Find(field.type);
  if (def == nullptr || !def->scalar_type.empty()) return;  // scalars and free-form
  auto one = [&](json& v, const json* r, const std::string& p) {
    if (v.is_object()) PruneObject(*def, v, r, p, unknown);
  };
  switch (field.shape) {
    case SchemaField::Shape::kSingle:
      one(value, ref, path);
      break;
    case SchemaField::Shape::kList:
      if (!value.is_array()) return;
      for (size_t i = 0; i < value.size(); ++i) one(value[i], Child(ref, i), path + "[" + std::to_string(i) + "]");
      break;
    case SchemaField::Shape::kMap:
      if (!value.is_object()) return;
      for (auto it = value.begin(); it != value.end(); ++it) {
        one(it.value(), Child(ref, it.key()), path + "[" + it.key() + "]");
      }
      break;
  }
}

}  // namespace kubeon::kubesim
