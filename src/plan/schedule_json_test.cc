// Tests for schedule_json.h: the streamed text (WriteStep, WriteSchedule) and
// the trees' dump(2) equal the text the schema had (kFullStepDump, ...); a step
// and a schedule with every field set survive the round trip; wrong types are
// errors naming the field.
#include "plan/schedule_json.h"

#include <gtest/gtest.h>

#include <string>

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
  s.labels_after["n1"] = {{"nvidia.com/mig.config", "kubeon-0123456789"}, {"a", "b"}};
  s.labels_after["n0"] = {};
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
  o.pdb_disruptions_allowed = -1;
  o.pdb_ok = false;
  o.gitops = "Argo CD";
  o.patch_json = R"({"spec":{"a":"q\"uote\\ \n"}})";
  o.target_nodes = {"n1"};
  s.owners.push_back(o);
  s.owners.push_back(StepOwnerMove{});
  s.disrupted.push_back({"ml/bare", "Pod/bare", "deleted \"why\"\t\x01 gr\xC3\xBC\xC3\x9F \xE2\x86\x92"});
  s.needs.push_back({"nvidia.com/gpu", 1, {"n3"}, "free before the migration"});
  s.needs.push_back({"nvidia.com/mig-1g.10gb", 0, {}, "freed by step 1"});
  s.nodes_freed = {"n4"};
  s.gpus_freed = -5;
  s.monthly_savings_usd = 1234.5;
  s.isolation = "MIG";
  s.flags = {"a flag", "back\\slash\x1f"};
  s.estimated_seconds = 321;
  return s;
}

// A schedule with every field of its own set, no steps.
Schedule FullSchedule() {
  Schedule s;
  s.max_nodes_per_pool = 2;
  s.capacity.push_back({"n1", "nvidia.com/gpu", 8, 3, 5});
  s.feasible = false;
  s.blocked_pools["A100-80GB"] = "its evicted pods need 4 spare whole A100-80GB GPU(s) to run on meanwhile";
  s.spare_gpus_needed["A100-80GB"] = 4;
  s.spare_gpus_needed["H100"] = 0;
  s.left_out = {"ml/pinned: pinned"};
  return s;
}

// What the hand-built trees of StepToJson / ScheduleToJson printed with
// dump(2) before the schema was written once for both writers (escapes,
// UTF-8, negative numbers, a whole double, empty maps and lists included).
constexpr const char* kFullStepDump = R"json({
  "content_hash": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "disrupted": [
    {
      "owner": "Pod/bare",
      "pod": "ml/bare",
      "why": "deleted \"why\"\t\u0001 grüß →"
    }
  ],
  "estimated_seconds": 321,
  "evictions": [
    {
      "comes_back": true,
      "count": 1,
      "grace_period_seconds": 45,
      "owner": "Deployment/a",
      "pod": "ml/a-1",
      "resource": "nvidia.com/gpu",
      "runs_meanwhile": "n3"
    },
    {
      "comes_back": false,
      "count": 2,
      "grace_period_seconds": 30,
      "owner": "Pod/bare",
      "pod": "ml/bare",
      "resource": "nvidia.com/gpu",
      "runs_meanwhile": ""
    }
  ],
  "flags": [
    "a flag",
    "back\\slash\u001f"
  ],
  "gpu_model": "A100-80GB",
  "gpus_freed": -5,
  "id": "aaaaaaaa",
  "index": 2,
  "isolation": "MIG",
  "labels_after": {
    "n0": {},
    "n1": {
      "a": "b",
      "nvidia.com/mig.config": "kubeon-0123456789"
    }
  },
  "layout_after": {
    "n1": "GPU0: MIG 7x1g.10gb; GPU1-7: whole (MIG off)"
  },
  "layout_before": {
    "n1": "8 whole GPUs (MIG off), 3 in use"
  },
  "method": "mig",
  "monthly_savings_usd": 1234.5,
  "needs": [
    {
      "count": 1,
      "nodes": [
        "n3"
      ],
      "resource": "nvidia.com/gpu",
      "why": "free before the migration"
    },
    {
      "count": 0,
      "nodes": [],
      "resource": "nvidia.com/mig-1g.10gb",
      "why": "freed by step 1"
    }
  ],
  "nodes": [
    "n1",
    "n2"
  ],
  "nodes_freed": [
    "n4"
  ],
  "owners": [
    {
      "from_per_pod": 1,
      "from_resource": "nvidia.com/gpu",
      "gitops": "Argo CD",
      "max_surge": 0,
      "max_unavailable": 3,
      "owner": {
        "kind": "Deployment",
        "name": "a",
        "namespace": "ml"
      },
      "patch_json": "{\"spec\":{\"a\":\"q\\\"uote\\\\ \\n\"}}",
      "pdb": "ml/a",
      "pdb_disruptions_allowed": -1,
      "pdb_ok": false,
      "replicas": 3,
      "strategy": "Recreate",
      "target_nodes": [
        "n1"
      ],
      "to_per_pod": 1,
      "to_resource": "nvidia.com/mig-1g.10gb"
    },
    {
      "from_per_pod": 0,
      "from_resource": "",
      "gitops": "",
      "max_surge": 0,
      "max_unavailable": 0,
      "owner": {
        "kind": "",
        "name": "",
        "namespace": ""
      },
      "patch_json": "",
      "pdb": "",
      "pdb_disruptions_allowed": -1,
      "pdb_ok": true,
      "replicas": 0,
      "strategy": "",
      "target_nodes": [],
      "to_per_pod": 0,
      "to_resource": ""
    }
  ]
})json";

