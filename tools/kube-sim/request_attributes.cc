// See request_attributes.h.
#include "request_attributes.h"

#include <vector>

#include "route.h"

namespace kubeon::kubesim {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string MethodVerb(const std::string& method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

// The value an exact "metadata.name=<n>" (or ==) term of a field selector
// requires, or "".
std::string NameFromFieldSelector(const std::string& selector) {
  size_t start = 0;
  while (start <= selector.size()) {
    size_t comma = selector.find(',', start);
    std::string term = selector.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    for (const char* prefix : {"metadata.name==", "metadata.name="}) {
      std::string p = prefix;
      if (term.rfind(p, 0) == 0) return term.substr(p.size());
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return "";
}

}  // namespace

RequestAttributes AttributesOf(const std::string& method, const std::string& path,
                               const std::multimap<std::string, std::string>& query) {
  RequestAttributes a;
  a.path = path;
  a.verb = Lower(method);
  std::vector<std::string> parts = PathSegments(path);
  size_t pos = 0;
  if (parts.size() >= 3 && parts[0] == "apis") {
    a.api_group = parts[1];
    a.api_version = parts[2];
    pos = 3;
  } else if (parts.size() >= 2 && parts[0] == "api") {
    a.api_version = parts[1];
    pos = 2;
  }
  if (pos == 0 || pos >= parts.size()) {  // not an API path, or a discovery document
    a.api_group.clear();
    a.api_version.clear();
    return a;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(pos), parts.end());
  a.resource_request = true;
  a.verb = MethodVerb(method);
  if (rest[0] == "watch") {
    a.verb = "watch";
    rest.erase(rest.begin());
    if (rest.empty()) {
      a.resource_request = false;
      a.verb = Lower(method);
      return a;
    }
  }
  if (rest[0] == "namespaces" && rest.size() > 1) {
    a.ns = rest[1];
    // /namespaces/<ns>/<resource>...; /namespaces/<ns>[/status|/finalize] is the namespace itself.
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") rest.erase(rest.begin(), rest.begin() + 2);
  }
  a.resource = rest[0];
  if (rest.size() >= 2) a.name = rest[1];
  if (rest.size() >= 3) a.subresource = rest[2];
  if (a.verb == "get" && a.name.empty()) a.verb = "list";
  if (a.verb == "list") {
    auto it = query.find("watch");
    if (it != query.end()) {
      std::string w = Lower(it->second);
      if (w != "0" && w != "false") a.verb = "watch";
    }
  }
  if (a.verb == "delete" && a.name.empty()) a.verb = "deletecollection";
  if ((a.verb == "list" || a.verb == "watch") && a.name.empty()) {
    auto it = query.find("fieldSelector");
    if (it != query.end()) a.name = NameFromFieldSelector(it->second);
  }
  return a;
}

ApiError Forbidden(const UserInfo& user, const RequestAttributes& a) {
  std::string why;
  if (!a.resource_request) {
    why = "User \"" + user.username + "\" cannot " + a.verb + " path \"" + a.path + "\"";
  } else {
    why = "User \"" + user.username + "\" cannot " + a.verb + " resource \"" + a.CombinedResource() +
          "\" in API group \"" + a.api_group + "\"" +
          (a.ns.empty() ? std::string(" at the cluster scope") : " in the namespace \"" + a.ns + "\"");
  }
  ApiError e;
  e.code = 403;
  e.reason = "Forbidden";
  if (!a.resource_request) {
    e.message = "forbidden: " + why;
    e.details = json::object();
    return e;
  }
  std::string qualified = QualifiedResource(a.api_group, a.resource);
  e.message = a.name.empty() ? qualified + " is forbidden: " + why
                             : qualified + " \"" + a.name + "\" is forbidden: " + why;
  e.details = {{"kind", a.resource}};
  if (!a.api_group.empty()) e.details["group"] = a.api_group;
  if (!a.name.empty()) e.details["name"] = a.name;
  return e;
}

}  // namespace kubeon::kubesim
