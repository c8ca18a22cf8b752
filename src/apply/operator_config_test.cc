#include "apply/operator_config.h"

#include <gtest/gtest.h>

namespace kubeon::apply {
namespace {

const char* kPlan = R"(version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  kubeon-0123456789:
    - devices: [0, 1, 2, 3]
      mig-enabled: true
      mig-devices:
        "1g.10gb": 2
        "3g.40gb": 1
    - devices: [4, 5, 6, 7]
      mig-enabled: false
)";

TEST(MergeMigConfig, KeepsEveryExistingConfigAndAddsTheNamedOne) {
  const std::string existing = R"(version: v1
mig-configs:
  custom-by-user:
    - devices: all
      mig-enabled: true
      mig-devices:
        "7g.40gb": 1
)";
  auto merged = MergeMigConfig(existing, kPlan, {"kubeon-0123456789"});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_TRUE(HasMigConfig(*merged, "custom-by-user"));
  EXPECT_TRUE(HasMigConfig(*merged, "kubeon-0123456789"));
  EXPECT_TRUE(HasMigConfig(*merged, "all-disabled"));
  auto user = ExpectedMigResources(*merged, "custom-by-user", 8);
  ASSERT_TRUE(user.ok());
  EXPECT_EQ((*user)["nvidia.com/mig-7g.40gb"], 8);
  // Merging again changes nothing.
  auto again = MergeMigConfig(*merged, kPlan, {"kubeon-0123456789"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *merged);
}

TEST(MergeMigConfig, EmptyConfigMapGetsTheNamedConfigs) {
  auto merged = MergeMigConfig("", kPlan, {"kubeon-0123456789"});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_TRUE(HasMigConfig(*merged, "kubeon-0123456789"));
  EXPECT_TRUE(HasMigConfig(*merged, "all-disabled"));
}

TEST(MergeMigConfig, RefusesAnEditedConfigOfTheSameName) {
  const std::string edited = R"(version: v1
mig-configs:
  kubeon-0123456789:
    - devices: all
      mig-enabled: false
)";
  auto merged = MergeMigConfig(edited, kPlan, {"kubeon-0123456789"});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("differs"), std::string::npos) << merged.status().message();
}

TEST(MergeMigConfig, NameMissingFromThePlanIsAnError) {
  auto merged = MergeMigConfig("", kPlan, {"kubeon-ffffffffff"});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.status().message().find("kubeon-ffffffffff"), std::string::npos);
}

TEST(ExpectedMigResources, CountsSlicesPerGpuAndWholeGpus) {
  auto r = ExpectedMigResources(kPlan, "kubeon-0123456789", 8);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)["nvidia.com/mig-1g.10gb"], 8);
  EXPECT_EQ((*r)["nvidia.com/mig-3g.40gb"], 4);
  EXPECT_EQ((*r)["nvidia.com/gpu"], 4);
  auto off = ExpectedMigResources(kPlan, "all-disabled", 2);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ((*off)["nvidia.com/gpu"], 2);
  EXPECT_FALSE(ExpectedMigResources(kPlan, "nope", 8).ok());
  EXPECT_FALSE(ExpectedMigResources("not: [yaml", "x", 8).ok());
}

TEST(TimeSlicingReplicas, ReadsReplicasOfNvidiaGpu) {
  auto r = TimeSlicingReplicas(
      "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n"
      "      - name: nvidia.com/gpu\n        replicas: 4\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 4);
  auto none = TimeSlicingReplicas("version: v1\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 1);
}

}  // namespace
}  // namespace kubeon::apply
