// Tests for patch.h: JSON merge patch, strategic merge patch (merge keys,
// directives, deletion) and JSON patch.
#include "patch.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

const json kPod = json::parse(R"({
  "metadata": {"name": "p", "labels": {"app": "a", "tier": "t"}, "finalizers": ["x"]},
  "spec": {
    "unschedulable": true,
    "containers": [
      {"name": "main", "image": "img:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
       "resources": {"limits": {"nvidia.com/gpu": "1"}}},
      {"name": "side", "image": "side:1"}],
    "tolerations": [{"key": "k", "operator": "Exists"}]
  }})");

json Strategic(const std::string& patch) {
  auto r = ApplyPatch(PatchType::kStrategicMerge, kPod, patch);
  EXPECT_TRUE(r.ok()) << patch << ": " << r.error().message;
  return r.ok() ? r.value() : json();
}

TEST(PatchTypeTest, ContentTypes) {
  EXPECT_EQ(PatchTypeFromContentType("application/merge-patch+json"), PatchType::kMerge);
  EXPECT_EQ(PatchTypeFromContentType("application/strategic-merge-patch+json; charset=utf-8"), PatchType::kStrategicMerge);
  EXPECT_EQ(PatchTypeFromContentType("application/json-patch+json"), PatchType::kJsonPatch);
  EXPECT_FALSE(PatchTypeFromContentType("application/apply-patch+yaml").has_value());
  EXPECT_FALSE(PatchTypeFromContentType("application/json").has_value());
}

TEST(MergePatchTest, NullDeletesAndListsReplace) {
  auto r = ApplyPatch(PatchType::kMerge, kPod,
                      R"({"metadata": {"labels": {"tier": null, "new": "v"}}, "spec": {"containers": [{"name": "only"}]}})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()["metadata"]["labels"], json::parse(R"({"app": "a", "new": "v"})"));
  EXPECT_EQ(r.value()["spec"]["containers"].size(), 1u);  // RFC 7386: lists are replaced
  EXPECT_EQ(r.value()["spec"]["unschedulable"], true);
}

TEST(MergePatchTest, RejectsNonObjectsAndBadJson) {
  EXPECT_EQ(ApplyPatch(PatchType::kMerge, kPod, "[1]").error().code, 400);
  EXPECT_EQ(ApplyPatch(PatchType::kMerge, kPod, "{nope").error().code, 400);
}

TEST(StrategicMergePatchTest, ContainersMergeByName) {
  json r = Strategic(R"({"spec": {"containers": [{"name": "main", "image": "img:2",
      "resources": {"limits": {"nvidia.com/gpu": null, "nvidia.com/mig-1g.10gb": "1"}}}]}})");
  ASSERT_EQ(r["spec"]["containers"].size(), 2u);
  EXPECT_EQ(r["spec"]["containers"][0]["image"], "img:2");
  EXPECT_EQ(r["spec"]["containers"][0]["resources"]["limits"], json::parse(R"({"nvidia.com/mig-1g.10gb": "1"})"));
  EXPECT_EQ(r["spec"]["containers"][0]["env"].size(), 2u);  // untouched nested list
  EXPECT_EQ(r["spec"]["containers"][1]["image"], "side:1");
}

TEST(StrategicMergePatchTest, NewElementsAreAppendedAndNestedEnvMerged) {
  json r = Strategic(R"({"spec": {"containers": [{"name": "main", "env": [{"name": "B", "value": "20"}, {"name": "C", "value": "3"}]},
                                                   {"name": "third", "image": "t:1"}]}})");
  ASSERT_EQ(r["spec"]["containers"].size(), 3u);
  EXPECT_EQ(r["spec"]["containers"][2]["name"], "third");
  json env = r["spec"]["containers"][0]["env"];
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(env[1]["value"], "20");
  EXPECT_EQ(env[2]["name"], "C");
}

TEST(StrategicMergePatchTest, DeleteDirectiveAndNull) {
  json r = Strategic(R"({"spec": {"unschedulable": null, "containers": [{"name": "side", "$patch": "delete"}]}})");
  EXPECT_FALSE(r["spec"].contains("unschedulable"));
  ASSERT_EQ(r["spec"]["containers"].size(), 1u);
  EXPECT_EQ(r["spec"]["containers"][0]["name"], "main");
}

