#include "apply/label_handshake.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeNode;
using testing::FakePod;
using testing::StepFixture;

const char* kNode = "/api/v1/nodes/a";

class LabelHandshakeTest : public StepFixture {
 protected:
  void SetUp() override {
    cluster().Put(kNode, FakeNode("a", 4, {{kMigConfigLabel, "all-disabled"}, {kMigConfigStateLabel, "success"}}));
    cluster().Put("/api/v1/namespaces/gpu-operator/configmaps/kubeon-mig-parted-config",
                  {{"metadata", {{"name", "kubeon-mig-parted-config"}}},
                   {"data", {{"config.yaml", testing::TestMigConfig("kubeon-1")}}}});
    cluster().Put("/api/v1/namespaces/gpu-operator/configmaps/kubeon-device-plugin-config",
                  {{"metadata", {{"name", "kubeon-device-plugin-config"}}},
                   {"data", {{"kubeon-ts-4", testing::TestTimeSlicingConfig(4)}}}});
  }
  json& Node() { return cluster().At(kNode); }
};

TEST_F(LabelHandshakeTest, MigClearsTheStateSetsTheLabelAndWaitsForSuccessAndDevices) {
  testing::PlayGpuOperator(cluster());
  StepJournal& j = Journal();
  Status s = SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"kubeon-1", "all-disabled"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cluster().writes, (std::vector<std::string>{"PUT /api/v1/nodes/a"}));  // state cleared in the same write
  EXPECT_EQ(Node()["metadata"]["labels"][kMigConfigLabel], "kubeon-1");
  EXPECT_EQ(Node()["status"]["allocatable"]["nvidia.com/mig-1g.5gb"], "14");
  // Already applied: nothing written.
  cluster().writes.clear();
  ASSERT_TRUE(SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"kubeon-1"}).ok());
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(LabelHandshakeTest, ALabelAlreadyAtItsTargetIsRemovedFirstSoMigManagerActs) {
  Node()["metadata"]["labels"][kMigConfigLabel] = "kubeon-1";
  Node()["metadata"]["labels"][kMigConfigStateLabel] = "failed";
  testing::PlayGpuOperator(cluster());
  StepJournal& j = Journal();
  ASSERT_TRUE(SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"kubeon-1"}).ok());
  EXPECT_EQ(cluster().writes, (std::vector<std::string>{"PUT /api/v1/nodes/a", "PUT /api/v1/nodes/a"}));
  EXPECT_EQ(Node()["metadata"]["labels"][kMigConfigStateLabel], "success");
}

TEST_F(LabelHandshakeTest, FailedIsAnErrorNamingTheOperatorNamespace) {
  testing::PlayGpuOperator(cluster(), "gpu-operator", "failed");
  StepJournal& j = Journal();
  Status s = SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"all-disabled"});
  EXPECT_EQ(s.message(), "mig-manager reported failed for kubeon-1 on node a (see its pod's log in gpu-operator)");
}

TEST_F(LabelHandshakeTest, NoSuccessWithinTheDeadlineIsAnError) {
  options_.mig_deadline = std::chrono::seconds(30);
  StepJournal& j = Journal();  // no operator: the state stays cleared
  Status s = SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"all-disabled"});
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "timed out after 30 s waiting for mig-manager to report success on node a");
}

TEST_F(LabelHandshakeTest, ADeadlineWhileMigManagerIsPendingSaysSo) {
  testing::PlayGpuOperator(cluster(), "gpu-operator", "pending");
  options_.hard_deadline = clock_.now + std::chrono::seconds(5);
  StepJournal& j = Journal();
  Status s = SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"all-disabled"});
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  EXPECT_EQ(s.message(), "hard deadline passed while waiting for mig-manager to report success on node a "
                         "(mig-manager is stuck in pending on node a: see its pod's log in gpu-operator)");
}

TEST_F(LabelHandshakeTest, ALabelSomeoneElseChangedIsAConflictAndNothingIsWritten) {
  Node()["metadata"]["labels"][kMigConfigLabel] = "all-1g.5gb";
  StepJournal& j = Journal();
  Status s = SetConfigLabel(j, "a", kMigConfigLabel, "kubeon-1", 4, {"kubeon-1", "all-disabled"});
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.message(), "label nvidia.com/mig.config of node a was changed by someone else: found \"all-1g.5gb\"");
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(LabelHandshakeTest, TimeSlicingWaitsForSharedDevicesAndRefusesWhileAPodHoldsAGpu) {
  testing::PlayGpuOperator(cluster());
  cluster().Put("/api/v1/namespaces/ml/pods/whole", FakePod("ml", "whole", "a"));
  StepJournal& j = Journal();
  Status s = SetConfigLabel(j, "a", kDevicePluginConfigLabel, "kubeon-ts-4", 4, {std::nullopt});
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.message(), "pod ml/whole still holds nvidia.com/gpu on node a: not changing its device-plugin config");
  cluster().objects.erase("/api/v1/namespaces/ml/pods/whole");
  ASSERT_TRUE(SetConfigLabel(j, "a", kDevicePluginConfigLabel, "kubeon-ts-4", 4, {std::nullopt}).ok());
  EXPECT_EQ(Node()["status"]["allocatable"]["nvidia.com/gpu.shared"], "16");
  // Removed again: the shared devices go.
  ASSERT_TRUE(SetConfigLabel(j, "a", kDevicePluginConfigLabel, std::nullopt, 4, {"kubeon-ts-4"}).ok());
  EXPECT_FALSE(Node()["metadata"]["labels"].contains(kDevicePluginConfigLabel));
  EXPECT_EQ(Node()["status"]["allocatable"]["nvidia.com/gpu.shared"], "0");
}

}  // namespace
}  // namespace kubeon::apply
