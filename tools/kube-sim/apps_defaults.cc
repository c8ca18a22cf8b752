// See apps_defaults.h.
#include "apps_defaults.h"

namespace kubeon::kubesim {

namespace {

void Default(json& obj, const char* key, const json& value) {
  if (!obj.contains(key) || obj[key].is_null()) obj[key] = value;
}

}  // namespace

void ApplyAppsDefaults(const std::string& plural, json* obj) {
  if (plural != "deployments" && plural != "statefulsets" && plural != "replicasets") return;
  json& spec = (*obj)["spec"];
  if (!spec.is_object()) spec = json::object();
  Default(spec, "replicas", 1);
  if (plural == "replicasets") return;
  Default(spec, "revisionHistoryLimit", 10);
  if (plural == "deployments") {
    Default(spec, "progressDeadlineSeconds", 600);
    Default(spec, "strategy", json::object());
    json& strategy = spec["strategy"];
    Default(strategy, "type", "RollingUpdate");
    if (strategy["type"] == "RollingUpdate") {
      Default(strategy, "rollingUpdate", json::object());
      Default(strategy["rollingUpdate"], "maxUnavailable", "25%");
      Default(strategy["rollingUpdate"], "maxSurge", "25%");
    }
    return;
  }
  Default(spec, "podManagementPolicy", "OrderedReady");
  Default(spec, "updateStrategy", json::object());
  json& strategy = spec["updateStrategy"];
  if (!strategy.contains("type")) {
    strategy["type"] = "RollingUpdate";
    Default(strategy, "rollingUpdate", json::object());
  }
  if (strategy["type"] == "RollingUpdate" && strategy.contains("rollingUpdate") && strategy["rollingUpdate"].is_object()) {
    Default(strategy["rollingUpdate"], "partition", 0);
  }
}

}  // namespace kubeon::kubesim
