// Helpers shared by kube-sim's tests: fixture loading and a Simulator on a
// manual clock.  Test-only; not part of kubesim_lib.
#pragma once

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

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
