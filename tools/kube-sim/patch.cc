// See patch.h.
#include "patch.h"

#include <algorithm>
#include <map>

namespace kubeon::kubesim {

namespace {

constexpr const char* kPatchDirective = "$patch";
constexpr const char* kRetainKeys = "$retainKeys";
const std::string kDeleteFromPrimitive = "$deleteFromPrimitiveList/";
const std::string kSetElementOrder = "$setElementOrder/";

// Merge key of a list field, chosen by field name (and, for "ports", by the
// shape of the elements).  Empty: the list is atomic and gets replaced.
std::string MergeKey(const std::string& field, const json& sample) {
  static const std::map<std::string, std::string> kKeys = {
      {"containers", "name"},        {"initContainers", "name"},
      {"ephemeralContainers", "name"}, {"volumes", "name"},
      {"env", "name"},               {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"}, {"imagePullSecrets", "name"},
      {"conditions", "type"},        {"ownerReferences", "uid"},
      {"hostAliases", "ip"},         {"podIPs", "ip"},
      {"hostIPs", "ip"},             {"addresses", "type"},
      {"topologySpreadConstraints", "topologyKey"}, {"resourceClaims", "name"}};
  if (field == "ports") {
    return sample.is_object() && sample.contains("containerPort") ? "containerPort" : "port";
  }
  auto it = kKeys.find(field);
  return it == kKeys.end() ? std::string() : it->second;
}

bool IsPrimitiveSetList(const std::string& field) { return field == "finalizers"; }

bool IsDirectiveKey(const std::string& k) {
  return k == kPatchDirective || k == kRetainKeys || k.rfind(kDeleteFromPrimitive, 0) == 0 ||
         k.rfind(kSetElementOrder, 0) == 0;
}

// The patch value with every directive removed (what gets stored when a
// patch introduces new content).
json Clean(const json& v) {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, sub] : v.items()) {
      if (!IsDirectiveKey(k) && !sub.is_null()) out[k] = Clean(sub);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& e : v) {
      if (e.is_object() && e.contains(kPatchDirective)) continue;
      out.push_back(Clean(e));
    }
    return out;
  }
  return v;
}

Outcome<json> MergeObject(json original, const json& patch);

Outcome<json> MergeList(const std::string& field, json original, const json& patch) {
  for (const auto& e : patch) {
    if (e.is_object() && e.value(kPatchDirective, "") == "replace") return Clean(patch);
  }
  std::string key = patch.empty() ? std::string() : MergeKey(field, patch[0]);
  if (key.empty() && IsPrimitiveSetList(field)) {
    for (const auto& e : patch) {
      if (std::find(original.begin(), original.end(), e) == original.end()) original.push_back(e);
    }
    return original;
  }
  if (key.empty()) return Clean(patch);
  for (const auto& p : patch) {
    if (!p.is_object() || !p.contains(key)) {
      return ApiError::BadRequest("strategic merge patch: element of \"" + field +
                                  "\" lacks merge key \"" + key + "\"");
    }
    auto same = [&](const json& o) { return o.is_object() && o.contains(key) && o[key] == p[key]; };
    if (p.value(kPatchDirective, "") == "delete") {
      original.erase(std::remove_if(original.begin(), original.end(), same), original.end());
      continue;
    }
    auto it = std::find_if(original.begin(), original.end(), same);
    if (it == original.end()) {
      original.push_back(Clean(p));
    } else {
      auto merged = MergeObject(*it, p);
      if (!merged.ok()) return merged.error();
      *it = std::move(merged).value();
    }
  }
  return original;
}

Outcome<json> MergeObject(json original, const json& patch) {
  if (!original.is_object()) original = json::object();
  std::string directive = patch.value(kPatchDirective, "");
  if (directive == "replace") return Clean(patch);
  if (!directive.empty() && directive != "merge" && directive != "delete") {
    return ApiError::BadRequest("strategic merge patch: unknown $patch directive \"" +
                                directive + "\"");
  }
  for (const auto& [k, v] : patch.items()) {
    if (k.rfind(kDeleteFromPrimitive, 0) == 0) {
      std::string field = k.substr(kDeleteFromPrimitive.size());
      if (original.contains(field) && original[field].is_array() && v.is_array()) {
        json& list = original[field];
        for (const auto& del : v) list.erase(std::remove(list.begin(), list.end(), del), list.end());
      }
      continue;
    }
    if (IsDirectiveKey(k)) continue;
    if (v.is_null()) {
      original.erase(k);
    } else if (v.is_object()) {
      if (v.value(kPatchDirective, "") == "delete") {
        original.erase(k);
        continue;
      }
      auto merged = MergeObject(original.contains(k) ? original[k] : json::object(), v);
      if (!merged.ok()) return merged.error();
      original[k] = std::move(merged).value();
    } else if (v.is_array()) {
      if (original.contains(k) && original[k].is_array()) {
        auto merged = MergeList(k, original[k], v);
        if (!merged.ok()) return merged.error();
        original[k] = std::move(merged).value();
      } else {
        original[k] = Clean(v);
      }
    } else {
      original[k] = v;
    }
  }
  if (auto it = patch.find(kRetainKeys); it != patch.end() && it->is_array()) {
    std::vector<std::string> drop;
    for (const auto& [k, unused] : original.items()) {
      (void)unused;
      if (std::find(it->begin(), it->end(), json(k)) == it->end()) drop.push_back(k);
    }
    for (const auto& k : drop) original.erase(k);
  }
  return original;
}

}  // namespace

std::optional<PatchType> PatchTypeFromContentType(const std::string& content_type) {
  std::string ct = content_type.substr(0, content_type.find(';'));
  while (!ct.empty() && ct.back() == ' ') ct.pop_back();
  if (ct == "application/merge-patch+json") return PatchType::kMerge;
  if (ct == "application/strategic-merge-patch+json") return PatchType::kStrategicMerge;
  if (ct == "application/json-patch+json") return PatchType::kJsonPatch;
  return std::nullopt;
}

json MergePatch(json original, const json& patch) {
  original.merge_patch(patch);
  return original;
}

Outcome<json> StrategicMergePatch(json original, const json& patch) {
  if (!patch.is_object()) {
    return ApiError::BadRequest("strategic merge patch must be a JSON object");
  }
  return MergeObject(std::move(original), patch);
}

Outcome<json> JsonPatch(const json& original, const json& operations) {
  if (!operations.is_array()) {
    return ApiError::BadRequest("json patch must be a JSON array of operations");
  }
  try {
    return original.patch(operations);
  } catch (const json::exception& e) {
    ApiError err;
    err.code = 422;
    err.reason = "Invalid";
    err.message = std::string("the server rejected our request due to an error in our request: ") + e.what();
    return err;
  }
}

Outcome<json> ApplyPatch(PatchType type, const json& original, const std::string& body) {
  json patch = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (patch.is_discarded()) return ApiError::BadRequest("patch body is not valid JSON");
  switch (type) {
    case PatchType::kMerge:
      if (!patch.is_object()) return ApiError::BadRequest("merge patch must be a JSON object");
      return MergePatch(original, patch);
    case PatchType::kStrategicMerge:
      return StrategicMergePatch(original, patch);
    case PatchType::kJsonPatch:
      return JsonPatch(original, patch);
  }
  return ApiError::Internal("unknown patch type");
}

}  // namespace kubeon::kubesim
