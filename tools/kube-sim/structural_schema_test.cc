// Tests for structural_schema.h: pruning, defaulting and validation of
// custom resources against deploy/crd-gpupolicy.yaml's kind of schema.
#include "structural_schema.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

const json kSchema = json::parse(R"({
  "type": "object", "required": ["spec"],
  "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
    "spec": {"type": "object", "required": ["kind"], "properties": {
      "kind": {"type": "string", "enum": ["Sharing"]},
      "mode": {"type": "string", "enum": ["Proposal", "Approve", "Auto"], "default": "Proposal"},
      "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
      "headroom": {"type": "string", "pattern": "^[0-9]+%$", "default": "20%"},
      "replicas": {"type": "integer", "minimum": 1, "maximum": 64},
      "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
      "names": {"type": "array", "x-kubernetes-list-type": "set", "maxItems": 3,
                "items": {"type": "string", "maxLength": 5, "minLength": 1}},
      "port": {"x-kubernetes-int-or-string": true},
      "when": {"type": "string", "format": "date-time"},
      "note": {"type": "string", "nullable": true},
      "step": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
      "inner": {"type": "object", "properties": {"flag": {"type": "boolean", "default": false}}}}},
    "status": {"type": "object", "properties": {"n": {"type": "integer"}}}}})");

TEST(StructuralSchemaTest, PrunesUnknownFieldsButNotPreservedOnes) {
  json obj = json::parse(R"({"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "a", "whatever": 1},
    "spce": {}, "spec": {"kind": "Sharing", "mdoe": "Auto", "nodeSelector": {"any": "thing"},
    "step": {"free": {"form": [1]}}, "inner": {"flag": true, "extra": 1}, "names": ["a"], "note": null, "mode": null},
    "status": {"n": 1, "m": 2}})");
  auto unknown = PruneUnknownFields(kSchema, obj);
  EXPECT_EQ(unknown, (std::vector<std::string>{"spce", "spec.inner.extra", "spec.mdoe", "status.m"}));
  EXPECT_EQ(obj["metadata"]["whatever"], 1);  // the API server's metadata is not pruned here
  EXPECT_EQ(obj["spec"]["step"]["free"]["form"][0], 1);
  EXPECT_EQ(obj["spec"]["nodeSelector"]["any"], "thing");
  EXPECT_TRUE(obj["spec"].contains("note"));    // nullable
  EXPECT_FALSE(obj["spec"].contains("mode"));   // null of a non-nullable field is dropped
}

TEST(StructuralSchemaTest, KeepsFieldsTheStoredObjectHas) {
  json stored = json::parse(R"({"spec": {"kind": "Sharing", "legacy": 1}})");
  json written = json::parse(R"({"spec": {"kind": "Sharing", "legacy": 2, "typo": 3}})");
  EXPECT_EQ(PruneUnknownFields(kSchema, written, stored), std::vector<std::string>{"spec.typo"});
  EXPECT_EQ(written["spec"]["legacy"], 2);
}

TEST(StructuralSchemaTest, DefaultsAbsentFieldsOfPresentObjects) {
  json obj = json::parse(R"({"spec": {"kind": "Sharing", "headroom": "5%", "inner": {}}})");
  ApplyDefaults(kSchema, obj);
  EXPECT_EQ(obj["spec"]["mode"], "Proposal");
  EXPECT_EQ(obj["spec"]["headroom"], "5%");
  EXPECT_EQ(obj["spec"]["inner"]["flag"], false);
  EXPECT_FALSE(obj.contains("status"));  // no default creates an object
}

TEST(StructuralSchemaTest, ValidObjectsPass) {
  json obj = json::parse(R"({"metadata": {"name": 5}, "spec": {"kind": "Sharing", "mode": "Auto", "replicas": 64,
    "ratio": 0.5, "names": ["a", "bcdef"], "port": "http", "when": "2026-01-01T00:00:00Z", "note": null, "headroom": "7%"}})");
  EXPECT_TRUE(ValidateAgainstSchema(kSchema, obj).empty());
  obj["spec"]["port"] = 8080;
  obj["spec"]["when"] = "2026-01-01T10:00:00.125+02:00";
  EXPECT_TRUE(ValidateAgainstSchema(kSchema, obj).empty());
}

TEST(StructuralSchemaTest, ProblemsUseTheApiServersWording) {
  json obj = json::parse(R"({"spec": {"mode": "Sometimes", "replicas": 0, "ratio": 0, "names": ["a", "a", "toolong", ""],
    "port": true, "when": "yesterday", "headroom": "lots", "nodeSelector": {"a": 1}}})");
  std::vector<std::string> got = ValidateAgainstSchema(kSchema, obj);
  std::vector<std::string> want = {
      "spec.kind: Required value",
      "spec.headroom: Invalid value: \"lots\": spec.headroom in body should match '^[0-9]+%$'",
      "spec.mode: Unsupported value: \"Sometimes\": supported values: \"Proposal\", \"Approve\", \"Auto\"",
      "spec.names: Too many: 4: must have at most 3 items",
      "spec.names[1]: Duplicate value: \"a\"",
      "spec.names[2]: Too long: may not be longer than 5",
      "spec.names[3]: Invalid value: \"\": spec.names[3] in body should be at least 1 chars long",
      "spec.nodeSelector.a: Invalid value: \"integer\": spec.nodeSelector.a in body must be of type string: \"integer\"",
      "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\"",
      "spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0",
      "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1",
      "spec.when: Invalid value: \"yesterday\": spec.when in body must be of type date-time: \"yesterday\""};
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(ValidateAgainstSchema(kSchema, json::object()), std::vector<std::string>{"spec: Required value"});
  EXPECT_EQ(ValidateAgainstSchema(kSchema, json::parse(R"({"spec": {"kind": "Sharing", "replicas": 65}})")),
            std::vector<std::string>{"spec.replicas: Invalid value: 65: spec.replicas in body should be less than or equal to 64"});
}

}  // namespace
}  // namespace kubeon::kubesim
