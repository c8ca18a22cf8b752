#include "apply/object_fields.h"

#include <gtest/gtest.h>

namespace kubeon::apply {
namespace {

using json = nlohmann::json;

TEST(Quantity, IntegersOnly) {
  EXPECT_EQ(Quantity(json("4")), 4);
  EXPECT_EQ(Quantity(json(7)), 7);
  EXPECT_EQ(Quantity(json("500m")), 0);
  EXPECT_EQ(Quantity(json(nullptr)), 0);
}

TEST(PodGpuRequests, RequestsElseLimitsOfEveryGpuResource) {
  json pod = json::parse(R"({"spec": {
    "containers": [
      {"name": "a", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}}},
      {"name": "b", "resources": {"limits": {"nvidia.com/mig-1g.5gb": "2"}}},
      {"name": "c", "resources": {"requests": {"nvidia.com/gpu.shared": "1"}, "limits": {"nvidia.com/gpu.shared": "3"}}}],
    "initContainers": [{"name": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}})");
  auto r = PodGpuRequests(pod);
  EXPECT_EQ(r, (std::map<std::string, int64_t>{
                   {"nvidia.com/gpu", 2}, {"nvidia.com/gpu.shared", 1}, {"nvidia.com/mig-1g.5gb", 2}}));
  EXPECT_TRUE(PodGpuRequests(json::parse(R"({"spec": {"containers": [{"name": "x"}]}})")).empty());
}

TEST(StrategicMerge, ContainersByNameNullRemovesOtherListsReplace) {
  json deploy = json::parse(R"({"spec": {"template": {"spec": {
    "containers": [
      {"name": "side", "image": "s"},
      {"name": "main", "image": "m", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"},
                                                   "limits": {"nvidia.com/gpu": "1"}}}],
    "tolerations": [{"key": "a", "operator": "Exists"}]}}}})");
  json patch = json::parse(R"({"spec": {"template": {"spec": {
    "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": null, "nvidia.com/mig-1g.5gb": "1"},
                                                  "limits": {"nvidia.com/gpu": null, "nvidia.com/mig-1g.5gb": "1"}}}],
    "tolerations": [{"key": "b", "operator": "Exists"}],
    "affinity": {"nodeAffinity": {"x": null, "y": 1}}}}}})");
  StrategicMerge(deploy, patch);
  const json& spec = deploy["spec"]["template"]["spec"];
  ASSERT_EQ(spec["containers"].size(), 2u);
  EXPECT_EQ(spec["containers"][0], json::parse(R"({"name": "side", "image": "s"})"));
  EXPECT_EQ(spec["containers"][1]["image"], "m");
  EXPECT_EQ(spec["containers"][1]["resources"]["requests"],
            json::parse(R"({"cpu": "1", "nvidia.com/mig-1g.5gb": "1"})"));
  EXPECT_EQ(spec["containers"][1]["resources"]["limits"], json::parse(R"({"nvidia.com/mig-1g.5gb": "1"})"));
  EXPECT_EQ(spec["tolerations"], json::parse(R"([{"key": "b", "operator": "Exists"}])"));
  EXPECT_EQ(spec["affinity"], json::parse(R"({"nodeAffinity": {"y": 1}})"));  // no null stored
}

TEST(FieldPath, ReadableForPeople) {
  EXPECT_EQ(FieldPath("/spec/containers/0/resources/requests/nvidia.com~1gpu"),
            ".spec.containers[0].resources.requests[\"nvidia.com/gpu\"]");
  EXPECT_EQ(FieldPath("/metadata/labels/a~0b"), ".metadata.labels.a~b");
  EXPECT_EQ(FieldPath(""), "");
}

TEST(FirstDrift, OnlyTheFieldsTheChangeSet) {
  json before = json::parse(R"({"spec": {"r": {"nvidia.com/gpu": "1"}, "image": "a"}})");
  json after = json::parse(R"({"spec": {"r": {"nvidia.com/mig-1g.5gb": "1"}, "image": "a"}})");
  // Someone changed a field the change did not set: no drift.
  json current = json::parse(R"({"spec": {"r": {"nvidia.com/mig-1g.5gb": "1"}, "image": "b"}})");
  EXPECT_EQ(FirstDrift(before, after, current), "");
  // Someone changed the request the change set.
  current = json::parse(R"({"spec": {"r": {"nvidia.com/mig-2g.10gb": "1"}, "image": "a"}})");
  EXPECT_EQ(FirstDrift(before, after, current), ".spec.r[\"nvidia.com/mig-1g.5gb\"]: expected \"1\", found (absent)");
  // The field the change removed came back.
  current = json::parse(R"({"spec": {"r": {"nvidia.com/gpu": "1", "nvidia.com/mig-1g.5gb": "1"}, "image": "a"}})");
  EXPECT_EQ(FirstDrift(before, after, current), ".spec.r[\"nvidia.com/gpu\"]: expected (absent), found \"1\"");
}

