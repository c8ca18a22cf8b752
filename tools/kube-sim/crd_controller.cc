// See crd_controller.h.
#include "crd_controller.h"

#include <cctype>

namespace kubeon::kubesim {

namespace {

json Condition(const std::string& type, bool ok, const std::string& reason, const std::string& message,
               const json* old_conditions, const std::string& now) {
  std::string status = ok ? "True" : "False";
  std::string since = now;
  if (old_conditions != nullptr && old_conditions->is_array()) {
    for (const auto& c : *old_conditions) {
      if (Str(c, {"type"}) == type && Str(c, {"status"}) == status && !Str(c, {"lastTransitionTime"}).empty()) {
        since = Str(c, {"lastTransitionTime"});
      }
    }
  }
  return {{"type", type}, {"status", status}, {"reason", reason}, {"message", message}, {"lastTransitionTime", since}};
}

// The status the apiextensions controllers give `crd`.
json DesiredStatus(const json& crd, bool served, const std::string& now) {
  const json* old = Find(crd, {"status", "conditions"});
  json status = crd.contains("status") && crd["status"].is_object() ? crd["status"] : json::object();
  json names = Find(crd, {"spec", "names"}) != nullptr ? crd["spec"]["names"] : json::object();
  json conditions = json::array();
  if (served) {
    std::string kind = Str(names, {"kind"});
    if (!names.contains("singular")) {
      std::string lower = kind;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      names["singular"] = lower;
    }
    if (!names.contains("listKind")) names["listKind"] = kind + "List";
    status["acceptedNames"] = names;
    conditions.push_back(Condition("NamesAccepted", true, "NoConflicts", "no conflicts found", old, now));
    conditions.push_back(
        Condition("Established", true, "InitialNamesAccepted", "the initial names have been accepted", old, now));
  } else {
    status["acceptedNames"] = {{"kind", ""}, {"plural", ""}};
    conditions.push_back(Condition("NamesAccepted", false, "NameConflict",
                                   "the plural or kind is already served by another type", old, now));
    conditions.push_back(Condition("Established", false, "NotAccepted", "not all names are accepted", old, now));
  }
  status["conditions"] = conditions;
  json stored = status.contains("storedVersions") && status["storedVersions"].is_array() ? status["storedVersions"]
                                                                                          : json::array();
  if (const json* versions = Find(crd, {"spec", "versions"}); versions != nullptr && versions->is_array()) {
    for (const auto& v : *versions) {
      if (!v.is_object() || !v.contains("storage") || v["storage"] != true) continue;
      std::string name = Str(v, {"name"});
      if (std::find(stored.begin(), stored.end(), json(name)) == stored.end()) stored.push_back(name);
    }
  }
  status["storedVersions"] = stored;
  return status;
}

}  // namespace

bool CrdController::Reconcile(ControllerContext& ctx) {
  bool wrote = false;
  for (const std::string& gone : types_.Sync(ctx.store)) {
    for (const json& obj : ctx.store.List(gone, "")) {
      if (ctx.store.Delete(gone, Namespace(obj), Name(obj)).ok()) wrote = true;
    }
  }
  const std::string now = Rfc3339(ctx.now);
  for (json crd : ctx.store.List(kCrds, "")) {
    json status = DesiredStatus(crd, types_.Serves(Name(crd)), now);
    if (crd.contains("status") && crd["status"] == status) continue;
    crd["status"] = status;
    crd["metadata"].erase("resourceVersion");
    if (ctx.store.Update(kCrds, std::move(crd)).ok()) wrote = true;
  }
  return wrote;
}

}  // namespace kubeon::kubesim
