// See leader_election.h.
#include "controller/leader_election.h"

namespace kubeon::controller {
namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

apply::LeaseOptions LeaseOptionsOf(LeaderOptions& o) {
  if (o.identity.empty()) o.identity = apply::MakeHolderIdentity("kubeon-gpu-controller");
  apply::LeaseOptions lo;
  lo.namespace_ = o.namespace_;
  lo.name = o.name;
  lo.policy = o.name;
  lo.subject = "controller leadership";
  lo.holder = o.identity;
  lo.duration = std::chrono::duration_cast<std::chrono::seconds>(o.lease_duration);
  return lo;
}

}  // namespace

LeaderElector::LeaderElector(kube::KubeClient& client, LeaderOptions options)
    : client_(client), options_(std::move(options)), lease_(client_, LeaseOptionsOf(options_)) {}

LeaderElector::~LeaderElector() { Stop(); }

void LeaderElector::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!thread_.joinable()) return;
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (lease_.held()) (void)lease_.Release();
  SetLeader(false, "stopped");
}

bool LeaderElector::IsLeader() const {
  if (!leader_.load()) return false;
  const int64_t age = SteadyNs() - last_renew_ns_.load();
  return age < std::chrono::duration_cast<std::chrono::nanoseconds>(options_.renew_deadline).count();
}

void LeaderElector::SetLeader(bool leader, const std::string& why) {
  if (leader_.exchange(leader) != leader && options_.on_change) options_.on_change(leader, why);
}

void LeaderElector::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    // Acquire also renews a Lease we still hold (e.g. after a failed renewal
    // whose write may or may not have landed).
    const Status s = lease_.held() ? lease_.Renew() : lease_.Acquire();
    if (s.ok()) {
      last_renew_ns_ = SteadyNs();
      SetLeader(true, "acquired Lease " + Describe());
    } else if (leader_.load() && !IsLeader()) {
      SetLeader(false, s.message());
    } else if (!lease_.held() && leader_.load()) {
      // Taken over: stop at once rather than at the deadline.
      last_renew_ns_ = 0;
      SetLeader(false, s.message());
    }
    lock.lock();
    cv_.wait_for(lock, options_.retry_period, [this] { return stop_; });
  }
}

}  // namespace kubeon::controller
