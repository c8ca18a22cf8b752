// Fault injection: what the simulator should get wrong on purpose.
//
// Configured with --faults (file or inline JSON) and POST /sim/faults, which
// replaces the whole set.  Format (every key optional):
//   {
//     "latencyMs": 20,                                  every request
//     "latency": [{"path": "regex", "method": "GET", "ms": 200}],
//     "failRequests": [{"path": "regex", "method": "GET", "count": 2, "code": 500}],
//     "dropWatchAfterEvents": [{"path": "regex", "events": 3, "count": 1}],
//     "refuseEviction": [{"namespace": "ns", "pod": "name", "count": 2, "code": 429}],
//     "failMigConfig": [{"node": "gpu-1", "config": "all-1g.10gb", "count": 1}],
//     "stuckMigPending": [{"node": "gpu-1", "config": "all-1g.10gb", "count": 1}]
//   }
// "path" is an ECMAScript regex searched in the request path (no query);
// "method" defaults to any; "count" is how many times the rule fires
// (absent = every time), "code" defaults to 500 (429 for evictions).
// A dropped watch is cut without the closing chunk, like a lost connection.
// failMigConfig fails a mig-manager run when it would apply; stuckMigPending
// makes a run time out waiting for the paused operand pods and end without
// a state: "pending" with the clients paused (mig_manager.h).  "config"
// absent = any config.
//
// Thread-safe: every method takes the object's own lock.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "api_error.h"

namespace kubeon::kubesim {

class Faults {
 public:
  // Replaces the configuration; on error nothing changes.
  Outcome<bool> Configure(const json& config);
  json State() const;

  std::chrono::milliseconds Latency(const std::string& method, const std::string& path) const;
  // An injected failure code for this request, consuming one count.
  std::optional<int> FailRequest(const std::string& method, const std::string& path);
  // Events after which a new watch on `path` is cut (nullopt = never);
  // consumes a count.
  std::optional<int64_t> WatchDropAfter(const std::string& path);
  // An injected eviction refusal code for this pod, consuming one count.
  std::optional<int> RefuseEviction(const std::string& ns, const std::string& pod);
  // Whether applying MIG config `config` on `node` must fail; consumes a count.
  bool FailMigConfig(const std::string& node, const std::string& config);
  // Whether a mig-manager run of `config` on `node` must get stuck in pending; consumes a count.
  bool StuckMigPending(const std::string& node, const std::string& config);

 private:
  struct Rule {
    std::string pattern;
    std::regex path;
    std::string method;
    int64_t remaining = -1;  // -1 = unlimited
    int64_t value = 0;       // ms, code or events
    std::string ns, name, config;
  };
  static bool Fire(Rule* r);
  bool FireNodeRule(std::vector<Rule>& rules, const std::string& node, const std::string& config);

  mutable std::mutex mu_;
  int64_t latency_ms_ = 0;
  std::vector<Rule> latency_, fail_, drop_watch_, refuse_eviction_, fail_mig_, stuck_mig_;
  json config_ = json::object();
};

}  // namespace kubeon::kubesim
