// See structural_schema.h.
#include "structural_schema.h"

#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>

namespace kubeon::kubesim {

namespace {

std::string Join(const std::string& path, const std::string& field) {
  return path.empty() ? field : path + "." + field;
}

bool Flag(const json& schema, const char* key) {
  auto it = schema.find(key);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

const json* Member(const json& schema, const char* key) {
  if (!schema.is_object()) return nullptr;
  auto it = schema.find(key);
  return it == schema.end() ? nullptr : &*it;
}

// The schema of `field` of an object, or null when it declares none.
const json* FieldSchema(const json& schema, const std::string& field) {
  if (const json* props = Member(schema, "properties"); props != nullptr && props->contains(field)) {
    return &(*props)[field];
  }
  if (const json* extra = Member(schema, "additionalProperties"); extra != nullptr && extra->is_object()) return extra;
  return nullptr;
}

bool DeclaresFields(const json& schema) {
  return Member(schema, "properties") != nullptr || Member(schema, "additionalProperties") != nullptr;
}

// Go's %v of a JSON value in an error ("abc" quoted, numbers bare).
std::string Shown(const json& v) {
  if (v.is_string()) return "\"" + v.get<std::string>() + "\"";
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (d == static_cast<double>(static_cast<int64_t>(d))) return std::to_string(static_cast<int64_t>(d));
  }
  if (v.is_object() || v.is_array()) return "\"" + std::string(v.is_object() ? "object" : "array") + "\"";
  return v.dump();
}

std::string TypeName(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool IsType(const json& v, const std::string& type) {
  if (type == "integer") {
    return v.is_number_integer() || v.is_number_unsigned() ||
           (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())));
  }
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  return true;
}

// Compiled `pattern`s, shared (CRD schemas are few and stable); nullopt for
// a pattern std::regex cannot compile (then nothing is checked).
std::optional<std::regex> Pattern(const std::string& pattern) {
  static std::mutex mu;
  static std::map<std::string, std::optional<std::regex>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(pattern);
  if (it != cache.end()) return it->second;
  std::optional<std::regex> re;
  try {
    re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    re = std::nullopt;
  }
  cache.emplace(pattern, re);
  return re;
}

// RFC 3339 date-time, as kube-openapi's strfmt (fractions and offsets allowed).
bool IsDateTime(const std::string& s) {
  static const std::regex kDateTime(R"(^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$)");
  return std::regex_match(s, kDateTime);
}

std::string Number(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  return Shown(v);
}

void Validate(const json& schema, const json& v, const std::string& path, std::vector<std::string>& out) {
  if (!schema.is_object()) return;
  const std::string where = path.empty() ? "<root>" : path;
  if (v.is_null()) {
    if (!Flag(schema, "nullable") && !Flag(schema, "x-kubernetes-preserve-unknown-fields") && !Str(schema, {"type"}).empty()) {
      out.push_back(where + ": Invalid value: \"null\": " + where + " in body must be of type " +
                    Str(schema, {"type"}) + ": \"null\"");
    }
    return;
  }
  if (Flag(schema, "x-kubernetes-int-or-string")) {
    if (!v.is_string() && !IsType(v, "integer")) {
      out.push_back(where + ": Invalid value: \"" + TypeName(v) + "\": " + where +
                    " in body must be of type integer,string: \"" + TypeName(v) + "\"");
      return;
    }
  } else if (const json* type = Member(schema, "type"); type != nullptr && type->is_string()) {
    if (!IsType(v, type->get<std::string>())) {
      out.push_back(where + ": Invalid value: \"" + TypeName(v) + "\": " + where + " in body must be of type " +
                    type->get<std::string>() + ": \"" + TypeName(v) + "\"");
      return;
    }
  }
  if (const json* e = Member(schema, "enum"); e != nullptr && e->is_array()) {
    bool found = false;
    for (const auto& allowed : *e) found |= allowed == v;
    if (!found) {
      std::string list;
      for (const auto& allowed : *e) list += (list.empty() ? "" : ", ") + Shown(allowed);
      out.push_back(where + ": Unsupported value: " + Shown(v) + ": supported values: " + list);
    }
  }
  if (v.is_number()) {
    double d = v.get<double>();
    if (const json* m = Member(schema, "minimum"); m != nullptr && m->is_number()) {
      bool excl = Flag(schema, "exclusiveMinimum");
      if (excl ? d <= m->get<double>() : d < m->get<double>()) {
        out.push_back(where + ": Invalid value: " + Number(v) + ": " + where + " in body should be greater than " +
                      (excl ? "" : "or equal to ") + Number(*m));
      }
    }
    if (const json* m = Member(schema, "maximum"); m != nullptr && m->is_number()) {
      bool excl = Flag(schema, "exclusiveMaximum");
      if (excl ? d >= m->get<double>() : d > m->get<double>()) {
        out.push_back(where + ": Invalid value: " + Number(v) + ": " + where + " in body should be less than " +
                      (excl ? "" : "or equal to ") + Number(*m));
      }
    }
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    // Lengths count characters (UTF-8 code points), as Go's utf8.RuneCountInString.
    size_t chars = 0;
    for (unsigned char c : s) chars += (c & 0xC0) != 0x80 ? 1 : 0;
    if (const json* m = Member(schema, "maxLength"); m != nullptr && m->is_number_integer() && chars > m->get<size_t>()) {
      out.push_back(where + ": Too long: may not be longer than " + m->dump());
    }
    if (const json* m = Member(schema, "minLength"); m != nullptr && m->is_number_integer() && chars < m->get<size_t>()) {
      out.push_back(where + ": Invalid value: " + Shown(v) + ": " + where + " in body should be at least " + m->dump() +
                    " chars long");
    }
    if (const json* p = Member(schema, "pattern"); p != nullptr && p->is_string()) {
      auto re = Pattern(p->get<std::string>());
      if (re && !std::regex_search(s, *re)) {
        out.push_back(where + ": Invalid value: " + Shown(v) + ": " + where + " in body should match '" +
                      p->get<std::string>() + "'");
      }
    }
    if (Member(schema, "format") != nullptr && schema["format"] == "date-time" && !IsDateTime(s)) {
      out.push_back(where + ": Invalid value: " + Shown(v) + ": " + where + " in body must be of type date-time: " +
                    Shown(v));
    }
  }
  if (v.is_array()) {
    if (const json* m = Member(schema, "maxItems"); m != nullptr && m->is_number_integer() && v.size() > m->get<size_t>()) {
      out.push_back(where + ": Too many: " + std::to_string(v.size()) + ": must have at most " + m->dump() + " items");
    }
    if (const json* m = Member(schema, "minItems"); m != nullptr && m->is_number_integer() && v.size() < m->get<size_t>()) {
      out.push_back(where + ": Invalid value: " + std::to_string(v.size()) + ": " + where + " in body should have at least " +
                    m->dump() + " items");
    }
    if (Member(schema, "x-kubernetes-list-type") != nullptr && schema["x-kubernetes-list-type"] == "set") {
      for (size_t i = 1; i < v.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
          if (v[i] == v[j]) {
            out.push_back(path + "[" + std::to_string(i) + "]: Duplicate value: " + Shown(v[i]));
            break;
          }
        }
      }
    }
    if (const json* items = Member(schema, "items")) {
      for (size_t i = 0; i < v.size(); ++i) Validate(*items, v[i], path + "[" + std::to_string(i) + "]", out);
    }
  }
  if (v.is_object()) {
    if (const json* m = Member(schema, "maxProperties"); m != nullptr && m->is_number_integer() && v.size() > m->get<size_t>()) {
      out.push_back(where + ": Too many: " + std::to_string(v.size()) + ": must have at most " + m->dump() + " items");
    }
    if (const json* m = Member(schema, "minProperties"); m != nullptr && m->is_number_integer() && v.size() < m->get<size_t>()) {
      out.push_back(where + ": Invalid value: " + std::to_string(v.size()) + ": " + where +
                    " in body should have at least " + m->dump() + " properties");
    }
    if (const json* req = Member(schema, "required"); req != nullptr && req->is_array()) {
      for (const auto& r : *req) {
        if (r.is_string() && !v.contains(r.get<std::string>())) out.push_back(Join(path, r.get<std::string>()) + ": Required value");
      }
    }
    for (const auto& [k, sub] : v.items()) {
      if (path.empty() && (k == "metadata" || k == "apiVersion" || k == "kind")) continue;  // the API server's
      if (const json* fs = FieldSchema(schema, k)) Validate(*fs, sub, Join(path, k), out);
    }
  }
}

}  // namespace

