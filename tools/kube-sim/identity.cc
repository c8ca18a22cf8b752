// See identity.h.
#include "identity.h"

namespace kubeon::kubesim {

namespace {

constexpr const char* kAuthenticated = "system:authenticated";

bool OnlyChars(const std::string& s, const std::string& extra) {
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && extra.find(c) == std::string::npos) return false;
  }
  return true;
}

// Constant-time comparison of a bearer header against a token.
bool BearerIs(const std::string& header, const std::string& token) {
  if (token.empty() || header.size() < 7) return false;
  std::string scheme = header.substr(0, 7);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (scheme != "bearer ") return false;
  std::string given = header.substr(7);
  if (given.size() != token.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

UserInfo Authenticated(UserInfo u) {
  bool has = false;
  for (const auto& g : u.groups) has = has || g == kAuthenticated;
  if (!has) u.groups.push_back(kAuthenticated);
  return u;
}

}  // namespace

json UserInfo::ToJson() const {
  json j = {{"username", username}, {"groups", groups}};
  if (!uid.empty()) j["uid"] = uid;
  return j;
}

Outcome<std::vector<SimUser>> ParseSimUsers(const json& j) {
  if (!j.is_array()) return ApiError::BadRequest("users: must be an array");
  std::vector<SimUser> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    const std::string where = "users[" + std::to_string(i) + "]";
    if (!e.is_object()) return ApiError::BadRequest(where + ": must be an object");
    for (const auto& [k, v] : e.items()) {
      (void)v;
      if (k != "name" && k != "uid" && k != "groups" && k != "token") {
        return ApiError::BadRequest(where + ": unknown key \"" + k + "\"");
      }
    }
    SimUser u;
    for (auto [key, field] : {std::pair{"name", &u.name}, std::pair{"uid", &u.uid}, std::pair{"token", &u.token}}) {
      auto it = e.find(key);
      if (it == e.end()) continue;
      if (!it->is_string()) return ApiError::BadRequest(where + "." + key + ": must be a string");
      *field = it->get<std::string>();
    }
    if (u.name.empty() || !OnlyChars(u.name, "@._:-")) {
      return ApiError::BadRequest(where + ".name: must be non-empty, of letters, digits and @._:-");
    }
    if (!OnlyChars(u.token, "._-")) return ApiError::BadRequest(where + ".token: must be of letters, digits and ._-");
    if (!OnlyChars(u.uid, "._:-")) return ApiError::BadRequest(where + ".uid: must be of letters, digits and ._:-");
    if (auto it = e.find("groups"); it != e.end()) {
      if (!it->is_array()) return ApiError::BadRequest(where + ".groups: must be an array of strings");
      for (const auto& g : *it) {
        if (!g.is_string() || g.get<std::string>().empty()) {
          return ApiError::BadRequest(where + ".groups: must be an array of non-empty strings");
        }
        u.groups.push_back(g.get<std::string>());
      }
    }
    for (const auto& other : out) {
      if (other.name == u.name) return ApiError::BadRequest(where + ".name: \"" + u.name + "\" appears twice");
      if (!u.token.empty() && other.token == u.token) return ApiError::BadRequest(where + ".token: not unique");
    }
    out.push_back(std::move(u));
  }
  return out;
}

json SimUsersJson(const std::vector<SimUser>& users) {
  json out = json::array();
  for (const auto& u : users) {
    json e = {{"name", u.name}, {"groups", u.groups}};
    if (!u.uid.empty()) e["uid"] = u.uid;
    if (!u.token.empty()) e["token"] = u.token;
    out.push_back(e);
  }
  return out;
}

std::optional<UserInfo> TokenUser(const std::string& authorization, const std::string& admin_token,
                                  const std::vector<SimUser>& users) {
  if (BearerIs(authorization, admin_token)) return Authenticated({kAdminUser, "", {kAdminGroup}});
  for (const auto& u : users) {
    if (BearerIs(authorization, u.token)) return Authenticated({u.name, u.uid, u.groups});
  }
  return std::nullopt;
}

UserInfo CertUser(const std::string& common_name, const std::vector<std::string>& organizations) {
  return Authenticated({common_name, "", organizations});
}

const std::vector<std::string>& AuthenticationVersions() {
  static const std::vector<std::string> versions = {"v1", "v1beta1", "v1alpha1"};
  return versions;
}

std::optional<std::string> SelfSubjectReviewVersion(const std::string& path) {
  for (const auto& v : AuthenticationVersions()) {
    if (path == std::string("/apis/") + kAuthenticationGroup + "/" + v + "/selfsubjectreviews") return v;
  }
  return std::nullopt;
}

json SelfSubjectReview(const UserInfo& user, const std::string& version) {
  return {{"kind", "SelfSubjectReview"},
          {"apiVersion", std::string(kAuthenticationGroup) + "/" + version},
          {"metadata", {{"creationTimestamp", nullptr}}},
          {"status", {{"userInfo", user.ToJson()}}}};
}

json SelfSubjectReviewResource() {
  return {{"name", "selfsubjectreviews"}, {"singularName", "selfsubjectreview"}, {"namespaced", false},
          {"kind", "SelfSubjectReview"},  {"verbs", json::array({"create"})}};
}

}  // namespace kubeon::kubesim
