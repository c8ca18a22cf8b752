// Test helper (not production code): least-privilege checks against kube-sim's
// request audit log (tools/kube-sim/audit_log.h).  DeployGrants reads every
// (apiGroup, resource[/subresource], verb) deploy/clusterrole.yaml grants (it
// names no wildcards); UsedGrants reads the ones `user` used, skipping
// discovery (non-resource paths) and SelfSubjectReviews (every authenticated
// user may ask who they are: ClusterRole system:basic-user); every request
// the user got a 403 for is added to *forbidden.
#pragma once

#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace kubeon::kube::testing {

using Grant = std::tuple<std::string, std::string, std::string>;  // apiGroup, resource[/sub], verb

inline std::set<Grant> DeployGrants(const std::string& source_dir) {
  std::set<Grant> out;
  YAML::Node role = YAML::LoadFile(source_dir + "/deploy/clusterrole.yaml");
  for (const auto& rule : role["rules"]) {
    for (const auto& g : rule["apiGroups"]) {
      for (const auto& r : rule["resources"]) {
        for (const auto& v : rule["verbs"]) out.insert({g.as<std::string>(), r.as<std::string>(), v.as<std::string>()});
      }
    }
  }
  return out;
}

inline std::set<Grant> UsedGrants(const std::string& audit_log, const std::string& user,
                                  std::vector<std::string>* forbidden) {
  std::set<Grant> used;
  std::ifstream log(audit_log);
  std::string line;
  while (std::getline(log, line)) {
    const nlohmann::json e = nlohmann::json::parse(line);
    if (e["user"] != user) continue;
    if (e["code"] == 403) forbidden->push_back(line);
    if (e.contains("path")) continue;  // discovery: system:discovery, not deploy's
    std::string resource = e["resource"];
    if (resource == "selfsubjectreviews") continue;
    if (!e["subresource"].get<std::string>().empty()) resource += "/" + e["subresource"].get<std::string>();
    used.insert({e["apiGroup"], resource, e["verb"]});
  }
  return used;
}

}  // namespace kubeon::kube::testing