TEST(FirstDrift, AnAppendedListElementIsCheckedAtItsIndex) {
  const json tol = json::parse(R"({"key": "gpu.kubeon.io/step", "operator": "Equal", "value": "5e1c0a77"})");
  json before = json::parse(R"({"spec": {"tolerations": [{"key": "dedicated", "operator": "Exists"}]}})");
  json after = before;
  after["spec"]["tolerations"].push_back(tol);
  json current = after;
  EXPECT_EQ(FirstDrift(before, after, current), "");
  current["spec"]["tolerations"][1]["value"] = "0badcafe";
  EXPECT_EQ(FirstDrift(before, after, current),
            ".spec.tolerations[1]: expected " + tol.dump() + ", found " + current["spec"]["tolerations"][1].dump());
  current["spec"]["tolerations"].erase(1);
  EXPECT_EQ(FirstDrift(before, after, current), ".spec.tolerations[1]: expected " + tol.dump() + ", found (absent)");
}

TEST(RestoreFields, PutsBackOnlyWhatTheChangeSet) {
  const json before = json::parse(R"({"spec": {"containers": [{"name": "main", "image": "a",
      "resources": {"limits": {"nvidia.com/gpu": "1"}}}], "tolerations": [{"key": "a", "operator": "Exists"}]}})");
  json after = before;
  after["spec"]["containers"][0]["resources"]["limits"] = json::parse(R"({"nvidia.com/mig-1g.5gb": "1"})");
  after["spec"]["tolerations"].push_back(
      json::parse(R"({"key": "gpu.kubeon.io/step", "operator": "Equal", "value": "5e1c0a77"})"));
  // kubectl set env deployment/x FOO=bar, and a toleration appended after the change's.
  json current = after;
  current["spec"]["containers"][0]["env"] = json::parse(R"([{"name": "FOO", "value": "bar"}])");
  current["spec"]["tolerations"].push_back(json::parse(R"({"key": "b", "operator": "Exists"})"));
  auto back = RestoreFields(before, after, current);
  ASSERT_TRUE(back.has_value());
  json want = before;
  want["spec"]["containers"][0]["env"] = current["spec"]["containers"][0]["env"];
  want["spec"]["tolerations"].push_back(current["spec"]["tolerations"][2]);
  EXPECT_EQ(*back, want);
  // Unchanged since the change: exactly the template from before.
  EXPECT_EQ(RestoreFields(before, after, after), before);
  // A field the change set was changed: not restored.
  current["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/mig-1g.5gb"] = "2";
  EXPECT_EQ(RestoreFields(before, after, current), std::nullopt);
}

TEST(RestoreFields, AListTheChangeAddedWholeMustBeAsItLeftIt) {
  const json before = json::parse(R"({"spec": {"image": "a"}})");
  const json after = json::parse(R"({"spec": {"image": "a", "tolerations": [{"key": "gpu.kubeon.io/step"}]}})");
  json current = after;
  current["spec"]["image"] = "b";
  EXPECT_EQ(RestoreFields(before, after, current), json::parse(R"({"spec": {"image": "b"}})"));
  current["spec"]["tolerations"].push_back(json::parse(R"({"key": "b"})"));
  EXPECT_EQ(RestoreFields(before, after, current), std::nullopt);
  EXPECT_NE(FirstDrift(before, after, current), "");
}

TEST(Accessors, NeverThrowOnMissingOrMistypedFields) {
  const json pod = json::parse(R"({"metadata": {"namespace": "ml", "name": "p", "labels": {"a": "1"}, "annotations": 7},
                                   "status": {"phase": "Failed"}})");
  EXPECT_EQ(Labels(pod), json::parse(R"({"a": "1"})"));
  EXPECT_EQ(Annotations(pod), json::object());
  EXPECT_EQ(Labels(json(nullptr)), json::object());
  EXPECT_EQ(OptStr(Labels(pod), "a"), "1");
  EXPECT_EQ(OptStr(json::parse(R"({"a": 1})"), "a"), std::nullopt);
  EXPECT_EQ(OptStr(json::array(), "a"), std::nullopt);
  EXPECT_TRUE(IsTerminal(pod));
  EXPECT_FALSE(IsTerminal(json::parse(R"({"status": {"phase": "Running"}})")));
  EXPECT_FALSE(IsTerminal(json::parse(R"({"status": 3})")));
  EXPECT_EQ(PodName(pod), "ml/p");
  EXPECT_EQ(PodName(json::object()), "/");
}

TEST(Paths, NodesAndOwnersByKind) {
  EXPECT_EQ(NodePath("gpu-1"), "/api/v1/nodes/gpu-1");
  EXPECT_EQ(OwnerPath("Deployment", "ml", "a"), "/apis/apps/v1/namespaces/ml/deployments/a");
  EXPECT_EQ(OwnerPath("StatefulSet", "ml", "a"), "/apis/apps/v1/namespaces/ml/statefulsets/a");
  EXPECT_EQ(OwnerPath("ReplicaSet", "ml", "a"), "/apis/apps/v1/namespaces/ml/replicasets/a");
}

}  // namespace
}  // namespace kubeon::apply
