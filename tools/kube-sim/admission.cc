// See admission.h.
#include "admission.h"

#include <algorithm>

#include "cel.h"
#include "meta.h"
#include "selector.h"

namespace kubeon::kubesim {

namespace {

bool Has(const json* list, const std::string& v) {
  if (list == nullptr || !list->is_array()) return false;
  for (const auto& e : *list) {
    if (e.is_string() && (e.get<std::string>() == "*" || e.get<std::string>() == v)) return true;
  }
  return false;
}

bool ResourceMatches(const json* resources, const AdmissionRequest& r) {
  if (resources == nullptr || !resources->is_array()) return false;
  const std::string combined = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  for (const auto& e : *resources) {
    if (!e.is_string()) continue;
    const std::string& s = e.get_ref<const std::string&>();
    if (s == combined || s == "*/*") return true;
    if (s == "*" && r.subresource.empty()) return true;
    if (!r.subresource.empty() && (s == r.resource + "/*" || s == "*/" + r.subresource)) return true;
  }
  return false;
}

bool RuleMatches(const json& rule, const AdmissionRequest& r) {
  if (!Has(Find(rule, {"operations"}), r.operation)) return false;
  if (!Has(Find(rule, {"apiGroups"}), r.group)) return false;
  if (!Has(Find(rule, {"apiVersions"}), r.version)) return false;
  if (!ResourceMatches(Find(rule, {"resources"}), r)) return false;
  const json* names = Find(rule, {"resourceNames"});
  if (names != nullptr && names->is_array() && !names->empty() && !Has(names, r.name)) return false;
  return true;
}

bool SelectorMatches(const json* selector, const AdmissionRequest& r) {
  if (selector == nullptr || !selector->is_object() || selector->empty()) return true;
  auto sel = LabelSelector::FromJson(*selector);
  if (!sel.ok()) return false;
  json none = json::object();
  for (const json* obj : {&r.object, &r.old_object}) {
    const json* labels = obj->is_object() ? Find(*obj, {"metadata", "labels"}) : nullptr;
    if (!obj->is_null() && sel.value().Matches(labels != nullptr ? *labels : none)) return true;
  }
  return false;
}

// MatchResources: resourceRules (required for a policy), excludeResourceRules, objectSelector.
bool ResourcesMatch(const json& match, const AdmissionRequest& r, bool rules_required) {
  const json* rules = Find(match, {"resourceRules"});
  bool any = rules == nullptr || !rules->is_array() || rules->empty() ? !rules_required : false;
  if (rules != nullptr && rules->is_array()) {
    for (const auto& rule : *rules) any = any || RuleMatches(rule, r);
  }
  if (!any) return false;
  if (const json* ex = Find(match, {"excludeResourceRules"}); ex != nullptr && ex->is_array()) {
    for (const auto& rule : *ex) {
      if (RuleMatches(rule, r)) return false;
    }
  }
  return SelectorMatches(Find(match, {"objectSelector"}), r);
}

json Variables(const AdmissionRequest& r) {
  json request = {{"operation", r.operation},
                  {"userInfo", r.user.ToJson()},
                  {"name", r.name},
                  {"namespace", r.ns},
                  {"resource", {{"group", r.group}, {"version", r.version}, {"resource", r.resource}}},
                  {"subResource", r.subresource}};
  return {{"object", r.object}, {"oldObject", r.old_object}, {"request", request}};
}

ApiError Denial(const std::string& policy, const std::string& binding, const std::string& reason,
                const std::string& message) {
  ApiError e;
  e.reason = reason.empty() ? "Invalid" : reason;
  e.code = e.reason == "Forbidden" ? 403 : e.reason == "Unauthorized" ? 401 : e.reason == "RequestEntityTooLarge" ? 413 : 422;
  e.message = "ValidatingAdmissionPolicy '" + policy + "' with binding '" + binding + "' denied request: " + message;
  e.details = json::object();
  return e;
}

}  // namespace

AdmissionResult Admit(const Store& store, const AdmissionRequest& r) {
  AdmissionResult out;
  const json vars = Variables(r);
  store.ForEach(kValidatingAdmissionPolicyBindings, "", "", [&](const std::string&, const json& binding) {
    const std::string policy_name = Str(binding, {"spec", "policyName"});
    const json* policy = store.Get(kValidatingAdmissionPolicies, "", policy_name);
    if (policy == nullptr) return true;
    const json* constraints = Find(*policy, {"spec", "matchConstraints"});
    if (constraints == nullptr || !ResourcesMatch(*constraints, r, true)) return true;
    if (const json* m = Find(binding, {"spec", "matchResources"}); m != nullptr && !ResourcesMatch(*m, r, false)) {
      return true;
    }
    const bool ignore_errors = Str(*policy, {"spec", "failurePolicy"}) == "Ignore";
    // Compile everything first: a policy is enforced whole or not at all.
    std::vector<std::pair<const json*, CelProgram>> conditions, validations;
    std::string unsupported;
    for (auto [key, into] : {std::pair{"matchConditions", &conditions}, std::pair{"validations", &validations}}) {
      const json* list = Find(*policy, {"spec", key});
      if (list == nullptr || !list->is_array()) continue;
      for (const auto& v : *list) {
        auto prog = CelProgram::Compile(v.value("expression", ""));
        if (!prog.ok()) {
          unsupported = prog.error().message;
          break;
        }
        into->emplace_back(&v, prog.value());
      }
    }
    if (const json* vs = Find(*policy, {"spec", "variables"}); vs != nullptr && vs->is_array() && !vs->empty()) {
      unsupported = "spec.variables";
    }
    if (const json* pk = Find(*policy, {"spec", "paramKind"}); pk != nullptr && pk->is_object()) {
      unsupported = "spec.paramKind";
    }
    if (!unsupported.empty()) {
      out.not_enforced.push_back(policy_name + ": " + unsupported);
      return true;
    }
    for (const auto& [cond, prog] : conditions) {
      auto v = prog.Evaluate(vars);
      if (!v.ok() || !v.value().is_boolean()) {
        if (ignore_errors) return true;
        out.denied = Denial(policy_name, Name(binding), "",
                            "expression '" + cond->value("expression", "") + "' resulted in error: " +
                                (v.ok() ? "not a bool" : v.error().message));
        return false;
      }
      if (!v.value().get<bool>()) return true;  // the policy does not apply
    }
    const json* actions = Find(binding, {"spec", "validationActions"});
    const bool deny = Has(actions, "Deny"), warn = Has(actions, "Warn");
    for (const auto& [val, prog] : validations) {
      auto v = prog.Evaluate(vars);
      std::string message;
      if (!v.ok() || !v.value().is_boolean()) {
        if (ignore_errors) continue;
        message = "expression '" + val->value("expression", "") + "' resulted in error: " +
                  (v.ok() ? "not a bool" : v.error().message);
      } else if (v.value().get<bool>()) {
        continue;
      } else {
        message = val->value("message", "");
        if (message.empty()) message = "failed expression: " + val->value("expression", "");
      }
      if (warn) out.warnings.push_back(Denial(policy_name, Name(binding), "", message).message);
      if (deny) {
        out.denied = Denial(policy_name, Name(binding), val->value("reason", ""), message);
        return false;
      }
    }
    return true;
  });
  return out;
}

}  // namespace kubeon::kubesim
