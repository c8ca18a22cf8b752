// Tests for field_validation.h: directives, the Strict messages of a real
// kube-apiserver for create/update and for patches, Warn warnings, pruning,
// and the Go renderings the messages embed.
#include "field_validation.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

const ResourceType& Type(const std::string& store_id) { return *FindByStoreId(store_id); }

json BadDeployment() {
  return json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                         "spce": {}, "spec": {"replcas": 2, "replicas": 1}})");
}

TEST(FieldValidationTest, Directives) {
  EXPECT_EQ(ParseFieldValidation("").value(), FieldValidation::kWarn);
  EXPECT_EQ(ParseFieldValidation("Warn").value(), FieldValidation::kWarn);
  EXPECT_EQ(ParseFieldValidation("Ignore").value(), FieldValidation::kIgnore);
  EXPECT_EQ(ParseFieldValidation("Strict").value(), FieldValidation::kStrict);
  auto bad = ParseFieldValidation("strict");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
  EXPECT_EQ(bad.error().message,
            "fieldValidation: Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
}

TEST(FieldValidationTest, StrictCreateIsBadRequestNamingEveryField) {
  json obj = BadDeployment();
  auto out = CheckFields(Type(kDeployments), "v1", obj, nullptr, {FieldValidation::kStrict, WriteKind::kCreate, ""});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, 400);
  EXPECT_EQ(out.error().reason, "BadRequest");
  EXPECT_EQ(out.error().message,
            "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
            "unknown field \"spce\", unknown field \"spec.replcas\"");
}

TEST(FieldValidationTest, WarnAndIgnorePruneTheObject) {
  json warned = BadDeployment();
  auto w = CheckFields(Type(kDeployments), "v1", warned, nullptr, {FieldValidation::kWarn, WriteKind::kUpdate, ""});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w.value(), (std::vector<std::string>{"unknown field \"spce\"", "unknown field \"spec.replcas\""}));
  EXPECT_FALSE(warned.contains("spce"));
  EXPECT_EQ(warned["spec"], json({{"replicas", 1}}));
  json ignored = BadDeployment();
  auto i = CheckFields(Type(kDeployments), "v1", ignored, nullptr, {FieldValidation::kIgnore, WriteKind::kCreate, ""});
  ASSERT_TRUE(i.ok());
  EXPECT_TRUE(i.value().empty());
  EXPECT_EQ(ignored, warned);
}

TEST(FieldValidationTest, StrictStrategicPatchIsInvalidWithTheGoPatchMap) {
  json obj = json::parse(R"({"metadata": {"name": "demo"}, "dta": {"a": "3"}, "data": null})");
  std::string patch = R"({"dta":{"a":"3"},"data":null,"n":[1,2.5,true]})";
  auto out = CheckFields(Type(kConfigMaps), "v1", obj, json::parse(R"({"metadata": {"name": "demo"}})"),
                         {FieldValidation::kStrict, WriteKind::kStrategicPatch, patch});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, 422);
  EXPECT_EQ(out.error().reason, "Invalid");
  const std::string cause = "Invalid value: \"map[data:<nil> dta:map[a:3] n:[1 2.5 true]]\": strict decoding error: unknown field \"dta\"";
  EXPECT_EQ(out.error().message, " \"\" is invalid: patch: " + cause);
  EXPECT_EQ(out.error().details["causes"][0], json({{"reason", "FieldValueInvalid"}, {"message", cause}, {"field", "patch"}}));
}

TEST(FieldValidationTest, StrictMergePatchQuotesThePatchedObject) {
  json obj = json::parse(R"({"metadata": {"name": "p"}, "spec": {"paused": true, "mdoe": "Auto"}})");
  auto out = CheckFields(*FindByStoreId("apps/deployments"), "v1", obj, nullptr,
                         {FieldValidation::kStrict, WriteKind::kOtherPatch, "{}"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().details["causes"][0]["message"],
            "Invalid value: \"{\\\"metadata\\\":{\\\"name\\\":\\\"p\\\"},\\\"spec\\\":{\\\"mdoe\\\":\\\"Auto\\\",\\\"paused\\\":true}}\": "
            "strict decoding error: unknown field \"spec.mdoe\"");
}

TEST(FieldValidationTest, StoredFieldsAreNotReported) {
  json stored = json::parse(R"({"metadata": {"name": "gpu-a"}, "status": {"simDevices": ["GPU-0"]}})");
  json written = stored;
  written["metadata"]["labels"] = {{"a", "b"}};
  auto out = CheckFields(Type(kNodes), "v1", written, stored, {FieldValidation::kStrict, WriteKind::kStrategicPatch, "{}"});
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(written["status"]["simDevices"], json({"GPU-0"}));
}

TEST(FieldValidationTest, WarningHeaderAndGoRenderings) {
  EXPECT_EQ(WarningHeaderValue("unknown field \"spec.foo\""), "299 - \"unknown field \\\"spec.foo\\\"\"");
  EXPECT_EQ(WarningHeaderValue("a\\b"), "299 - \"a\\\\b\"");
  EXPECT_EQ(GoValueString(json::parse(R"({"b": [1, "x", null], "a": {"k": false}})")), "map[a:map[k:false] b:[1 x <nil>]]");
  EXPECT_EQ(GoValueString(json::object()), "map[]");
  EXPECT_EQ(GoValueString(json::array()), "[]");
}

}  // namespace
}  // namespace kubeon::kubesim
