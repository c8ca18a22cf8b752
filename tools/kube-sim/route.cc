// See route.h.
#include "route.h"

#include <vector>

namespace kubeon::kubesim {

ApiError PathNotFound() {
  ApiError e;
  e.code = 404;
  e.reason = "NotFound";
  e.message = "the server could not find the requested resource";
  e.details = json::object();
  return e;
}

Outcome<Route> ParseRoute(const std::string& path, const CustomTypes* custom) {
  std::vector<std::string> segs;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) segs.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  Route r;
  size_t pos = 0;
  if (segs.size() >= 2 && segs[0] == "api") {
    r.version = segs[1];
    pos = 2;
  } else if (segs.size() >= 3 && segs[0] == "apis") {
    r.group = segs[1];
    r.version = segs[2];
    pos = 3;
  } else {
    return PathNotFound();
  }
  std::vector<std::string> rest(segs.begin() + static_cast<long>(pos), segs.end());
  if (!rest.empty() && rest[0] == "watch") {
    r.watch_prefix = true;
    rest.erase(rest.begin());
  }
  if (rest.empty()) return PathNotFound();
  std::string plural;
  if (rest[0] == "namespaces" &&
      (rest.size() <= 2 || (rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize")))) {
    plural = "namespaces";
    if (rest.size() >= 2) r.name = rest[1];
    if (rest.size() == 3) r.subresource = rest[2];
  } else if (rest[0] == "namespaces") {
    r.ns = rest[1];
    plural = rest[2];
    if (rest.size() >= 4) r.name = rest[3];
    if (rest.size() >= 5) r.subresource = rest[4];
    if (rest.size() > 5) return PathNotFound();
  } else {
    plural = rest[0];
    if (rest.size() >= 2) r.name = rest[1];
    if (rest.size() >= 3) r.subresource = rest[2];
    if (rest.size() > 3) return PathNotFound();
  }
  r.type = FindServed(custom, r.group, r.version, plural);
  if (r.type == nullptr) return PathNotFound();
  if (!r.type->namespaced && !r.ns.empty()) return PathNotFound();
  if (r.type->namespaced && r.ns.empty() && !r.name.empty()) return PathNotFound();
  if (!r.subresource.empty() && r.type->FindSubresource(r.subresource) == nullptr) return PathNotFound();
  if (r.watch_prefix && !r.subresource.empty()) return PathNotFound();
  return r;
}

}  // namespace kubeon::kubesim
