// Tunables of the simulated cluster (timings, names, limits), read from
// --settings (a file or inline JSON) and POST /sim/settings.
//
// JSON keys are the camelCase field names below; unknown keys and values of
// the wrong type are errors naming the key.  Every field has a default, so
// "{}" is valid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api_error.h"
#include "identity.h"

namespace kubeon::kubesim {

struct Settings {
  uint64_t seed = 1;                     // seeds uids and generated pod names
  int64_t pod_startup_delay_ms = 0;      // bound pod -> Running/Ready
  int64_t mig_reconfigure_delay_ms = 300;  // mig.config.state pending -> success/failed
  int64_t device_plugin_delay_ms = 0;    // device-plugin.config -> capacity
  std::string operator_namespace = "gpu-operator";
  std::string mig_config_map = "kubeon-mig-parted-config";
  std::string device_plugin_config_map = "kubeon-device-plugin-config";
  int64_t tick_ms = 100;                 // controller ticker period
  int64_t history_limit = 10000;         // retained watch events
  int64_t watch_max_seconds = 1800;      // watch length when timeoutSeconds is absent
  int64_t bookmark_interval_ms = 1000;   // BOOKMARK period when allowWatchBookmarks
  std::string server_version = "v1.32.0";  // /version gitVersion
  bool scheduler_checks_cpu_memory = true;
  // How long a deleted pod's containers take to exit: the pod object goes
  // away min(grace period, this) after its deletion.  -1 (JSON null, the
  // default) means the whole grace period, as a container that ignores
  // SIGTERM would take.
  int64_t pod_shutdown_ms = -1;
  // Simulated time runs time_scale times faster than real time (> 0).  Every
  // delay above and below is simulated time; watch timeouts, bookmarks and
  // tick_ms are real time.
  double time_scale = 1;
  int64_t config_map_sync_delay_ms = 60000;  // a ConfigMap edit reaches the node's mounted file
  std::string device_plugin_missing_config = "crash";  // "crash" | "skip": label names a missing config
  bool mig_manager_with_reboot = false;      // WITH_REBOOT: a failed MIG mode change reboots the node
  int64_t node_reboot_delay_ms = 120000;     // NotReady while rebooting
  // More users than kube-sim-admin (identity.h): "users": [{"name": "alice",
  // "uid": "u-1", "groups": ["reviewers"], "token": "alice-token"}].
  std::vector<SimUser> users;
  // metadata.uid of namespace kube-system when the snapshot has none (the
  // executor's cluster identity); "" = derived from the snapshot's content.
  std::string kube_system_uid;

  // Applies the keys present in `j` on top of *this.
  Outcome<Settings> Merge(const json& j) const;
  json ToJson() const;
};

// Reads `arg` as inline JSON when it starts with '{' or '[', else as a file
// path.  Errors name the file and the JSON parse position.
Outcome<json> ReadJsonArg(const std::string& arg, const std::string& flag);

}  // namespace kubeon::kubesim
