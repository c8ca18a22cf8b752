// PolicyLease: the one-writer rule (issue 11 rule 3).  Every executor (the
// CLI's `apply` and `revert`, the in-cluster controller) holds the
// coordination.k8s.io/v1 Lease of the policy it acts on before it writes
// anything to the cluster, and renews it while it works.
//
// The Lease is `<namespace>/kubeon-gpu-<policy>` (namespace kube-system by
// default), so the CLI and the controller exclude each other on one policy
// and run side by side on different ones.  Fields as client-go's leader
// election writes them: spec.holderIdentity, leaseDurationSeconds,
// acquireTime and renewTime (MicroTime, RFC 3339 with microseconds) and
// leaseTransitions.
//
// Contract:
//  - Acquire creates the Lease, or takes it over when it is free (empty
//    holder) or expired (renewTime + leaseDurationSeconds before now), or
//    renews it when this holder already holds it.  A Lease held by someone
//    else and not expired is an error naming the holder and when it expires
//    ("policy gpu-sharing is being changed by <holder> (Lease kube-system/
//    kubeon-gpu-gpu-sharing, renewed 12s ago, expires in 48s)").
//  - Every write is a PUT carrying the resourceVersion just read (or a
//    create): two executors racing for one Lease cannot both win; the loser
//    sees a conflict and reports the Lease as held.
//  - Renew fails (and the caller must stop writing) when the Lease was taken
//    over or changed by anyone else since our last write.
//  - Release gives the Lease up (empty holder, as client-go does) only when
//    we still hold it; it never deletes the object.
//  - The clock is injected (tests and `--now`).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "kube/client.h"
#include "model/status.h"

namespace kubeon::apply {

using WallClock = std::function<std::chrono::system_clock::time_point()>;

struct LeaseOptions {
  std::string namespace_ = "kube-system";
  std::string policy;  // the GpuPolicy's name
  // The Lease's name when it is not a policy's (the controller's leader
  // election: "kubeon-gpu-controller"); "" = LeaseName(policy).  `subject`
  // names what the Lease guards in error messages ("" = "policy <policy>").
  std::string name;
  std::string subject;
  std::string holder;  // this executor's identity; "" = MakeHolderIdentity("kubeon-gpu")
  std::chrono::seconds duration{60};
  WallClock now = [] { return std::chrono::system_clock::now(); };
};

// "<program>/<hostname>/<pid>/<8 random hex>": unique per process.
std::string MakeHolderIdentity(const std::string& program);

// The Lease's name for a policy: "kubeon-gpu-<policy>" (a valid object name).
std::string LeaseName(const std::string& policy);

class PolicyLease {
 public:
  // REQUIRES: client outlives the lease; options.policy or options.name non-empty.
  PolicyLease(kube::KubeClient& client, LeaseOptions options);

  Status Acquire();
  Status Renew();
  Status Release();

  bool held() const { return held_; }
  const std::string& holder() const { return options_.holder; }
  // "kube-system/kubeon-gpu-<policy>"
  std::string Describe() const;

 private:
  std::string Path() const;
  std::string Name() const;
  std::string Subject() const;
  nlohmann::json Spec(bool transition, const nlohmann::json& previous) const;

  kube::KubeClient& client_;
  LeaseOptions options_;
  bool held_ = false;
  std::string resource_version_;  // of our last write
};

// Renews a held PolicyLease every duration/3 on a background thread while it
// lives (a step runs for minutes, longer than the Lease lasts).  The lease
// must not be used by anyone else meanwhile.  lost() tells whether a renewal
// failed; the first failure's message is kept.  Fresh(renew_deadline) is the
// fencing check a writer makes before every cluster write: an error once a
// renewal failed or none succeeded within renew_deadline (a renewal still
// retrying counts as not renewed), REQUIRES: the Lease held when the keeper
// started.
class LeaseKeeper {
 public:
  explicit LeaseKeeper(PolicyLease& lease, std::chrono::milliseconds every);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;
  bool lost() const;
  std::string error() const;
  Status Fresh(std::chrono::milliseconds renew_deadline) const;

 private:
  PolicyLease& lease_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string error_;
  std::chrono::steady_clock::time_point renewed_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

}  // namespace kubeon::apply
