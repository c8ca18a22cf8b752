// Tests for schedule_json.h: a step and a schedule with every field set
// survive the round trip; wrong types are errors naming the field.
#include "plan/schedule_json.h"

#include <gtest/gtest.h>

namespace kubeon::plan {
namespace {

ScheduleStep FullStep() {
  ScheduleStep s;
  s.index = 2;
  s.content_hash = std::string(64, 'a');
  s.id = "aaaaaaaa";
  s.gpu_model = "A100-80GB";
  s.method = "mig";
  s.nodes = {"n1", "n2"};
  s.labels_after["n1"] = {{"nvidia.com/mig.config", "kubeon-0123456789"}};
  s.layout_before["n1"] = "8 whole GPUs (MIG off), 3 in use";
  s.layout_after["n1"] = "GPU0: MIG 7x1g.10gb; GPU1-7: whole (MIG off)";
  s.evictions.push_back({"ml/a-1", "Deployment/a", "nvidia.com/gpu", 1, 45, "n3", true});
  s.evictions.push_back({"ml/bare", "Pod/bare", "nvidia.com/gpu", 2, 30, "", false});
  StepOwnerMove o;
  o.owner = {"ml", "Deployment", "a"};
  o.replicas = 3;
  o.from_resource = "nvidia.com/gpu";
  o.from_per_pod = 1;
  o.to_resource = "nvidia.com/mig-1g.10gb";
  o.to_per_pod = 1;
  o.strategy = "Recreate";
  o.max_surge = 0;
  o.max_unavailable = 3;
  o.pdb = "ml/a";
  o.pdb_disruptions_allowed = 0;
  o.pdb_ok = false;
  o.gitops = "Argo CD";
  o.patch_json = R"({"spec":{}})";
  o.target_nodes = {"n1"};
  s.owners.push_back(o);
  s.disrupted.push_back({"ml/bare", "Pod/bare", "deleted"});
  s.needs.push_back({"nvidia.com/gpu", 1, {"n3"}, "free before the migration"});
  s.nodes_freed = {"n4"};
  s.gpus_freed = 5;
  s.monthly_savings_usd = 1234.5;
  s.isolation = "MIG";
  s.flags = {"a flag"};
  s.estimated_seconds = 321;
  return s;
}

void ExpectSameStep(const ScheduleStep& a, const ScheduleStep& b) {
  EXPECT_EQ(StepToJson(a).dump(), StepToJson(b).dump());
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.labels_after, b.labels_after);
  ASSERT_EQ(a.evictions.size(), b.evictions.size());
  EXPECT_EQ(a.evictions[1].comes_back, b.evictions[1].comes_back);
  EXPECT_EQ(a.evictions[0].grace_period_seconds, b.evictions[0].grace_period_seconds);
  ASSERT_EQ(a.owners.size(), b.owners.size());
  EXPECT_EQ(a.owners[0].owner, b.owners[0].owner);
  EXPECT_EQ(a.owners[0].pdb_ok, b.owners[0].pdb_ok);
  EXPECT_EQ(a.owners[0].pdb_disruptions_allowed, b.owners[0].pdb_disruptions_allowed);
  EXPECT_EQ(a.needs[0].nodes, b.needs[0].nodes);
  EXPECT_DOUBLE_EQ(a.monthly_savings_usd, b.monthly_savings_usd);
  EXPECT_EQ(a.estimated_seconds, b.estimated_seconds);
}

TEST(ScheduleJson, StepRoundTrip) {
  const ScheduleStep s = FullStep();
  const nlohmann::json j = StepToJson(s);
  EXPECT_EQ(j["owners"][0]["owner"], (nlohmann::json{{"namespace", "ml"}, {"kind", "Deployment"}, {"name", "a"}}));
  EXPECT_EQ(j["evictions"][0]["runs_meanwhile"], "n3");
  Result<ScheduleStep> back = StepFromJson(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSameStep(s, *back);
}

TEST(ScheduleJson, ScheduleRoundTrip) {
  Schedule s;
  s.max_nodes_per_pool = 2;
  s.capacity.push_back({"n1", "nvidia.com/gpu", 8, 3, 5});
  s.steps.push_back(FullStep());
  s.feasible = false;
  s.spare_gpus_needed["A100-80GB"] = 4;
  s.left_out = {"ml/pinned: pinned"};
  Result<Schedule> back = ScheduleFromJson(nlohmann::json::parse(ScheduleToJson(s).dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ScheduleToJson(*back).dump(), ScheduleToJson(s).dump());
  EXPECT_FALSE(back->feasible);
  EXPECT_EQ(back->spare_gpus_needed.at("A100-80GB"), 4);
  EXPECT_EQ(back->capacity[0].free, 5);
}

TEST(ScheduleJson, AbsentFieldsKeepDefaults) {
  Result<ScheduleStep> s = StepFromJson(nlohmann::json{{"id", "abcd0123"}});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->id, "abcd0123");
  EXPECT_TRUE(s->evictions.empty());
}

TEST(ScheduleJson, WrongTypesNameTheField) {
  nlohmann::json j = StepToJson(FullStep());
  j["evictions"][1]["count"] = "two";
  Result<ScheduleStep> s = StepFromJson(j);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "evictions[1].count: expected an integer");
  j = StepToJson(FullStep());
  j["owners"][0]["owner"]["kind"] = 3;
  EXPECT_EQ(StepFromJson(j).status().message(), "owners[0].owner.kind: expected a string");
  j = StepToJson(FullStep());
  j["labels_after"]["n1"]["x"] = true;
  EXPECT_EQ(StepFromJson(j).status().message(), "labels_after.n1.x: expected a string");
  EXPECT_FALSE(StepFromJson(nlohmann::json::array()).ok());
}

}  // namespace
}  // namespace kubeon::plan
