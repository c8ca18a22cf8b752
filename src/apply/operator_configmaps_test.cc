#include "apply/operator_configmaps.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::StepFixture;

const char* kMigCm = "/api/v1/namespaces/gpu-operator/configmaps/kubeon-mig-parted-config";
const char* kDpCm = "/api/v1/namespaces/gpu-operator/configmaps/kubeon-device-plugin-config";

class OperatorConfigMapsTest : public StepFixture {};

TEST_F(OperatorConfigMapsTest, CreatesTheMigConfigMapWithTheConfigsTheLabelsName) {
  artifacts_.mig_parted_config = testing::TestMigConfig("kubeon-1");
  StepJournal& j = Journal();
  bool changed = false;
  ASSERT_TRUE(WriteConfigMaps(j, {{"a", {{kMigConfigLabel, "kubeon-1"}}}}, &changed).ok());
  EXPECT_TRUE(changed);
  const std::string yaml = cluster().At(kMigCm)["data"]["config.yaml"];
  EXPECT_TRUE(HasMigConfig(yaml, "kubeon-1"));
  EXPECT_EQ(cluster().At(kMigCm)["metadata"]["labels"]["app.kubernetes.io/managed-by"], "kubeon-gpu");
  // Already there: nothing written.
  cluster().writes.clear();
  ASSERT_TRUE(WriteConfigMaps(j, {{"a", {{kMigConfigLabel, "kubeon-1"}}}}, &changed).ok());
  EXPECT_FALSE(changed);
  EXPECT_TRUE(cluster().writes.empty());
  auto expected = ExpectedFor(j, kMigConfigLabel, "kubeon-1", 4);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_EQ(*expected, (std::map<std::string, int64_t>{{"nvidia.com/gpu", 2}, {"nvidia.com/mig-1g.5gb", 14}}));
}

TEST_F(OperatorConfigMapsTest, AMissingConfigWithoutThePlansIsInvalid) {
  StepJournal& j = Journal();
  bool changed = false;
  Status s = WriteConfigMaps(j, {{"a", {{kMigConfigLabel, "kubeon-1"}}}}, &changed);
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.message(), "ConfigMap gpu-operator/kubeon-mig-parted-config lacks MIG config \"kubeon-1\" and the plan "
                         "has no mig-parted config");
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(OperatorConfigMapsTest, DevicePluginKeysAreAddedNeverChanged) {
  artifacts_.device_plugin_configs = {{"kubeon-ts-4", testing::TestTimeSlicingConfig(4)}};
  cluster().Put(kDpCm, {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                        {"metadata", {{"name", "kubeon-device-plugin-config"}, {"namespace", "gpu-operator"}}},
                        {"data", {{"default", "version: v1\n"}}}});
  StepJournal& j = Journal();
  bool changed = false;
  ASSERT_TRUE(WriteConfigMaps(j, {{"l4", {{kDevicePluginConfigLabel, "kubeon-ts-4"}}}}, &changed).ok());
  EXPECT_TRUE(changed);
  EXPECT_EQ(cluster().At(kDpCm)["data"]["default"], "version: v1\n");
  EXPECT_EQ(cluster().At(kDpCm)["data"]["kubeon-ts-4"], testing::TestTimeSlicingConfig(4));
  auto expected = ExpectedFor(j, kDevicePluginConfigLabel, "kubeon-ts-4", 2);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(expected->at("nvidia.com/gpu.shared"), 8);
  EXPECT_EQ(ExpectedFor(j, kDevicePluginConfigLabel, std::nullopt, 2)->at("nvidia.com/gpu.shared"), 0);
  // Edited by hand: refused.
  cluster().At(kDpCm)["data"]["kubeon-ts-4"] = "edited";
  Status s = WriteConfigMaps(j, {{"l4", {{kDevicePluginConfigLabel, "kubeon-ts-4"}}}}, &changed);
  EXPECT_EQ(s.code(), StatusCode::kConflict);
}

}  // namespace
}  // namespace kubeon::apply
