// See reviews.h.
#include "reviews.h"

#include <algorithm>

#include "meta.h"
#include "rbac.h"

namespace kubeon::kubesim {

namespace {

const char* const kAuthorizationGroup = "authorization.k8s.io";

ApiError InvalidReview(const std::string& group, const std::string& kind, const std::string& why) {
  return ApiError::Invalid(group, kind, "", why);
}

std::vector<std::string> Strings(const json* j) {
  std::vector<std::string> out;
  if (j == nullptr || !j->is_array()) return out;
  for (const auto& v : *j) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

json Answer(json body, const std::string& api_version, const std::string& kind, json status) {
  body["apiVersion"] = api_version;
  body["kind"] = kind;
  if (!body.contains("metadata") || !body["metadata"].is_object()) body["metadata"] = json::object();
  if (!body["metadata"].contains("creationTimestamp")) body["metadata"]["creationTimestamp"] = nullptr;
  if (!body.contains("spec") || !body["spec"].is_object()) body["spec"] = json::object();
  body["status"] = std::move(status);
  return body;
}

Outcome<json> TokenReview(const json& body, const TokenAuthenticator& authenticate) {
  const std::string token = Str(body, {"spec", "token"});
  std::vector<std::string> wanted = Strings(Find(body, {"spec", "audiences"}));
  json status = {{"authenticated", false}, {"user", json::object()}};
  std::optional<TokenIdentity> who = token.empty() ? std::nullopt : authenticate(token);
  if (!who) {
    status["error"] = "[invalid bearer token, token lookup failed]";
  } else {
    std::vector<std::string> audiences = who->audiences;
    if (!wanted.empty()) {
      std::vector<std::string> common;
      for (const auto& a : wanted) {
        if (std::find(audiences.begin(), audiences.end(), a) != audiences.end()) common.push_back(a);
      }
      audiences = common;
    }
    if (audiences.empty()) {
      status["error"] = "[invalid bearer token, token audiences is invalid for the target audiences]";
    } else {
      status = {{"authenticated", true}, {"user", who->user.ToJson()}, {"audiences", audiences}};
    }
  }
  return Answer(body, "authentication.k8s.io/v1", "TokenReview", status);
}

// The attributes of a SubjectAccessReviewSpec (or its self/local forms).
Outcome<RequestAttributes> SpecAttributes(const json& spec, const std::string& kind) {
  const json* res = Find(spec, {"resourceAttributes"});
  const json* non = Find(spec, {"nonResourceAttributes"});
  const bool has_res = res != nullptr && res->is_object(), has_non = non != nullptr && non->is_object();
  if (has_res == has_non) {
    return InvalidReview(kAuthorizationGroup, kind,
                         "spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or "
                         "resourceAttributes must be specified");
  }
  RequestAttributes a;
  if (has_non) {
    a.verb = non->value("verb", "");
    a.path = non->value("path", "");
    return a;
  }
  a.resource_request = true;
  a.verb = res->value("verb", "");
  a.api_group = res->value("group", "");
  a.api_version = res->value("version", "");
  a.resource = res->value("resource", "");
  a.subresource = res->value("subresource", "");
  a.ns = res->value("namespace", "");
  a.name = res->value("name", "");
  return a;
}

json AccessStatus(const Store& store, const UserInfo& user, const RequestAttributes& a) {
  Decision d = Authorize(store, user, a);
  json status = {{"allowed", d.allowed}};
  if (!d.reason.empty()) status["reason"] = d.reason;
  return status;
}

Outcome<json> SubjectAccessReview(const Store& store, const json& body, const std::string& kind,
                                  const UserInfo& requester, const std::string& url_ns) {
  json spec = body.contains("spec") && body["spec"].is_object() ? body["spec"] : json::object();
  auto a = SpecAttributes(spec, kind);
  if (!a.ok()) return a.error();
  UserInfo user = requester;
  if (kind == "SubjectAccessReview" || kind == "LocalSubjectAccessReview") {
    user = {spec.value("user", ""), spec.value("uid", ""), Strings(Find(spec, {"groups"}))};
    if (user.username.empty() && user.groups.empty()) {
      return InvalidReview(kAuthorizationGroup, kind,
                           "spec.user: Invalid value: \"\": at least one of user or group must be specified");
    }
  }
  if (kind == "LocalSubjectAccessReview") {
    if (!a.value().resource_request) {
      return InvalidReview(kAuthorizationGroup, kind,
                           "spec.nonResourceAttributes: Invalid value: disallowed on this kind of request");
    }
    if (a.value().ns.empty()) a.value().ns = url_ns;
    if (a.value().ns != url_ns) {
      return InvalidReview(kAuthorizationGroup, kind,
                           "spec.resourceAttributes.namespace: Invalid value: \"" + a.value().ns +
                               "\": must match metadata.namespace");
    }
  }
  return Answer(body, std::string(kAuthorizationGroup) + "/v1", kind, AccessStatus(store, user, a.value()));
}

Outcome<json> SelfSubjectRulesReview(const Store& store, const json& body, const UserInfo& requester) {
  const std::string ns = Str(body, {"spec", "namespace"});
  json resource_rules = json::array(), non_resource_rules = json::array();
  for (const json& rule : RulesFor(store, requester, ns)) {
    if (rule.contains("nonResourceURLs")) {
      non_resource_rules.push_back({{"verbs", rule.value("verbs", json::array())},
                                    {"nonResourceURLs", rule["nonResourceURLs"]}});
      continue;
    }
    json r = {{"verbs", rule.value("verbs", json::array())},
              {"apiGroups", rule.value("apiGroups", json::array())},
              {"resources", rule.value("resources", json::array())}};
    if (rule.contains("resourceNames")) r["resourceNames"] = rule["resourceNames"];
    resource_rules.push_back(r);
  }
  return Answer(body, std::string(kAuthorizationGroup) + "/v1", "SelfSubjectRulesReview",
                {{"resourceRules", resource_rules}, {"nonResourceRules", non_resource_rules}, {"incomplete", false}});
}

}  // namespace

bool IsReview(const Route& route) {
  if (route.type == nullptr) return false;
  const std::string& g = route.type->group;
  const std::string& p = route.type->plural;
  if (g == kAuthenticationGroup) return p == "tokenreviews";
  return g == kAuthorizationGroup;
}

Outcome<json> Review(const Store& store, const Route& route, const json& body, const UserInfo& requester,
                     const TokenAuthenticator& authenticate) {
  const std::string& kind = route.type->kind;
  if (kind == "TokenReview") return TokenReview(body, authenticate);
  if (kind == "SelfSubjectRulesReview") return SelfSubjectRulesReview(store, body, requester);
  return SubjectAccessReview(store, body, kind, requester, route.ns);
}

}  // namespace kubeon::kubesim
