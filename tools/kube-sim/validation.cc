// See validation.h.
#include "validation.h"

#include <cctype>

#include "deployment_rollout.h"
#include "meta.h"

namespace kubeon::kubesim {

namespace {

bool IsDns1123Subdomain(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alnum = std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
    if (!alnum && c != '-' && c != '.') return false;
    if ((i == 0 || i + 1 == s.size()) && !alnum) return false;
  }
  return true;
}

bool IsDns1123Label(const std::string& s) {
  return s.size() <= 63 && s.find('.') == std::string::npos && IsDns1123Subdomain(s);
}

ApiError Invalid(const ResourceType& type, const json& obj, const std::string& why) {
  return ApiError::Invalid(type.group, type.kind, Name(obj), why);
}

// The pod spec with the mutable fields blanked, for comparison.
json ImmutablePodSpec(json spec) {
  for (const char* list : {"containers", "initContainers"}) {
    if (spec.contains(list) && spec[list].is_array()) {
      for (auto& c : spec[list]) c.erase("image");
    }
  }
  spec.erase("activeDeadlineSeconds");
  spec.erase("terminationGracePeriodSeconds");
  spec.erase("tolerations");
  return spec;
}

bool TolerationsOnlyAdded(const json& old_spec, const json& new_spec) {
  const json empty = json::array();
  const json& before = old_spec.contains("tolerations") ? old_spec["tolerations"] : empty;
  const json& after = new_spec.contains("tolerations") ? new_spec["tolerations"] : empty;
  for (const auto& t : before) {
    if (std::find(after.begin(), after.end(), t) == after.end()) return false;
  }
  return true;
}

}  // namespace

Outcome<bool> ValidateCreate(const ResourceType& type, const json& obj) {
  std::string name = Name(obj);
  if (name.empty()) return Invalid(type, obj, "metadata.name: Required value: name or generateName is required");
  bool ok = type.plural == "namespaces" ? IsDns1123Label(name) : IsDns1123Subdomain(name);
  // Path-segment names (no '/'), as the API server checks them for these kinds.
  if (type.plural == "events" || type.plural == "nodes" || type.group == "rbac.authorization.k8s.io") ok = !name.empty() && name.find('/') == std::string::npos;
  if (!ok) {
    return Invalid(type, obj, "metadata.name: Invalid value: \"" + name +
                                  "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                                  "characters, '-' or '.', and must start and end with an alphanumeric character");
  }
  if (type.plural == "pods") {
    const json* cs = Find(obj, {"spec", "containers"});
    if (cs == nullptr || !cs->is_array() || cs->empty()) {
      return Invalid(type, obj, "spec.containers: Required value");
    }
    for (size_t i = 0; i < cs->size(); ++i) {
      if ((*cs)[i].value("name", "").empty()) {
        return Invalid(type, obj, "spec.containers[" + std::to_string(i) + "].name: Required value");
      }
    }
  }
  if (type.plural == "configmaps" && obj.contains("data")) {
    if (!obj["data"].is_object()) return Invalid(type, obj, "data: must be a map of strings");
    for (const auto& [k, v] : obj["data"].items()) {
      if (!v.is_string()) return Invalid(type, obj, "data[" + k + "]: must be a string");
    }
  }
  if (type.plural == "deployments") return ValidateRollingUpdate(obj);
  return true;
}

Outcome<bool> ValidateUpdate(const ResourceType& type, const json& old_obj, const json& new_obj) {
  if (type.plural == "deployments") return ValidateRollingUpdate(new_obj);
  if (type.plural == "configmaps" || type.plural == "pods") {
    auto base = ValidateCreate(type, new_obj);
    if (!base.ok()) return base;
  }
  if (type.plural != "pods") return true;
  const json empty = json::object();
  const json& old_spec = old_obj.contains("spec") ? old_obj["spec"] : empty;
  const json& new_spec = new_obj.contains("spec") ? new_obj["spec"] : empty;
  if (ImmutablePodSpec(old_spec) != ImmutablePodSpec(new_spec) || !TolerationsOnlyAdded(old_spec, new_spec)) {
    return Invalid(type, new_obj,
                   "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
                   "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
                   "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
                   "set to 1 if it was previously negative)");
  }
  return true;
}

}  // namespace kubeon::kubesim
