// Simulator: the store, the controllers, the faults and the settings of one
// simulated cluster, behind one mutex.
//
// Every API request takes mutex(), does its reads/writes and, after a
// write, calls AfterWrite(): the controllers run (deployment, replicaset,
// statefulset, gpu-operator, daemonset, scheduler, device-manager, kubelet,
// pod-terminator, mig-manager, device-plugin, disruption, in that order)
// until none writes (at most 20 passes), then the store is persisted when a
// state directory is set.  A controller whose input types (Inputs()) saw no
// write since the start of its last run, and that does not wait on the
// clock, is skipped; the others look only at what changed (ChangeCursor):
// a node label patch does not rescan every pod.  A ticker thread does the same every
// settings.tick_ms when something changed or a controller waits on the
// clock, so delayed steps (pod startup, MIG reconfiguration) happen without
// requests.
//
// Time: Now() is simulated time, which every controller sees (ctx.now)
// and stamps on objects.  It runs settings.time_scale times faster than
// the real clock and jumps forward on AdvanceClock() (POST /sim/clock);
// with time_scale 1 and no jump it is the real clock.  The ticker period,
// watch timeouts and bookmarks stay in real time.
//
// Besides the store, the simulator keeps the nodes' GPUs and the devices
// pods hold (NodeGpus, persisted with the store under the state file's
// "kubeSim" key) and container logs (PodLogs, not persisted).
//
// Invariant: controllers only ever run with mutex() held.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "controller.h"
#include "custom_resources.h"
#include "faults.h"
#include "node_gpus.h"
#include "pod_logs.h"
#include "settings.h"
#include "store.h"

namespace kubeon::kubesim {

// A UUID (version 5 layout) from the SHA-256 of `content`.
std::string KubeSystemUid(const std::string& content);

class Simulator {
 public:
  using Clock = std::function<TimePoint()>;
  // `clock` defaults to the system clock.
  explicit Simulator(Settings settings, Clock clock = nullptr);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  std::mutex& mutex() { return mu_; }
  Faults& faults() { return faults_; }  // thread-safe on its own

  // The rest REQUIRES mutex() held.
  Store& store() { return *store_; }
  const Settings& settings() const { return settings_; }
  Outcome<bool> UpdateSettings(const json& patch);
  // Loads a snapshot List, adds namespaces and DaemonSets, reconciles, and
  // forgets the history (watches start after the load).  Namespace
  // kube-system always exists; when the snapshot lacks it, its
  // metadata.uid is the kubeSystemUid setting, else derived from the
  // snapshot's content (KubeSystemUid), so it is stable for that cluster.
  Outcome<size_t> LoadSnapshot(const json& list, const std::string& source);
  // Sets the state directory; loads <dir>/state.json when it exists
  // (returns true then) instead of needing a snapshot.
  Outcome<bool> UsePersistence(const std::string& dir);
  void AfterWrite();
  void Reconcile();
  // Simulated time; thread-safe (no mutex() needed).
  TimePoint Now() const;
  // Moves simulated time forward by `d` and runs the controllers.
  void AdvanceClock(std::chrono::milliseconds d);
  // The GET /sim/clock document: now, unixMillis, timeScale, advancedMs.
  json ClockState() const;
  NodeGpus& gpus() { return gpus_; }
  // The custom resource types the CRDs in the store define; thread-safe on
  // its own (lookups need no mutex()).
  const CustomTypes& custom_types() const { return custom_types_; }
  PodLogs& logs() { return logs_; }
  json State() const;

  // Logs each controller run and its duration to stderr.
  void set_trace(bool on) { trace_ = on; }

  // Thread-safe; do not hold mutex().
  void StartTicker();
  void StopTicker();

 private:
  void Persist();
  uint64_t InputSignature(const Controller& c) const;

  std::mutex mu_;
  Settings settings_;
  Clock clock_;
  mutable std::mutex clock_mu_;  // guards the three below
  TimePoint anchor_real_, anchor_sim_;  // Now() = anchor_sim_ + (clock_() - anchor_real_) * scale_
  double scale_ = 1;
  std::chrono::milliseconds advanced_{0};
  NodeGpus gpus_;
  PodLogs logs_;
  Faults faults_;
  CustomTypes custom_types_;
  std::unique_ptr<Store> store_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::vector<uint64_t> seen_;  // per controller: input signature after its last run
  std::string state_dir_;
  uint64_t persisted_writes_ = 0;
  uint64_t reconciled_writes_ = ~0ULL;
  std::thread ticker_;
  std::mutex ticker_mu_;
  std::condition_variable ticker_cv_;
  bool ticker_stop_ = false;
  bool trace_ = false;
};

}  // namespace kubeon::kubesim
