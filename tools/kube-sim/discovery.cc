// See discovery.h.
#include "discovery.h"

#include <algorithm>
#include <set>
#include <vector>

#include "identity.h"
#include "resources.h"

namespace kubeon::kubesim {

namespace {

std::vector<std::string> Groups(const CustomTypes* custom) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const ResourceType* r : ServedResources(custom)) {
    if (!r->group.empty() && seen.insert(r->group).second) out.push_back(r->group);
  }
  out.push_back(kAuthenticationGroup);  // selfsubjectreviews (identity.h), not stored
  return out;
}

json GroupJson(const std::string& group, const CustomTypes* custom) {
  json versions = json::array();
  std::vector<std::string> vs;
  if (group == kAuthenticationGroup) vs = AuthenticationVersions();
  for (const ResourceType* r : ServedResources(custom)) {
    if (r->group != group) continue;
    for (const auto& v : r->versions) {
      if (std::find(vs.begin(), vs.end(), v) == vs.end()) vs.push_back(v);
    }
  }
  for (const auto& v : vs) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"name", group}, {"versions", versions}, {"preferredVersion", versions[0]}};
}

}  // namespace

json VersionInfo(const std::string& git_version) {
  // "v1.32.0" -> major "1", minor "32"
  std::string v = git_version.substr(1);
  std::string major = v.substr(0, v.find('.'));
  std::string rest = v.substr(v.find('.') + 1);
  std::string minor = rest.substr(0, rest.find_first_not_of("0123456789"));
  return {{"major", major},
          {"minor", minor},
          {"gitVersion", git_version},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2025-01-01T00:00:00Z"},
          {"goVersion", "go1.23.0"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

json ApiVersions(const std::string& server_address) {
  return {{"kind", "APIVersions"},
          {"versions", json::array({"v1"})},
          {"serverAddressByClientCIDRs",
           json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}})}};
}

json ApiGroupList(const CustomTypes* custom) {
  json groups = json::array();
  for (const auto& g : Groups(custom)) groups.push_back(GroupJson(g, custom));
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

std::optional<json> ApiGroup(const std::string& group, const CustomTypes* custom) {
  for (const auto& g : Groups(custom)) {
    if (g == group) {
      json j = GroupJson(group, custom);
      j["kind"] = "APIGroup";
      j["apiVersion"] = "v1";
      return j;
    }
  }
  return std::nullopt;
}

std::optional<json> ApiResourceList(const std::string& group, const std::string& version,
                                    const CustomTypes* custom) {
  json resources = json::array();
  if (group == kAuthenticationGroup) {
    const auto& vs = AuthenticationVersions();
    if (std::find(vs.begin(), vs.end(), version) != vs.end()) resources.push_back(SelfSubjectReviewResource());
  }
  for (const ResourceType* rp : ServedResources(custom)) {
    const ResourceType& r = *rp;
    if (r.group != group || !r.Serves(version)) continue;
    json e = {{"name", r.plural}, {"singularName", r.singular}, {"namespaced", r.namespaced},
              {"kind", r.kind},   {"verbs", r.verbs}};
    if (!r.short_names.empty()) e["shortNames"] = r.short_names;
    if (!r.categories.empty()) e["categories"] = r.categories;
    resources.push_back(e);
    for (const auto& s : r.subresources) {
      json sub = {{"name", r.plural + "/" + s.name},
                  {"singularName", ""},
                  {"namespaced", r.namespaced},
                  {"kind", s.kind.empty() ? r.kind : s.kind},
                  {"verbs", s.verbs}};
      if (!s.group.empty()) sub["group"] = s.group;
      if (!s.version.empty()) sub["version"] = s.version;
      resources.push_back(sub);
    }
  }
  if (resources.empty()) return std::nullopt;
  return json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", group.empty() ? version : group + "/" + version},
              {"resources", resources}};
}

}  // namespace kubeon::kubesim
