// Helpers shared by kube-sim's tests: fixture loading and a Simulator on a
// manual clock.  Test-only; not part of kubesim_lib.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "api.h"
#include "resources.h"
#include "sim.h"

namespace kubeon::kubesim::testing {

inline std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(KUBESIM_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline json TestdataJson(const std::string& name) { return json::parse(ReadTestdata(name)); }

// Percent-decoding of a query component ('+' is a space).
inline std::string QueryDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i] == '+' ? ' ' : s[i]);
    }
  }
  return out;
}

// A request for `target` ("/path?k=v&k2=v2") with `body` of `content_type`
// (when non-empty), carrying "Bearer <token>" unless `token` is empty.
inline ApiRequest TestRequest(const std::string& method, const std::string& target, const std::string& body = "",
                              const std::string& content_type = "application/json",
                              const std::string& token = "sekrit") {
  ApiRequest req;
  req.method = method;
  size_t q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) {
    std::string query = target.substr(q + 1);
    size_t start = 0;
    while (start <= query.size()) {
      size_t amp = query.find('&', start);
      std::string kv = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
      size_t eq = kv.find('=');
      if (!kv.empty()) {
        req.query.emplace(QueryDecode(kv.substr(0, eq)), eq == std::string::npos ? "" : QueryDecode(kv.substr(eq + 1)));
      }
      if (amp == std::string::npos) break;
      start = amp + 1;
    }
  }
  if (!token.empty()) req.headers["authorization"] = "Bearer " + token;
  if (!body.empty()) req.headers["content-type"] = content_type;
  req.body = body;
  return req;
}

// The status condition of `type` of an object, or nullptr.
inline const json* Condition(const json& obj, const std::string& type) {
  const json* conds = Find(obj, {"status", "conditions"});
  if (conds == nullptr || !conds->is_array()) return nullptr;
  for (const auto& c : *conds) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

// A simulator loaded with testdata/small.json whose clock only moves when
// Advance() is called.
class ManualSim {
 public:
  explicit ManualSim(Settings settings = Settings()) {
    sim_ = std::make_unique<Simulator>(settings, [this] { return now_; });
    auto n = sim_->LoadSnapshot(TestdataJson("small.json"), "small.json");
    if (!n.ok()) throw std::runtime_error(n.error().message);
  }
  Simulator& sim() { return *sim_; }
  Store& store() { return sim_->store(); }
  TimePoint now() const { return now_; }
  void Advance(int ms) {
    now_ += std::chrono::milliseconds(ms);
    sim_->Reconcile();
  }
  // The stored object, or null json.
  json Get(const std::string& store_id, const std::string& ns, const std::string& name) {
    const json* o = store().Get(store_id, ns, name);
    return o != nullptr ? *o : json();
  }
  // Applies `fn` to a copy of the object and writes it back, then reconciles.
  template <typename F>
  void Mutate(const std::string& store_id, const std::string& ns, const std::string& name, F fn) {
    json o = Get(store_id, ns, name);
    if (o.is_null()) throw std::runtime_error("no " + store_id + " " + ns + "/" + name);
    fn(o);
    auto r = store().Update(store_id, o);
    if (!r.ok()) throw std::runtime_error(r.error().message);
    sim_->AfterWrite();
  }
  void Create(const std::string& store_id, const json& obj) {
    auto r = store().Create(store_id, obj);
    if (!r.ok()) throw std::runtime_error(r.error().message);
    sim_->AfterWrite();
  }
  std::vector<json> Pods(const std::string& ns) { return store().List(kPods, ns); }

 private:
  TimePoint now_ = TimePoint(std::chrono::seconds(1714521600));
  std::unique_ptr<Simulator> sim_;
};

}  // namespace kubeon::kubesim::testing
