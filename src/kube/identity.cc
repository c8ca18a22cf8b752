// See identity.h.
#include "kube/identity.h"

#include <nlohmann/json.hpp>

namespace kubeon::kube {

using nlohmann::json;

Result<UserInfo> WhoAmI(KubeClient& client) {
  ApiResult<json> answer = ApiError{};
  for (const char* version : {"v1", "v1beta1"}) {
    const std::string group_version = std::string("authentication.k8s.io/") + version;
    const json review = {{"apiVersion", group_version}, {"kind", "SelfSubjectReview"}};
    answer = client.Create("/apis/" + group_version + "/selfsubjectreviews", review);
    if (answer.ok() || answer.error().http_status != 404) break;
  }
  if (!answer.ok()) {
    if (answer.error().http_status == 404) {
      return Status::Error("who am I: the API server at " + client.config().server +
                           " serves no SelfSubjectReview (authentication.k8s.io v1 or v1beta1; Kubernetes 1.27 or "
                           "newer)");
    }
    return answer.status().WithPrefix("who am I");
  }
  const json info = answer->value("status", json::object()).value("userInfo", json::object());
  UserInfo user;
  if (info.contains("username") && info["username"].is_string()) user.username = info["username"];
  if (info.contains("uid") && info["uid"].is_string()) user.uid = info["uid"];
  if (info.contains("groups") && info["groups"].is_array()) {
    for (const auto& g : info["groups"]) {
      if (g.is_string()) user.groups.push_back(g.get<std::string>());
    }
  }
  if (user.username.empty()) {
    return Status::Error("who am I: the API server at " + client.config().server +
                         " answered the SelfSubjectReview without status.userInfo.username");
  }
  return user;
}

Result<ClusterId> ClusterIdOf(KubeClient& client) {
  auto ns = client.Get("/api/v1/namespaces/kube-system");
  if (!ns.ok()) return ns.status().WithPrefix("cluster identity");
  ClusterId id;
  id.server = client.config().server;
  const json& meta = ns->value("metadata", json::object());
  if (meta.contains("uid") && meta["uid"].is_string()) id.kube_system_uid = meta["uid"];
  if (id.kube_system_uid.empty()) {
    return Status::Error("cluster identity: namespace kube-system at " + id.server + " has no metadata.uid");
  }
  return id;
}

}  // namespace kubeon::kube
