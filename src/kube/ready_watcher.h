// Test and benchmark support (not part of the library): samples the ready
// replicas of every Deployment and StatefulSet against what its
// PodDisruptionBudget allows, in a background thread, while something else
// (an `apply` run) changes the cluster.
//
// ReadyWatcher::Start(config) lists /apis/apps/v1/deployments,
// /apis/apps/v1/statefulsets and /apis/policy/v1/poddisruptionbudgets every
// `interval` (default 100 ms) on its own KubeClient until Stop().  An owner
// is covered by a PDB in its namespace whose spec.selector.matchLabels is a
// subset of the owner's spec.template.metadata.labels.  With expected =
// the owner's spec.replicas, the PDB allows
//   minAvailable N        -> N
//   minAvailable "P%"     -> ceil(P * expected / 100)
//   maxUnavailable N      -> expected - N
//   maxUnavailable "P%"   -> expected - ceil(P * expected / 100)
// (the disruption controller's rounding).  Each sample records, per owner
// "Kind/namespace/name", the lowest status.readyReplicas seen and the
// allowed minimum at that moment; Violations() lists the owners whose ready
// replicas were ever below the allowed minimum.  A failed list is counted
// (failed_samples) and skipped.  Each sample is 3 API requests (requests()).
//
// Invariants: samples() only grows; per-owner min_ready only falls.
// Thread-safety: Start/Stop from one thread; the accessors lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "kube/kubeconfig.h"

namespace kubeon::kube::testing {

struct OwnerReadiness {
  std::string pdb;            // "" when no PDB covers the owner
  int expected = 0;           // spec.replicas at the sample of min_ready
  int min_ready = 1 << 30;    // lowest status.readyReplicas seen
  int allowed = 0;            // the PDB's minimum at that sample (0 without a PDB)
  int worst_slack = 1 << 30;  // lowest readyReplicas - allowed seen (negative: violated)
};

// The minimum number of ready pods `pdb` allows for an owner of `expected`
// replicas (see the file comment).
inline int PdbAllowedMinimum(const nlohmann::json &pdb, int expected) {
  const nlohmann::json spec = pdb.value("spec", nlohmann::json::object());
  auto scaled = [&](const nlohmann::json &v) -> int {
    if (v.is_number_integer()) return v.get<int>();
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (!s.empty() && s.back() == '%') {
        const int pct = std::stoi(s.substr(0, s.size() - 1));
        return (pct * expected + 99) / 100;
      }
      return std::stoi(s);
    }
    return 0;
  };
  if (spec.contains("minAvailable")) return scaled(spec["minAvailable"]);
  if (spec.contains("maxUnavailable")) return std::max(0, expected - scaled(spec["maxUnavailable"]));
  return 0;
}

class ReadyWatcher {
 public:
  ReadyWatcher() = default;
  ReadyWatcher(const ReadyWatcher &) = delete;
  ReadyWatcher &operator=(const ReadyWatcher &) = delete;
  ~ReadyWatcher() { Stop(); }

  // REQUIRES: not started.  Connects its own client; takes one sample
  // before returning so the state before any change is recorded.
  Status Start(const std::string &kubeconfig_path,
               std::chrono::milliseconds interval = std::chrono::milliseconds(100)) {
    LoadOptions o;
    o.kubeconfig_path = kubeconfig_path;
    auto cfg = LoadRestConfig(o);
    if (!cfg.ok()) return Status::Error(cfg.status().message());
    auto c = KubeClient::Connect(*cfg);
    if (!c.ok()) return Status::Error(c.status().message());
    client_ = std::move(c).value();
    Sample();
    stop_ = false;
    thread_ = std::thread([this, interval] {
      while (!stop_) {
        auto until = std::chrono::steady_clock::now() + interval;
        while (!stop_ && std::chrono::steady_clock::now() < until) {
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (!stop_) Sample();
      }
    });
    return Status::Ok();
  }

  // Takes a last sample and joins the thread.  Idempotent.
  void Stop() {
    if (!thread_.joinable()) return;
    stop_ = true;
    thread_.join();
    Sample();
  }

  std::map<std::string, OwnerReadiness> owners() const {
    std::lock_guard<std::mutex> l(mu_);
    return owners_;
  }
  int samples() const {
    std::lock_guard<std::mutex> l(mu_);
    return samples_;
  }
  // API requests the watcher made (3 per sample: for benchmarks that count
  // the server's requests and subtract the watcher's).
  int requests() const { return requests_; }
  int failed_samples() const {
    std::lock_guard<std::mutex> l(mu_);
    return failed_samples_;
  }
  // Owners whose ready replicas fell below their PDB's minimum, one line each.
  std::vector<std::string> Violations() const {
    std::vector<std::string> out;
    for (const auto &[name, r] : owners()) {
      if (!r.pdb.empty() && r.worst_slack < 0) {
        out.push_back(name + ": ready " + std::to_string(r.min_ready) + " < " + std::to_string(r.allowed) +
                      " allowed by " + r.pdb);
      }
    }
    return out;
  }

 private:
  void Sample() {
    requests_ += 3;
    auto deps = client_->List("/apis/apps/v1/deployments");
    auto sets = client_->List("/apis/apps/v1/statefulsets");
    auto pdbs = client_->List("/apis/policy/v1/poddisruptionbudgets");
    std::lock_guard<std::mutex> l(mu_);
    if (!deps.ok() || !sets.ok() || !pdbs.ok()) {
      ++failed_samples_;
      return;
    }
    ++samples_;
    auto record = [&](const char *kind, const nlohmann::json &o) {
      const auto &meta = o["metadata"];
      const std::string ns = meta.value("namespace", "");
      const std::string key = std::string(kind) + "/" + ns + "/" + meta.value("name", "");
      const int expected = o["spec"].value("replicas", 1);
      const int ready = o.value("status", nlohmann::json::object()).value("readyReplicas", 0);
      const nlohmann::json tmpl_labels = o["spec"]["template"]["metadata"].value("labels", nlohmann::json::object());
      std::string pdb_name;
      int allowed = 0;
      for (const auto &p : pdbs->items) {
        if (p["metadata"].value("namespace", "") != ns) continue;
        const nlohmann::json match =
            p["spec"].value("selector", nlohmann::json::object()).value("matchLabels", nlohmann::json::object());
        if (match.empty()) continue;
        bool subset = true;
        for (const auto &[k, v] : match.items()) {
          if (!tmpl_labels.contains(k) || tmpl_labels[k] != v) subset = false;
        }
        if (!subset) continue;
        pdb_name = ns + "/" + p["metadata"].value("name", "");
        allowed = PdbAllowedMinimum(p, expected);
      }
      OwnerReadiness &r = owners_[key];
      r.pdb = pdb_name;
      if (ready - allowed < r.worst_slack) r.worst_slack = ready - allowed;
      if (ready < r.min_ready) {
        r.min_ready = ready;
        r.expected = expected;
        r.allowed = allowed;
      }
    };
    for (const auto &d : deps->items) record("Deployment", d);
    for (const auto &s : sets->items) record("StatefulSet", s);
  }

  std::unique_ptr<KubeClient> client_;
  std::thread thread_;
  std::atomic<bool> stop_{true};
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::map<std::string, OwnerReadiness> owners_;
  int samples_ = 0;
  int failed_samples_ = 0;
};

}  // namespace kubeon::kube::testing
