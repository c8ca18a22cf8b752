// Tests for deployment_rollout.h: fencepost rounding, the new ReplicaSet's
// growth within maxSurge, old ReplicaSets' shrinking within maxUnavailable,
// and the validation of the strategy.
#include "deployment_rollout.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

json Deploy(int64_t replicas, const json& surge, const json& unavailable) {
  json d = {{"kind", "Deployment"}, {"metadata", {{"name", "web"}}}, {"spec", {{"replicas", replicas}}}};
  d["spec"]["strategy"] = {{"type", "RollingUpdate"}, {"rollingUpdate", json::object()}};
  if (!surge.is_null()) d["spec"]["strategy"]["rollingUpdate"]["maxSurge"] = surge;
  if (!unavailable.is_null()) d["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] = unavailable;
  return d;
}

TEST(DeploymentRolloutTest, SurgeRoundsUpUnavailableRoundsDown) {
  auto f = ResolveFenceposts(Deploy(10, nullptr, nullptr));  // defaults 25%
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value().max_surge, 3);        // 2.5 -> 3
  EXPECT_EQ(f.value().max_unavailable, 2);  // 2.5 -> 2
  f = ResolveFenceposts(Deploy(1, nullptr, nullptr));
  EXPECT_EQ(f.value().max_surge, 1);
  EXPECT_EQ(f.value().max_unavailable, 0);
  f = ResolveFenceposts(Deploy(7, 2, "50%"));
  EXPECT_EQ(f.value().max_surge, 2);
  EXPECT_EQ(f.value().max_unavailable, 3);
  EXPECT_FALSE(ResolveFenceposts(Deploy(3, "x", nullptr)).ok());
}

TEST(DeploymentRolloutTest, BothFencepostsZeroAfterRoundingMeansOneUnavailable) {
  auto f = ResolveFenceposts(Deploy(3, 0, "10%"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f.value().max_surge, 0);
  EXPECT_EQ(f.value().max_unavailable, 1);
  EXPECT_EQ(MaxUnavailable(Deploy(3, 0, "10%")), 1);
}

TEST(DeploymentRolloutTest, MaxUnavailableIsCappedAndZeroForRecreate) {
  EXPECT_EQ(MaxUnavailable(Deploy(2, 0, 5)), 2);
  EXPECT_EQ(MaxUnavailable(Deploy(0, 0, 5)), 0);
  json recreate = Deploy(4, nullptr, nullptr);
  recreate["spec"]["strategy"] = {{"type", "Recreate"}};
  EXPECT_EQ(MaxUnavailable(recreate), 0);
  EXPECT_EQ(MaxSurge(recreate), 0);
  EXPECT_EQ(NewReplicaSetReplicas(recreate, 4, 0), 4);
}

TEST(DeploymentRolloutTest, NewReplicaSetGrowsWithinSurge) {
  json d = Deploy(4, 1, 1);
  EXPECT_EQ(NewReplicaSetReplicas(d, 4, 0), 1);  // 4 old pods: 1 more allowed
  EXPECT_EQ(NewReplicaSetReplicas(d, 5, 1), 1);  // at replicas + surge
  EXPECT_EQ(NewReplicaSetReplicas(d, 4, 1), 2);
  EXPECT_EQ(NewReplicaSetReplicas(d, 0, 0), 4);  // never above replicas
  EXPECT_EQ(NewReplicaSetReplicas(Deploy(4, "50%", 0), 4, 0), 2);
}

TEST(DeploymentRolloutTest, OldReplicaSetsShrinkWithinUnavailable) {
  json d = Deploy(4, 1, 1);
  // New RS at 1 (not available yet), old at 4 all available: one may go.
  EXPECT_EQ(ScaleDownOldReplicaSets(d, {{4, 4}}, {1, 0}), std::vector<int64_t>({3}));
  // New RS at 2 with 1 available, old at 3 available: one more.
  EXPECT_EQ(ScaleDownOldReplicaSets(d, {{3, 3}}, {2, 1}), std::vector<int64_t>({2}));
  // maxUnavailable 0 and nothing new available yet: nothing goes.
  EXPECT_EQ(ScaleDownOldReplicaSets(Deploy(4, 2, 0), {{4, 4}}, {2, 0}), std::vector<int64_t>({4}));
  // Unavailable old pods go first, oldest ReplicaSet first, then available ones.
  EXPECT_EQ(ScaleDownOldReplicaSets(Deploy(4, 1, 1), {{2, 0}, {2, 2}}, {1, 1}), std::vector<int64_t>({0, 2}));
  EXPECT_EQ(ScaleDownOldReplicaSets(Deploy(4, 2, 2), {{2, 2}, {2, 2}}, {2, 2}), std::vector<int64_t>({0, 0}));
  EXPECT_EQ(ScaleDownOldReplicaSets(d, {{0, 0}}, {4, 4}), std::vector<int64_t>({0}));
}

TEST(DeploymentRolloutTest, ValidationRejectsBothZeroAndBadValues) {
  EXPECT_TRUE(ValidateRollingUpdate(Deploy(3, nullptr, nullptr)).ok());
  EXPECT_TRUE(ValidateRollingUpdate(Deploy(3, 0, "10%")).ok());  // valid: only the rounding gives 0
  auto zero = ValidateRollingUpdate(Deploy(3, 0, 0));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().code, 422);
  EXPECT_NE(zero.error().message.find("spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"),
            std::string::npos)
      << zero.error().message;
  EXPECT_FALSE(ValidateRollingUpdate(Deploy(3, "0%", "0%")).ok());
  EXPECT_FALSE(ValidateRollingUpdate(Deploy(3, -1, 1)).ok());
  EXPECT_FALSE(ValidateRollingUpdate(Deploy(3, 1, "150%")).ok());
  EXPECT_FALSE(ValidateRollingUpdate(Deploy(3, "ten", 1)).ok());
  json recreate = Deploy(3, 1, 1);
  recreate["spec"]["strategy"]["type"] = "Recreate";
  EXPECT_FALSE(ValidateRollingUpdate(recreate).ok());
  recreate["spec"]["strategy"].erase("rollingUpdate");
  EXPECT_TRUE(ValidateRollingUpdate(recreate).ok());
}

}  // namespace
}  // namespace kubeon::kubesim