std::vector<std::string> PruneUnknownFields(const json& schema, json& value, const json& keep, const std::string& path) {
  std::vector<std::string> unknown;
  if (!schema.is_object() || (Flag(schema, "x-kubernetes-preserve-unknown-fields") && !DeclaresFields(schema))) {
    return unknown;
  }
  if (value.is_array()) {
    if (const json* items = Member(schema, "items")) {
      for (size_t i = 0; i < value.size(); ++i) {
        const json& k = keep.is_array() && i < keep.size() ? keep[i] : json();
        for (auto& u : PruneUnknownFields(*items, value[i], k, path + "[" + std::to_string(i) + "]")) unknown.push_back(u);
      }
    }
    return unknown;
  }
  if (!value.is_object() || !(DeclaresFields(schema) || Str(schema, {"type"}) == "object")) return unknown;
  const bool preserve = Flag(schema, "x-kubernetes-preserve-unknown-fields");
  const bool embedded = Flag(schema, "x-kubernetes-embedded-resource");
  std::vector<std::string> drop;
  for (auto& [k, sub] : value.items()) {
    const bool api_server_owned = (path.empty() || embedded) && (k == "apiVersion" || k == "kind" || k == "metadata");
    if (api_server_owned) continue;
    const json* fs = FieldSchema(schema, k);
    const json& kept = keep.is_object() && keep.contains(k) ? keep[k] : json();
    if (fs == nullptr) {
      if (preserve) continue;
      if (kept.is_null()) {
        drop.push_back(k);
        unknown.push_back(Join(path, k));
      }
      continue;
    }
    if (sub.is_null() && !Flag(*fs, "nullable")) {
      drop.push_back(k);
      continue;
    }
    for (auto& u : PruneUnknownFields(*fs, sub, kept, Join(path, k))) unknown.push_back(u);
  }
  for (const auto& k : drop) value.erase(k);
  return unknown;
}

void ApplyDefaults(const json& schema, json& value) {
  if (!schema.is_object()) return;
  if (value.is_object()) {
    if (const json* props = Member(schema, "properties"); props != nullptr && props->is_object()) {
      for (const auto& [k, sub] : props->items()) {
        if (!value.contains(k) && sub.is_object() && sub.contains("default")) value[k] = sub["default"];
      }
    }
    for (auto& [k, sub] : value.items()) {
      if (const json* fs = FieldSchema(schema, k)) ApplyDefaults(*fs, sub);
    }
  } else if (value.is_array()) {
    if (const json* items = Member(schema, "items")) {
      for (auto& e : value) ApplyDefaults(*items, e);
    }
  }
}

std::vector<std::string> ValidateAgainstSchema(const json& schema, const json& value, const std::string& path) {
  std::vector<std::string> out;
  Validate(schema, value, path, out);
  return out;
}

}  // namespace kubeon::kubesim
