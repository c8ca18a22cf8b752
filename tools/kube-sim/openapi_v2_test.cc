// Tests for openapi_v2.h: the Swagger 2.0 JSON document and its gnostic
// protobuf encoding, decoded back with the test reader
// (test_proto_reader.h) using the field numbers of OpenAPIv2.proto.
#include "openapi_v2.h"

#include <gtest/gtest.h>

#include "test_proto_reader.h"

namespace kubeon::kubesim {
namespace {

using testing::ProtoAll;
using testing::ProtoNamed;
using testing::ProtoOne;

const json& Doc() {
  static const json doc = OpenApiV2Json("v1.32.0");
  return doc;
}

TEST(OpenApiV2Test, JsonDocumentHasPathsAndDefinitions) {
  const json& d = Doc();
  EXPECT_EQ(d["swagger"], "2.0");
  EXPECT_EQ(d["info"]["version"], "v1.32.0");
  const json& patch = d["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"], json({{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}}));
  EXPECT_EQ(patch["x-kubernetes-action"], "patch");
  EXPECT_EQ(patch["operationId"], "patchAppsV1NamespacedDeployment");
  std::vector<std::string> names;
  for (const auto& p : patch["parameters"]) names.push_back(p["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "fieldValidation"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "dryRun"), names.end());
  EXPECT_NE(std::find(patch["consumes"].begin(), patch["consumes"].end(), "application/strategic-merge-patch+json"),
            patch["consumes"].end());
  EXPECT_TRUE(d["paths"].contains("/api/v1/nodes/{name}"));
  EXPECT_TRUE(d["paths"].contains("/api/v1/pods"));  // list across namespaces
  EXPECT_TRUE(d["paths"].contains("/api/v1/namespaces/{namespace}/pods/{name}/eviction"));
  EXPECT_TRUE(d["paths"].contains("/apis/policy/v1beta1/namespaces/{namespace}/poddisruptionbudgets/{name}"));
  EXPECT_FALSE(d["paths"].contains("/api/v1/namespaces/{namespace}/nodes"));
  EXPECT_EQ(d["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale"]["get"]
             ["x-kubernetes-group-version-kind"]["kind"], "Scale");
  // every $ref resolves
  std::function<void(const json&)> check = [&](const json& v) {
    if (v.is_object()) {
      if (v.contains("$ref")) {
        std::string ref = v["$ref"];
        ASSERT_EQ(ref.rfind("#/definitions/", 0), 0u) << ref;
        EXPECT_TRUE(d["definitions"].contains(ref.substr(14))) << ref;
      }
      for (const auto& [k, sub] : v.items()) check(sub);
    } else if (v.is_array()) {
      for (const auto& sub : v) check(sub);
    }
  };
  check(d);
}

TEST(OpenApiV2Test, ProtobufDecodesToTheSameDocument) {
  std::string pb = OpenApiV2Protobuf(Doc());
  ASSERT_TRUE(testing::DecodeProto(pb).has_value());
  EXPECT_EQ(ProtoOne(pb, 1), "2.0");                   // Document.swagger
  EXPECT_EQ(ProtoOne(ProtoOne(pb, 2), 2), "v1.32.0");  // Document.info.version

  // Document.definitions (9) -> NamedSchema (1) "io.k8s.api.apps.v1.Deployment"
  std::string defs = ProtoOne(pb, 9);
  EXPECT_EQ(ProtoAll(defs, 1).size(), Doc()["definitions"].size());
  auto deployment = ProtoNamed(defs, 1, "io.k8s.api.apps.v1.Deployment");
  ASSERT_TRUE(deployment.has_value());
  EXPECT_EQ(ProtoOne(ProtoOne(*deployment, 22), 1), "object");  // Schema.type.value
  auto gvk = ProtoNamed(*deployment, 31, "x-kubernetes-group-version-kind");  // vendor_extension
  ASSERT_TRUE(gvk.has_value());
  EXPECT_EQ(json::parse(ProtoOne(*gvk, 2)), json::parse(R"([{"group":"apps","kind":"Deployment","version":"v1"}])"));
  auto spec = ProtoNamed(ProtoOne(*deployment, 25), 1, "spec");  // properties
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(ProtoOne(*spec, 1), "#/definitions/io.k8s.api.apps.v1.DeploymentSpec");  // _ref

  auto pod_spec = ProtoNamed(defs, 1, "io.k8s.api.core.v1.PodSpec");
  ASSERT_TRUE(pod_spec.has_value());
  auto containers = ProtoNamed(ProtoOne(*pod_spec, 25), 1, "containers");
  ASSERT_TRUE(containers.has_value());
  EXPECT_EQ(ProtoOne(ProtoOne(*containers, 22), 1), "array");
  EXPECT_EQ(ProtoOne(ProtoOne(ProtoOne(*containers, 23), 1), 1), "#/definitions/io.k8s.api.core.v1.Container");
  auto key = ProtoNamed(*containers, 31, "x-kubernetes-patch-merge-key");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(ProtoOne(*key, 2), "\"name\"");  // Any.yaml: the JSON text of the value
  auto selector = ProtoNamed(ProtoOne(*pod_spec, 25), 1, "nodeSelector");
  ASSERT_TRUE(selector.has_value());
  // additional_properties (21) -> AdditionalPropertiesItem.schema (1) -> type "string"
  EXPECT_EQ(ProtoOne(ProtoOne(ProtoOne(ProtoOne(*selector, 21), 1), 22), 1), "string");

  // Document.paths (8) -> NamedPathItem (2) -> PathItem.patch (8)
  auto item = ProtoNamed(ProtoOne(pb, 8), 2, "/apis/apps/v1/namespaces/{namespace}/deployments/{name}");
  ASSERT_TRUE(item.has_value());
  std::string patch = ProtoOne(*item, 8);
  EXPECT_EQ(ProtoOne(patch, 5), "patchAppsV1NamespacedDeployment");
  auto op_gvk = ProtoNamed(patch, 13, "x-kubernetes-group-version-kind");
  ASSERT_TRUE(op_gvk.has_value());
  EXPECT_EQ(json::parse(ProtoOne(*op_gvk, 2))["kind"], "Deployment");
  // parameters (8) -> ParametersItem.parameter (1) -> Parameter.non_body_parameter (2)
  //   -> query_parameter_sub_schema (3) -> name (4)
  std::vector<std::string> query;
  bool body = false;
  for (const auto& p : ProtoAll(patch, 8)) {
    std::string param = ProtoOne(p, 1);
    if (!ProtoOne(param, 1).empty()) body = ProtoOne(ProtoOne(param, 1), 3) == "body";
    std::string q = ProtoOne(ProtoOne(param, 2), 3);
    if (!q.empty()) query.push_back(ProtoOne(q, 4));
  }
  EXPECT_TRUE(body);
  EXPECT_NE(std::find(query.begin(), query.end(), "fieldValidation"), query.end());
  // path-level parameters (9): name and namespace, as path_parameter_sub_schema (4)
  std::vector<std::string> path_params;
  for (const auto& p : ProtoAll(*item, 9)) path_params.push_back(ProtoOne(ProtoOne(ProtoOne(ProtoOne(p, 1), 2), 4), 4));
  EXPECT_EQ(path_params, (std::vector<std::string>{"namespace", "name"}));
  // responses (9) -> NamedResponseValue "200" -> ResponseValue.response (1) -> schema (2) -> SchemaItem.schema (1)
  auto ok = ProtoNamed(ProtoOne(patch, 9), 1, "200");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ProtoOne(ProtoOne(ProtoOne(ProtoOne(*ok, 1), 2), 1), 1), "#/definitions/io.k8s.api.apps.v1.Deployment");
}

}  // namespace
}  // namespace kubeon::kubesim
