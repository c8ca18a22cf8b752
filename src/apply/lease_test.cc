// PolicyLease against the kube-sim executable's coordination.k8s.io/v1
// Leases: one holder at a time, take-over after expiry, release, and a
// holder that lost the Lease stops.
#include "apply/lease.h"

#include <gtest/gtest.h>

#ifdef KUBE_SIM_BINARY

#include <thread>
#include <vector>

#include "kube/kubeconfig.h"
#include "kube/sim_process.h"

namespace kubeon::apply {
namespace {

using std::chrono::seconds;
using std::chrono::system_clock;

class LeaseTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    sim_ = new kube::testing::SimProcess();
    kube::testing::SimClusterShape shape;
    shape.nodes = 1;
    shape.deployments = 1;
    shape.pods_per_deployment = 1;
    Status s = sim_->Start(KUBE_SIM_BINARY, kube::testing::MakeSimCluster(shape));
    ASSERT_TRUE(s.ok()) << s.message();
  }
  static void TearDownTestSuite() {
    delete sim_;
    sim_ = nullptr;
  }
  void SetUp() override {
    kube::LoadOptions o;
    o.kubeconfig_path = sim_->token_kubeconfig();
    auto cfg = kube::LoadRestConfig(o);
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    auto c = kube::KubeClient::Connect(*cfg);
    ASSERT_TRUE(c.ok()) << c.status().message();
    client_ = std::move(c).value();
  }

  // A lease whose clock reads `*now`.
  LeaseOptions Options(const std::string& policy, const std::string& holder, system_clock::time_point* now) {
    LeaseOptions o;
    o.policy = policy;
    o.holder = holder;
    o.duration = seconds(30);
    o.now = [now] { return *now; };
    return o;
  }

  static kube::testing::SimProcess* sim_;
  std::unique_ptr<kube::KubeClient> client_;
};

kube::testing::SimProcess* LeaseTest::sim_ = nullptr;

TEST_F(LeaseTest, OneHolderAtATimeUntilReleaseOrExpiry) {
  system_clock::time_point now = system_clock::now();
  PolicyLease a(*client_, Options("gpu-sharing", "cli-a", &now));
  PolicyLease b(*client_, Options("gpu-sharing", "cli-b", &now));
  ASSERT_TRUE(a.Acquire().ok());
  Status refused = b.Acquire();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("being changed by cli-a"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("kube-system/kubeon-gpu-gpu-sharing"), std::string::npos) << refused.message();

  now += seconds(20);
  ASSERT_TRUE(a.Renew().ok());
  now += seconds(20);  // 20 s after the renewal: still held
  EXPECT_FALSE(b.Acquire().ok());

  ASSERT_TRUE(a.Release().ok());
  ASSERT_TRUE(b.Acquire().ok()) << "a released Lease is free";
  auto lease = client_->Get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeon-gpu-gpu-sharing");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "cli-b");
  EXPECT_EQ((*lease)["spec"]["leaseTransitions"], 1);

  // b stops renewing; after its duration a takes over and b's renewal fails.
  now += seconds(31);
  ASSERT_TRUE(a.Acquire().ok());
  Status lost = b.Renew();
  ASSERT_FALSE(lost.ok());
  EXPECT_NE(lost.message().find("lost Lease"), std::string::npos) << lost.message();
  EXPECT_FALSE(b.held());
  ASSERT_TRUE(b.Release().ok()) << "releasing a lost Lease touches nothing";
  lease = client_->Get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeon-gpu-gpu-sharing");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)["spec"]["holderIdentity"], "cli-a");
  ASSERT_TRUE(a.Release().ok());
}

TEST_F(LeaseTest, KeeperRenewsWhileAStepRuns) {
  LeaseOptions o;
  o.policy = "kept";
  o.holder = "cli-keeper";
  o.duration = seconds(1);
  PolicyLease a(*client_, o);
  ASSERT_TRUE(a.Acquire().ok());
  {
    LeaseKeeper keeper(a, std::chrono::milliseconds(200));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // longer than the Lease lasts
    LeaseOptions other = o;
    other.holder = "cli-other";
    PolicyLease b(*client_, other);
    EXPECT_FALSE(b.Acquire().ok()) << "renewed, so still held";
    EXPECT_FALSE(keeper.lost()) << keeper.error();
  }
  EXPECT_TRUE(a.Renew().ok()) << "the keeper stopped with the lease still ours";
  EXPECT_TRUE(a.Release().ok());
}

TEST_F(LeaseTest, PoliciesHaveTheirOwnLeases) {
  system_clock::time_point now = system_clock::now();
  PolicyLease a(*client_, Options("Team_A", "cli-a", &now));
  PolicyLease b(*client_, Options("team-b", "cli-b", &now));
  ASSERT_TRUE(a.Acquire().ok());
  ASSERT_TRUE(b.Acquire().ok());
  EXPECT_EQ(a.Describe(), "kube-system/kubeon-gpu-team-a");
  EXPECT_TRUE(a.Release().ok());
  EXPECT_TRUE(b.Release().ok());
}

TEST_F(LeaseTest, RacingHoldersCannotBothWin) {
  system_clock::time_point now = system_clock::now();
  int winners = 0;
  std::vector<std::unique_ptr<PolicyLease>> leases;
  for (int i = 0; i < 4; ++i) {
    leases.push_back(std::make_unique<PolicyLease>(*client_, Options("race", "cli-" + std::to_string(i), &now)));
  }
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int i = 0; i < 4; ++i) threads.emplace_back([&, i] { ok[i] = leases[i]->Acquire().ok() ? 1 : 0; });
  for (auto& t : threads) t.join();
  for (int v : ok) winners += v;
  EXPECT_EQ(winners, 1);
}

}  // namespace
}  // namespace kubeon::apply

#else
TEST(LeaseTest, RequiresTheSimulator) { GTEST_SKIP() << "kube-sim is not part of this build"; }
#endif
