// LeaderElector: one acting controller among replicas, through the
// coordination.k8s.io/v1 Lease <namespace>/kubeon-gpu-controller (the same
// acquire / renew / release with resourceVersion preconditions as the policy
// Lease, apply/lease.h, which it reuses with LeaseOptions::name).
//
// A background thread tries to take the Lease every retry_period while not
// leading and renews it every retry_period while leading.  IsLeader() is true
// only while the last successful acquire or renew is less than
// renew_deadline old, and renew_deadline < lease_duration: a leader that
// cannot renew (API unreachable, paused, taken over) stops acting before
// another replica may take the Lease over.  Being the leader is a hint to
// act, not a fence: every write of the executor carries its own precondition
// (resourceVersion, the policy Lease, the change's revision).
// Stop() (and the destructor) ends the thread and releases the Lease when
// held, so a successor need not wait for it to expire.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "apply/lease.h"
#include "kube/client.h"

namespace kubeon::controller {

struct LeaderOptions {
  std::string namespace_ = "kubeon-system";
  std::string name = "kubeon-gpu-controller";
  std::string identity;  // holderIdentity; "" = apply::MakeHolderIdentity("kubeon-gpu-controller")
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};  // REQUIRES: < lease_duration
  std::chrono::milliseconds retry_period{2000};     // REQUIRES: < renew_deadline
  // Called from the elector's thread when leadership starts (true) or ends (false).
  std::function<void(bool leader, const std::string& why)> on_change;
};

class LeaderElector {
 public:
  // REQUIRES: client outlives the elector.
  LeaderElector(kube::KubeClient& client, LeaderOptions options);
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void Start();
  void Stop();
  bool IsLeader() const;
  const std::string& identity() const { return options_.identity; }
  std::string Describe() const { return options_.namespace_ + "/" + options_.name; }

 private:
  void Run();
  void SetLeader(bool leader, const std::string& why);

  kube::KubeClient& client_;
  LeaderOptions options_;
  apply::PolicyLease lease_;
  std::atomic<bool> leader_{false};
  std::atomic<int64_t> last_renew_ns_{0};  // steady clock of the last successful acquire/renew
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kubeon::controller