TEST(StrategicMergePatchTest, ListsWithoutMergeKeyAreReplaced) {
  json r = Strategic(R"({"spec": {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}})");
  ASSERT_EQ(r["spec"]["tolerations"].size(), 1u);
  EXPECT_EQ(r["spec"]["tolerations"][0]["key"], "nvidia.com/gpu");
}

TEST(StrategicMergePatchTest, ReplaceDirectives) {
  json r = Strategic(R"({"metadata": {"labels": {"$patch": "replace", "only": "this"}}})");
  EXPECT_EQ(r["metadata"]["labels"], json::parse(R"({"only": "this"})"));
  json l = Strategic(R"({"spec": {"containers": [{"name": "solo", "image": "s"}, {"$patch": "replace"}]}})");
  ASSERT_EQ(l["spec"]["containers"].size(), 1u);
  EXPECT_EQ(l["spec"]["containers"][0]["name"], "solo");
}

TEST(StrategicMergePatchTest, PrimitiveListDirectivesAndFinalizers) {
  json r = Strategic(R"({"metadata": {"finalizers": ["y"], "$setElementOrder/finalizers": ["x", "y"]}})");
  EXPECT_EQ(r["metadata"]["finalizers"], json::parse(R"(["x", "y"])"));
  EXPECT_FALSE(r["metadata"].contains("$setElementOrder/finalizers"));
  json d = Strategic(R"({"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}})");
  EXPECT_EQ(d["metadata"]["finalizers"], json::array());
}

TEST(StrategicMergePatchTest, RetainKeys) {
  json r = Strategic(R"({"spec": {"$retainKeys": ["containers"], "containers": [{"name": "main"}]}})");
  EXPECT_FALSE(r["spec"].contains("unschedulable"));
  EXPECT_FALSE(r["spec"].contains("tolerations"));
  EXPECT_EQ(r["spec"]["containers"].size(), 2u);
}

TEST(StrategicMergePatchTest, Errors) {
  EXPECT_EQ(ApplyPatch(PatchType::kStrategicMerge, kPod, R"({"spec": {"containers": [{"image": "no-name"}]}})").error().code, 400);
  EXPECT_EQ(ApplyPatch(PatchType::kStrategicMerge, kPod, R"({"spec": {"$patch": "explode"}})").error().code, 400);
  EXPECT_EQ(ApplyPatch(PatchType::kStrategicMerge, kPod, "[]").error().code, 400);
}

TEST(JsonPatchTest, Operations) {
  auto r = ApplyPatch(PatchType::kJsonPatch, kPod, R"([
    {"op": "test", "path": "/metadata/labels/app", "value": "a"},
    {"op": "replace", "path": "/spec/containers/0/image", "value": "img:3"},
    {"op": "add", "path": "/metadata/labels/nvidia.com~1mig.config", "value": "all-1g.10gb"},
    {"op": "remove", "path": "/spec/tolerations"},
    {"op": "copy", "from": "/metadata/labels/app", "path": "/metadata/labels/copy"},
    {"op": "move", "from": "/metadata/labels/tier", "path": "/metadata/labels/moved"}])");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value()["spec"]["containers"][0]["image"], "img:3");
  EXPECT_EQ(r.value()["metadata"]["labels"]["nvidia.com/mig.config"], "all-1g.10gb");
  EXPECT_FALSE(r.value()["spec"].contains("tolerations"));
  EXPECT_EQ(r.value()["metadata"]["labels"]["copy"], "a");
  EXPECT_EQ(r.value()["metadata"]["labels"]["moved"], "t");
  EXPECT_FALSE(r.value()["metadata"]["labels"].contains("tier"));
}

TEST(JsonPatchTest, FailedTestAndBadPathAre422) {
  EXPECT_EQ(ApplyPatch(PatchType::kJsonPatch, kPod, R"([{"op": "test", "path": "/metadata/name", "value": "q"}])").error().code, 422);
  EXPECT_EQ(ApplyPatch(PatchType::kJsonPatch, kPod, R"([{"op": "remove", "path": "/nope/x"}])").error().code, 422);
  EXPECT_EQ(ApplyPatch(PatchType::kJsonPatch, kPod, R"({"op": "add"})").error().code, 400);
}

}  // namespace
}  // namespace kubeon::kubesim
