// See settings.h.
#include "settings.h"

#include <fstream>
#include <sstream>

namespace kubeon::kubesim {

namespace {

template <typename T>
bool Take(const json& j, const char* key, T* out, std::string* err) {
  auto it = j.find(key);
  if (it == j.end()) return true;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return *err = std::string(key) + ": must be a string", false;
    *out = it->get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return *err = std::string(key) + ": must be true or false", false;
    *out = it->get<bool>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!it->is_number() || it->get<double>() <= 0) return *err = std::string(key) + ": must be a positive number", false;
    *out = it->get<double>();
  } else {
    if (!it->is_number_integer() || it->get<int64_t>() < 0) {
      return *err = std::string(key) + ": must be a non-negative integer", false;
    }
    *out = static_cast<T>(it->get<int64_t>());
  }
  return true;
}

}  // namespace

Outcome<Settings> Settings::Merge(const json& j) const {
  if (!j.is_object()) return ApiError::BadRequest("settings: must be a JSON object");
  static const char* kKeys[] = {"seed", "podStartupDelayMs", "migReconfigureDelayMs",
                                "devicePluginDelayMs", "operatorNamespace", "migConfigMap",
                                "devicePluginConfigMap", "tickMs", "historyLimit",
                                "watchMaxSeconds", "bookmarkIntervalMs", "serverVersion",
                                "schedulerChecksCpuMemory", "podShutdownMs", "timeScale", "configMapSyncDelayMs",
                                "devicePluginMissingConfig", "migManagerWithReboot", "nodeRebootDelayMs",
                                "users", "kubeSystemUid"};
  for (const auto& [k, v] : j.items()) {
    (void)v;
    bool known = false;
    for (const char* key : kKeys) known = known || k == key;
    if (!known) return ApiError::BadRequest("settings: unknown key \"" + k + "\"");
  }
  Settings s = *this;
  std::string err;
  bool ok = Take(j, "seed", &s.seed, &err) &&
            Take(j, "podStartupDelayMs", &s.pod_startup_delay_ms, &err) &&
            Take(j, "migReconfigureDelayMs", &s.mig_reconfigure_delay_ms, &err) &&
            Take(j, "devicePluginDelayMs", &s.device_plugin_delay_ms, &err) &&
            Take(j, "operatorNamespace", &s.operator_namespace, &err) &&
            Take(j, "migConfigMap", &s.mig_config_map, &err) &&
            Take(j, "devicePluginConfigMap", &s.device_plugin_config_map, &err) &&
            Take(j, "tickMs", &s.tick_ms, &err) && Take(j, "historyLimit", &s.history_limit, &err) &&
            Take(j, "watchMaxSeconds", &s.watch_max_seconds, &err) &&
            Take(j, "bookmarkIntervalMs", &s.bookmark_interval_ms, &err) &&
            Take(j, "serverVersion", &s.server_version, &err) &&
            Take(j, "schedulerChecksCpuMemory", &s.scheduler_checks_cpu_memory, &err) &&
            Take(j, "timeScale", &s.time_scale, &err) &&
            Take(j, "configMapSyncDelayMs", &s.config_map_sync_delay_ms, &err) &&
            Take(j, "devicePluginMissingConfig", &s.device_plugin_missing_config, &err) &&
            Take(j, "migManagerWithReboot", &s.mig_manager_with_reboot, &err) &&
            Take(j, "nodeRebootDelayMs", &s.node_reboot_delay_ms, &err) &&
            Take(j, "kubeSystemUid", &s.kube_system_uid, &err);
  if (ok && j.contains("users")) {
    auto users = ParseSimUsers(j["users"]);
    if (!users.ok()) return ApiError::BadRequest("settings: " + users.error().message);
    s.users = std::move(users).value();
  }
  if (ok && j.contains("podShutdownMs") && j["podShutdownMs"].is_null()) {
    s.pod_shutdown_ms = -1;  // back to "the whole grace period"
  } else if (ok) {
    ok = Take(j, "podShutdownMs", &s.pod_shutdown_ms, &err);
  }
  if (!ok) return ApiError::BadRequest("settings: " + err);
  if (s.tick_ms < 10) return ApiError::BadRequest("settings: tickMs: must be at least 10");
  if (s.history_limit < 1) return ApiError::BadRequest("settings: historyLimit: must be at least 1");
  if (s.time_scale > 1e6) return ApiError::BadRequest("settings: timeScale: must be at most 1000000");
  if (s.device_plugin_missing_config != "crash" && s.device_plugin_missing_config != "skip") {
    return ApiError::BadRequest("settings: devicePluginMissingConfig: must be \"crash\" or \"skip\"");
  }
  if (s.server_version.size() < 4 || s.server_version[0] != 'v') {
    return ApiError::BadRequest("settings: serverVersion: must look like v1.32.0");
  }
  return s;
}

json Settings::ToJson() const {
  return {{"seed", seed},
          {"podStartupDelayMs", pod_startup_delay_ms},
          {"migReconfigureDelayMs", mig_reconfigure_delay_ms},
          {"devicePluginDelayMs", device_plugin_delay_ms},
          {"operatorNamespace", operator_namespace},
          {"migConfigMap", mig_config_map},
          {"devicePluginConfigMap", device_plugin_config_map},
          {"tickMs", tick_ms},
          {"historyLimit", history_limit},
          {"watchMaxSeconds", watch_max_seconds},
          {"bookmarkIntervalMs", bookmark_interval_ms},
          {"serverVersion", server_version},
          {"schedulerChecksCpuMemory", scheduler_checks_cpu_memory},
          {"podShutdownMs", pod_shutdown_ms < 0 ? json(nullptr) : json(pod_shutdown_ms)},
          {"timeScale", time_scale},
          {"configMapSyncDelayMs", config_map_sync_delay_ms},
          {"devicePluginMissingConfig", device_plugin_missing_config},
          {"migManagerWithReboot", mig_manager_with_reboot},
          {"nodeRebootDelayMs", node_reboot_delay_ms},
          {"users", SimUsersJson(users)},
          {"kubeSystemUid", kube_system_uid}};
}

Outcome<json> ReadJsonArg(const std::string& arg, const std::string& flag) {
  std::string text;
  std::string where = flag + " (inline JSON)";
  size_t first = arg.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (arg[first] == '{' || arg[first] == '[')) {
    text = arg;
  } else {
    std::ifstream in(arg);
    if (!in) return ApiError::BadRequest(flag + ": cannot read file " + arg);
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    where = arg;
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return ApiError::BadRequest(where + ": invalid JSON: " + e.what());
  }
}

}  // namespace kubeon::kubesim