constexpr const char* kEmptyStepDump = R"json({
  "content_hash": "",
  "disrupted": [],
  "estimated_seconds": 0,
  "evictions": [],
  "flags": [],
  "gpu_model": "",
  "gpus_freed": 0,
  "id": "",
  "index": 0,
  "isolation": "",
  "labels_after": {},
  "layout_after": {},
  "layout_before": {},
  "method": "",
  "monthly_savings_usd": 0.0,
  "needs": [],
  "nodes": [],
  "nodes_freed": [],
  "owners": []
})json";

constexpr const char* kFullScheduleDump = R"json({
  "blocked_pools": {
    "A100-80GB": "its evicted pods need 4 spare whole A100-80GB GPU(s) to run on meanwhile"
  },
  "capacity": [
    {
      "allocatable": 8,
      "free": 5,
      "node": "n1",
      "requested": 3,
      "resource": "nvidia.com/gpu"
    }
  ],
  "feasible": false,
  "left_out": [
    "ml/pinned: pinned"
  ],
  "max_nodes_per_pool": 2,
  "spare_gpus_needed": {
    "A100-80GB": 4,
    "H100": 0
  },
  "steps": []
})json";

constexpr const char* kEmptyScheduleDump = R"json({
  "blocked_pools": {},
  "capacity": [],
  "feasible": true,
  "left_out": [],
  "max_nodes_per_pool": 1,
  "spare_gpus_needed": {},
  "steps": []
})json";

std::string Written(const ScheduleStep& s) {
  std::string out;
  model::JsonWriter w(&out);
  WriteStep(w, s);
  EXPECT_TRUE(w.Complete());
  return out;
}

std::string Written(const Schedule& s) {
  std::string out;
  model::JsonWriter w(&out);
  WriteSchedule(w, s);
  EXPECT_TRUE(w.Complete());
  return out;
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

TEST(ScheduleJson, WriterAndTreeGiveTheSameText) {
  EXPECT_EQ(Written(FullStep()), kFullStepDump);
  EXPECT_EQ(StepToJson(FullStep()).dump(2), kFullStepDump);
  EXPECT_EQ(Written(ScheduleStep{}), kEmptyStepDump);
  EXPECT_EQ(StepToJson(ScheduleStep{}).dump(2), kEmptyStepDump);
  EXPECT_EQ(Written(FullSchedule()), kFullScheduleDump);
  EXPECT_EQ(ScheduleToJson(FullSchedule()).dump(2), kFullScheduleDump);
  EXPECT_EQ(Written(Schedule{}), kEmptyScheduleDump);
  EXPECT_EQ(ScheduleToJson(Schedule{}).dump(2), kEmptyScheduleDump);
}

TEST(ScheduleJson, TreeKeepsNumberTypes) {
  // As the hand-built tree had them: signed integers, a double even when whole.
  const nlohmann::json j = StepToJson(FullStep());
  EXPECT_TRUE(j["index"].is_number_integer() && !j["index"].is_number_unsigned());
  EXPECT_TRUE(j["owners"][0]["pdb_disruptions_allowed"].is_number_integer());
  EXPECT_EQ(j["owners"][0]["pdb_disruptions_allowed"], -1);
  EXPECT_TRUE(StepToJson(ScheduleStep{})["monthly_savings_usd"].is_number_float());
  EXPECT_TRUE(ScheduleToJson(FullSchedule())["spare_gpus_needed"]["H100"].is_number_integer());
}

TEST(ScheduleJson, WrittenInsideADocument) {
  // Nested one level deeper, the streamed schedule and its steps are indented as the tree's.
  Schedule s = FullSchedule();
  s.steps = {FullStep(), ScheduleStep{}};
  std::string out;
  model::JsonWriter w(&out);
  w.BeginObject();
  w.Key("schedule");
  WriteSchedule(w, s);
  w.Key("steps");
  w.BeginArray();
  WriteStep(w, FullStep());
  w.EndArray();
  w.EndObject();
  EXPECT_TRUE(w.Complete());
  const nlohmann::json expected = {{"schedule", ScheduleToJson(s)},
                                   {"steps", nlohmann::json::array({StepToJson(FullStep())})}};
  EXPECT_EQ(out, expected.dump(2));
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
  Schedule s = FullSchedule();
  s.steps = {FullStep()};
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
