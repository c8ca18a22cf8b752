#include "apply/step_goal.h"

#include <gtest/gtest.h>

#include "apply/step_context.h"

namespace kubeon::apply {
namespace {

TEST(StepGoal, NodesTakeOnlyTheConfigLabelsOwnersTheirPatchAndTheToleration) {
  plan::ScheduleStep step;
  step.id = "5e1c0a77";
  step.nodes = {"a100-1", "l4-1"};
  step.labels_after["a100-1"] = {{"nvidia.com/mig.config", "kubeon-1"}, {"nvidia.com/gpu.product", "A100"}};
  step.labels_after["l4-1"] = {{"nvidia.com/device-plugin.config", "kubeon-ts-4"}};
  step.needs = {{"nvidia.com/gpu", 2, {}, "freed by step 1"}};
  step.evictions.resize(2);
  step.evictions[0].pod = "ml/b";
  step.evictions[1].pod = "ml/a";
  plan::StepOwnerMove o;
  o.owner.kind = "Deployment";
  o.owner.namespace_ = "ml";
  o.owner.name = "infer";
  o.patch_json = R"({"spec":{"replicas":2}})";
  o.gitops = "argocd";
  step.owners.push_back(o);
  const Goal g = StepGoal(step);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].labels, (LabelValues{{"nvidia.com/mig.config", "kubeon-1"}}));
  EXPECT_EQ(g.nodes[1].labels, (LabelValues{{"nvidia.com/device-plugin.config", "kubeon-ts-4"}}));
  EXPECT_EQ(g.eviction_rank, (std::map<std::string, size_t>{{"ml/b", 0}, {"ml/a", 1}}));
  ASSERT_EQ(g.owners.size(), 1u);
  EXPECT_EQ(*g.owners[0].patch, nlohmann::json::parse(o.patch_json));
  EXPECT_EQ(g.owners[0].change, "5e1c0a77");
  EXPECT_TRUE(g.owners[0].add_toleration);
  EXPECT_EQ(g.owners[0].gitops, "argocd");
  EXPECT_TRUE(g.reserve);
  EXPECT_FALSE(g.owners_first);
  EXPECT_EQ(g.needs.size(), 1u);
}

TEST(StepGoal, APatchThatIsNotAnObjectPatchesNothing) {
  plan::ScheduleStep step;
  plan::StepOwnerMove o;
  o.patch_json = "[1, 2]";
  step.owners.push_back(o);
  EXPECT_EQ(*StepGoal(step).owners[0].patch, nlohmann::json::object());
}

TEST(PriorTarget, AnEmptyOrAbsentMigConfigGoesBackToAllDisabled) {
  NodeUndo u;
  EXPECT_EQ(PriorTarget(kMigConfigLabel, u), "all-disabled");
  u.prior.labels[kMigConfigLabel] = std::nullopt;
  EXPECT_EQ(PriorTarget(kMigConfigLabel, u), "all-disabled");
  u.prior.labels[kMigConfigLabel] = "";
  EXPECT_EQ(PriorTarget(kMigConfigLabel, u), "all-disabled");
  u.prior.labels[kMigConfigLabel] = "all-1g.10gb";
  EXPECT_EQ(PriorTarget(kMigConfigLabel, u), "all-1g.10gb");
  // Other labels go back as they were, absent included.
  EXPECT_EQ(PriorTarget(kDevicePluginConfigLabel, u), std::nullopt);
  u.prior.labels[kDevicePluginConfigLabel] = "default";
  EXPECT_EQ(PriorTarget(kDevicePluginConfigLabel, u), "default");
}

TEST(RestoreGoal, TheTemplateAndAnnotationFromBefore) {
  OwnerUndo o;
  o.kind = "StatefulSet";
  o.namespace_ = "ml";
  o.name = "db";
  o.template_before = {{"spec", {{"containers", nlohmann::json::array()}}}};
  o.annotation_before = "0ldc4a9e";
  const OwnerGoal g = RestoreGoal(o);
  EXPECT_EQ(g.Display(), "StatefulSet ml/db");
  EXPECT_EQ(*g.template_, o.template_before);
  EXPECT_FALSE(g.patch);
  EXPECT_EQ(g.change, "0ldc4a9e");
  EXPECT_FALSE(g.add_toleration);
}

}  // namespace
}  // namespace kubeon::apply
