// See authenticator.h.
#include "controller/authenticator.h"

#include <nlohmann/json.hpp>

namespace kubeon::controller {

using nlohmann::json;

AuthDecision KubeAuthenticator::Check(const std::string& token, const std::string& verb,
                                      const std::string& change_id) {
  AuthDecision d;
  if (token.empty()) {
    d.message = "no bearer token";
    return d;
  }
  const json review = {{"apiVersion", "authentication.k8s.io/v1"},
                       {"kind", "TokenReview"},
                       {"spec", {{"token", token}}}};
  auto tr = client_.Create("/apis/authentication.k8s.io/v1/tokenreviews", review);
  if (!tr.ok()) {
    d.code = AuthCode::kUnavailable;
    // ApiError::ToString names verb, resource and status; the request body
    // (the token) is never part of it.
    d.message = "TokenReview failed: " + tr.error().ToString();
    return d;
  }
  const json status = tr->value("status", json::object());
  const json user = status.value("user", json::object());
  if (!status.value("authenticated", false) || user.value("username", "").empty()) {
    d.message = "the API server does not accept this token";
    const std::string why = status.value("error", "");
    if (!why.empty()) d.message += " (" + why + ")";
    return d;
  }
  d.username = user.value("username", "");
  if (user.contains("groups") && user["groups"].is_array()) {
    for (const auto& g : user["groups"]) {
      if (g.is_string()) d.groups.push_back(g.get<std::string>());
    }
  }
  json spec = {{"user", d.username},
               {"groups", d.groups},
               {"resourceAttributes",
                {{"group", kChangeApiGroup}, {"resource", kChangeResource}, {"verb", verb}, {"name", change_id}}}};
  if (user.contains("uid") && user["uid"].is_string()) spec["uid"] = user["uid"];
  if (user.contains("extra") && user["extra"].is_object()) spec["extra"] = user["extra"];
  const json sar = {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
  auto ar = client_.Create("/apis/authorization.k8s.io/v1/subjectaccessreviews", sar);
  if (!ar.ok()) {
    d.code = AuthCode::kUnavailable;
    d.message = "SubjectAccessReview failed: " + ar.error().ToString();
    return d;
  }
  const json astatus = ar->value("status", json::object());
  if (!astatus.value("allowed", false)) {
    d.code = AuthCode::kForbidden;
    d.message = "user \"" + d.username + "\" may not " + verb + " gpuchanges." + kChangeApiGroup + " \"" +
                change_id + "\" (missing RBAC verb \"" + verb + "\")";
    const std::string reason = astatus.value("reason", "");
    if (!reason.empty()) d.message += ": " + reason;
    return d;
  }
  d.code = AuthCode::kOk;
  return d;
}

}  // namespace kubeon::controller
