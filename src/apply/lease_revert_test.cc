#include "apply/lease_revert.h"

#include <gtest/gtest.h>

#include <thread>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::StepFixture;

const char* kLease = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubeon-gpu-gpu-sharing";

class LeaseRevertTest : public StepFixture {
 protected:
  LeaseOptions Lease() {
    LeaseOptions o;
    o.policy = "gpu-sharing";
    o.holder = "revert-test";
    o.now = [this] { return clock_.now; };
    return o;
  }
};

TEST_F(LeaseRevertTest, ALeaseHeldByAnotherRefusesWithNothingWritten) {
  cluster().Put(kLease, {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"},
                         {"metadata", {{"name", "kubeon-gpu-gpu-sharing"}, {"namespace", "kube-system"}}},
                         {"spec", {{"holderIdentity", "controller-0"}, {"leaseDurationSeconds", 60},
                                   {"renewTime", "2026-12-07T10:00:00.000000Z"}}}});
  bool held = false;
  Result<StepOutcome> o = RevertUnderLease(Ctx(), Lease(), "5e1c0a77", [&] { held = true; });
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("is being changed by controller-0"), std::string::npos) << o.status().message();
  EXPECT_FALSE(held);
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(LeaseRevertTest, TheRevertRunsUnderTheLeaseWhichIsReleasedAfter) {
  bool held = false;
  Result<StepOutcome> o = RevertUnderLease(Ctx(), Lease(), "5e1c0a77", [&] {
    held = true;
    EXPECT_EQ(cluster().At(kLease)["spec"]["holderIdentity"], "revert-test");
  });
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(held);
  // No such change: refused by the revert itself, with the Lease held meanwhile.
  EXPECT_EQ(o->kind, OutcomeKind::kRolledBack);
  EXPECT_EQ(o->cause, "no change with id 5e1c0a77 in the audit log");
  EXPECT_EQ(cluster().At(kLease)["spec"].value("holderIdentity", ""), "");
}

TEST_F(LeaseRevertTest, ALostLeaseIsSaidInProgress) {
  PolicyLease lease(*client_, Lease());
  ASSERT_TRUE(lease.Acquire().ok());
  // Every renewal (each second for a 3 s Lease) is refused from now on.
  cluster().fail["PUT " + std::string(kLease)] = 1000;
  const StepOutcome o = WhileKeepingLease(lease, std::chrono::seconds(3), Ctx().progress, [&](const Fence&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return StepOutcome{};
  });
  EXPECT_EQ(o.kind, OutcomeKind::kDone);
  ASSERT_FALSE(progress_.empty());
  EXPECT_EQ(progress_.back().rfind("warning: ", 0), 0u) << progress_.back();
}

TEST_F(LeaseRevertTest, TheFenceFailsOnceARenewalFailedOrTheDeadlinePassed) {
  PolicyLease lease(*client_, Lease());
  ASSERT_TRUE(lease.Acquire().ok());
  {
    LeaseKeeper keeper(lease, std::chrono::seconds(60));
    EXPECT_TRUE(keeper.Fresh(std::chrono::seconds(40)).ok());
    Status late = keeper.Fresh(std::chrono::milliseconds(-1));  // "renewed" longer ago than the deadline
    EXPECT_EQ(late.code(), StatusCode::kAborted);
    EXPECT_NE(late.message().find("lost the Lease kube-system/kubeon-gpu-gpu-sharing: not renewed for"),
              std::string::npos) << late.message();
  }
  cluster().fail["PUT " + std::string(kLease)] = 1000;
  Status seen;
  WhileKeepingLease(lease, std::chrono::seconds(3), Ctx().progress, [&](const Fence& fence) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a renewal (each second) failed meanwhile
    seen = fence();
    return StepOutcome{};
  });
  EXPECT_EQ(seen.code(), StatusCode::kAborted);
  EXPECT_NE(seen.message().find("lost the Lease"), std::string::npos) << seen.message();
}

}  // namespace
}  // namespace kubeon::apply
