// See field_validation.h.
#include "field_validation.h"

#include "custom_resources.h"
#include "openapi_schema.h"
#include "structural_schema.h"

namespace kubeon::kubesim {

Outcome<FieldValidation> ParseFieldValidation(const std::string& value) {
  if (value.empty() || value == "Warn") return FieldValidation::kWarn;
  if (value == "Ignore") return FieldValidation::kIgnore;
  if (value == "Strict") return FieldValidation::kStrict;
  return ApiError::BadRequest("fieldValidation: Unsupported value: \"" + value +
                              "\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
}

std::string GoValueString(const json& value) {
  if (value.is_object()) {
    std::string out = "map[";
    bool first = true;
    for (const auto& [k, v] : value.items()) {  // nlohmann orders keys bytewise, as Go's fmt does
      out += (first ? "" : " ") + k + ":" + GoValueString(v);
      first = false;
    }
    return out + "]";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i == 0 ? "" : " ") + GoValueString(value[i]);
    return out + "]";
  }
  if (value.is_null()) return "<nil>";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

std::string WarningHeaderValue(const std::string& text) {
  std::string out = "299 - \"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Outcome<std::vector<std::string>> CheckFields(const ResourceType& type, const std::string& version,
                                              json& obj, const json& existing, const FieldCheck& check) {
  const OpenApiSchema& schema = OpenApiSchema::Builtin();
  const SchemaDefinition* def = type.custom != nullptr ? nullptr : schema.ForKind({type.group, version, type.kind});
  if (def == nullptr && type.custom == nullptr) return std::vector<std::string>{};
  const std::string patched = check.write == WriteKind::kOtherPatch ? obj.dump() : std::string();
  std::vector<std::string> unknown = type.custom != nullptr
                                         ? PruneUnknownFields(type.custom->Schema(version), obj, existing)
                                         : schema.Prune(def->name, obj, existing);
  std::vector<std::string> errors;
  for (const auto& path : unknown) errors.push_back("unknown field \"" + path + "\"");
  if (errors.empty() || check.directive == FieldValidation::kIgnore) return std::vector<std::string>{};
  if (check.directive == FieldValidation::kWarn) return errors;
  std::string strict = "strict decoding error: ";
  for (size_t i = 0; i < errors.size(); ++i) strict += (i == 0 ? "" : ", ") + errors[i];
  if (check.write == WriteKind::kCreate || check.write == WriteKind::kUpdate) {
    return ApiError::BadRequest(type.kind + " in version \"" + version + "\" cannot be handled as a " +
                                type.kind + ": " + strict);
  }
  std::string value;
  if (check.write == WriteKind::kStrategicPatch) {
    json patch = json::parse(check.patch_body, nullptr, false);
    value = GoValueString(patch.is_discarded() ? json(check.patch_body) : patch);
  } else {
    value = patched;
  }
  json quoted = value;  // Go's %q of a string, close enough: JSON string escaping
  std::string cause = "Invalid value: " + quoted.dump() + ": " + strict;
  ApiError e;
  e.code = 422;
  e.reason = "Invalid";
  e.message = " \"\" is invalid: patch: " + cause;
  e.details = {{"causes", json::array({{{"reason", "FieldValueInvalid"}, {"message", cause}, {"field", "patch"}}})}};
  return e;
}

}  // namespace kubeon::kubesim
