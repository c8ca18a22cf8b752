// LeaderElector against the kube-sim executable's Leases: one leader among
// two electors, hand-over on Stop (the Lease is released), and a leader
// whose Lease is taken over stops leading.  Timings are short (Lease 6 s);
// every wait polls with a generous deadline.
#include "controller/leader_election.h"

#include <gtest/gtest.h>

#ifdef KUBE_SIM_BINARY

#include <functional>
#include <thread>

#include "apply/rfc3339.h"
#include "kube/kubeconfig.h"
#include "kube/sim_process.h"

namespace kubeon::controller {
namespace {

bool WaitFor(const std::function<bool()>& done, std::chrono::seconds limit = std::chrono::seconds(30)) {
  return kube::testing::WaitFor(done, limit, std::chrono::milliseconds(50));
}

class LeaderElectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kube::testing::SimClusterShape shape;
    shape.nodes = 1;
    shape.deployments = 1;
    shape.pods_per_deployment = 1;
    Status s = sim_.Start(KUBE_SIM_BINARY, kube::testing::MakeSimCluster(shape));
    ASSERT_TRUE(s.ok()) << s.message();
    auto c = sim_.AdminClient();
    ASSERT_TRUE(c.ok()) << c.status().message();
    client_ = std::move(c).value();
  }

  LeaderOptions Options(const std::string& identity) {
    LeaderOptions o;
    o.namespace_ = "kube-system";
    o.identity = identity;
    o.lease_duration = std::chrono::seconds(6);
    o.renew_deadline = std::chrono::seconds(4);
    o.retry_period = std::chrono::milliseconds(500);
    return o;
  }

  std::string Holder() {
    auto l = client_->Get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeon-gpu-controller");
    return l.ok() ? (*l)["spec"].value("holderIdentity", "") : "";
  }

  kube::testing::SimProcess sim_;
  std::unique_ptr<kube::KubeClient> client_;
};

TEST_F(LeaderElectionTest, OneLeaderAndHandOverOnStop) {
  std::atomic<int> changes{0};
  LeaderOptions oa = Options("a");
  oa.on_change = [&](bool, const std::string&) { ++changes; };
  LeaderElector a(*client_, oa);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  EXPECT_EQ(Holder(), "a");
  LeaderElector b(*client_, Options("b"));
  b.Start();
  // b keeps trying (8 attempts) and never leads while a renews.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  while (std::chrono::steady_clock::now() < end) {
    EXPECT_FALSE(b.IsLeader() && a.IsLeader()) << "two leaders";
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(a.IsLeader());
  EXPECT_FALSE(b.IsLeader());
  a.Stop();  // releases: b need not wait for the Lease to expire
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(changes.load(), 2) << "became leader, then stopped";
  ASSERT_TRUE(WaitFor([&] { return b.IsLeader(); }));
  EXPECT_EQ(Holder(), "b");
}

TEST_F(LeaderElectionTest, ALeaderWhoseLeaseIsTakenOverStops) {
  std::atomic<bool> lost{false};
  LeaderOptions oa = Options("a");
  oa.on_change = [&](bool leader, const std::string&) {
    if (!leader) lost = true;
  };
  LeaderElector a(*client_, oa);
  a.Start();
  ASSERT_TRUE(WaitFor([&] { return a.IsLeader(); }));
  // Someone else writes the Lease (as a replica that judged it expired would).
  auto r = client_->UpdateWithRetry(
      "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeon-gpu-controller", [](nlohmann::json& l) {
        l["spec"]["holderIdentity"] = "intruder";
        l["spec"]["leaseDurationSeconds"] = 3600;
        l["spec"]["renewTime"] = apply::FormatMicroTime(std::chrono::system_clock::now());
        return Status::Ok();
      });
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_TRUE(WaitFor([&] { return !a.IsLeader() && lost.load(); }));
  EXPECT_EQ(Holder(), "intruder") << "a never writes over a Lease it lost";
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_FALSE(a.IsLeader());
}

}  // namespace
}  // namespace kubeon::controller

#else
TEST(LeaderElectionTest, RequiresTheSimulator) { GTEST_SKIP() << "kube-sim is not part of this build"; }
#endif
