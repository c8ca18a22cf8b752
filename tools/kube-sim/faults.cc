// See faults.h.
#include "faults.h"

namespace kubeon::kubesim {

namespace {

ApiError Bad(const std::string& where, const std::string& why) {
  return ApiError::BadRequest("faults: " + where + ": " + why);
}

Outcome<int64_t> IntField(const json& e, const char* key, int64_t fallback, const std::string& where) {
  auto it = e.find(key);
  if (it == e.end()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 0) {
    return Bad(where + "." + key, "must be a non-negative integer");
  }
  return it->get<int64_t>();
}

Outcome<std::string> StrField(const json& e, const char* key, const std::string& where) {
  auto it = e.find(key);
  if (it == e.end()) return std::string();
  if (!it->is_string()) return Bad(where + "." + key, "must be a string");
  return it->get<std::string>();
}

}  // namespace

bool Faults::Fire(Rule* r) {
  if (r->remaining == 0) return false;
  if (r->remaining > 0) --r->remaining;
  return true;
}

Outcome<bool> Faults::Configure(const json& config) {
  if (!config.is_object()) return Bad("(top level)", "must be a JSON object");
  int64_t latency_ms = 0;
  std::vector<Rule> latency, fail, drop, refuse, mig, stuck;
  struct Section {
    const char* key;
    std::vector<Rule>* out;
    const char* value_key;
    int64_t value_default;
    std::vector<const char*> allowed;
  };
  Section sections[] = {
      {"latency", &latency, "ms", 0, {"path", "method", "ms", "count"}},
      {"failRequests", &fail, "code", 500, {"path", "method", "count", "code"}},
      {"dropWatchAfterEvents", &drop, "events", 1, {"path", "events", "count"}},
      {"refuseEviction", &refuse, "code", 429, {"namespace", "pod", "count", "code"}},
      {"failMigConfig", &mig, "", 0, {"node", "config", "count"}},
      {"stuckMigPending", &stuck, "", 0, {"node", "config", "count"}},
  };
  for (const auto& [k, v] : config.items()) {
    if (k == "latencyMs") {
      auto ms = IntField(config, "latencyMs", 0, "latencyMs");
      if (!ms.ok()) return ms.error();
      latency_ms = ms.value();
      continue;
    }
    Section* sec = nullptr;
    for (auto& s : sections) {
      if (k == s.key) sec = &s;
    }
    if (sec == nullptr) return Bad(k, "unknown key");
    if (!v.is_array()) return Bad(k, "must be a list of rules");
    for (size_t i = 0; i < v.size(); ++i) {
      const json& e = v[i];
      std::string where = k + "[" + std::to_string(i) + "]";
      if (!e.is_object()) return Bad(where, "must be an object");
      for (const auto& [ek, ev] : e.items()) {
        (void)ev;
        bool ok = false;
        for (const char* a : sec->allowed) ok = ok || ek == a;
        if (!ok) return Bad(where + "." + ek, "unknown key");
      }
      Rule r;
      auto path = StrField(e, "path", where);
      auto method = StrField(e, "method", where);
      auto ns = StrField(e, "namespace", where);
      auto pod = StrField(e, "pod", where);
      auto node = StrField(e, "node", where);
      auto cfg = StrField(e, "config", where);
      for (const auto* s : {&path, &method, &ns, &pod, &node, &cfg}) {
        if (!s->ok()) return s->error();
      }
      r.pattern = path.value();
      try {
        r.path = std::regex(r.pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& ex) {
        return Bad(where + ".path", std::string("invalid regex: ") + ex.what());
      }
      r.method = method.value();
      r.ns = ns.value();
      const bool node_rule = sec->out == &mig || sec->out == &stuck;
      r.name = node_rule ? node.value() : pod.value();
      r.config = cfg.value();
      auto count = IntField(e, "count", -1, where);
      if (!count.ok()) return count.error();
      r.remaining = count.value();
      if (*sec->value_key != '\0') {
        auto val = IntField(e, sec->value_key, sec->value_default, where);
        if (!val.ok()) return val.error();
        r.value = val.value();
      }
      if (sec->out == &refuse && (r.ns.empty() || r.name.empty())) {
        return Bad(where, "needs \"namespace\" and \"pod\"");
      }
      if (node_rule && r.name.empty()) return Bad(where, "needs \"node\"");
      sec->out->push_back(std::move(r));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  latency_ms_ = latency_ms;
  latency_ = std::move(latency);
  fail_ = std::move(fail);
  drop_watch_ = std::move(drop);
  refuse_eviction_ = std::move(refuse);
  fail_mig_ = std::move(mig);
  stuck_mig_ = std::move(stuck);
  config_ = config;
  return true;
}

json Faults::State() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto remaining = [](const std::vector<Rule>& rules) {
    json a = json::array();
    for (const auto& r : rules) a.push_back(r.remaining);
    return a;
  };
  return {{"config", config_},
          {"remaining",
           {{"latency", remaining(latency_)},
            {"failRequests", remaining(fail_)},
            {"dropWatchAfterEvents", remaining(drop_watch_)},
            {"refuseEviction", remaining(refuse_eviction_)},
            {"failMigConfig", remaining(fail_mig_)},
            {"stuckMigPending", remaining(stuck_mig_)}}}};
}

std::chrono::milliseconds Faults::Latency(const std::string& method, const std::string& path) const {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t ms = latency_ms_;
  for (const auto& r : latency_) {
    if ((r.method.empty() || r.method == method) && std::regex_search(path, r.path)) ms += r.value;
  }
  return std::chrono::milliseconds(ms);
}

std::optional<int> Faults::FailRequest(const std::string& method, const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : fail_) {
    if ((r.method.empty() || r.method == method) && std::regex_search(path, r.path) && Fire(&r)) {
      return static_cast<int>(r.value);
    }
  }
  return std::nullopt;
}

std::optional<int64_t> Faults::WatchDropAfter(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : drop_watch_) {
    if (std::regex_search(path, r.path) && Fire(&r)) return r.value;
  }
  return std::nullopt;
}

std::optional<int> Faults::RefuseEviction(const std::string& ns, const std::string& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : refuse_eviction_) {
    if (r.ns == ns && r.name == pod && Fire(&r)) return static_cast<int>(r.value);
  }
  return std::nullopt;
}

bool Faults::FireNodeRule(std::vector<Rule>& rules, const std::string& node, const std::string& config) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : rules) {
    if (r.name == node && (r.config.empty() || r.config == config) && Fire(&r)) return true;
  }
  return false;
}

bool Faults::FailMigConfig(const std::string& node, const std::string& config) {
  return FireNodeRule(fail_mig_, node, config);
}

bool Faults::StuckMigPending(const std::string& node, const std::string& config) {
  return FireNodeRule(stuck_mig_, node, config);
}

}  // namespace kubeon::kubesim
