// Tests for openapi_custom.h: custom resources in /openapi/v2 and
// /openapi/v3 once their CRD exists, through the in-process Api.
#include "openapi_custom.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

const json kCrd = json::parse(R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.kubeon.io"},
  "spec": {"group": "example.kubeon.io", "scope": "Namespaced",
           "names": {"plural": "widgets", "kind": "Widget"},
           "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                         "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                           "spec": {"type": "object", "properties": {
                             "note": {"type": "string", "nullable": true, "description": "A note."},
                             "port": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}}}}}}}]}})");

class OpenApiCustomTest : public ::testing::Test {
 protected:
  json Get(const std::string& target) {
    ApiResponse r = api.Handle(testing::TestRequest("GET", target));
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST(CustomDefinitionNameTest, ReversesTheGroup) {
  ResourceType t;
  t.group = "gpu.kubeon.io";
  t.kind = "GpuPolicy";
  EXPECT_EQ(CustomDefinitionName(t, "v1"), "io.kubeon.gpu.v1.GpuPolicy");
}

TEST_F(OpenApiCustomTest, PublishedOnceTheCrdExists) {
  EXPECT_FALSE(Get("/openapi/v3")["paths"].contains("apis/example.kubeon.io/v1"));
  ASSERT_EQ(api.Handle(testing::TestRequest("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", kCrd.dump())).status,
            201);
  json root = Get("/openapi/v3");
  ASSERT_TRUE(root["paths"].contains("apis/example.kubeon.io/v1"));
  json doc = Get(root["paths"]["apis/example.kubeon.io/v1"]["serverRelativeURL"].get<std::string>());
  const json& s = doc["components"]["schemas"]["io.kubeon.example.v1.Widget"];
  EXPECT_EQ(s["x-kubernetes-group-version-kind"][0], json({{"group", "example.kubeon.io"}, {"kind", "Widget"}, {"version", "v1"}}));
  EXPECT_EQ(s["properties"]["metadata"]["$ref"], "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_TRUE(s["properties"]["spec"]["properties"]["note"]["nullable"]);
  EXPECT_TRUE(doc["components"]["schemas"].contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  const json& patch = doc["paths"]["/apis/example.kubeon.io/v1/namespaces/{namespace}/widgets/{name}"]["patch"];
  EXPECT_TRUE(patch["requestBody"]["content"].contains("application/merge-patch+json"));
  EXPECT_FALSE(patch["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
  EXPECT_TRUE(doc["paths"].contains("/apis/example.kubeon.io/v1/namespaces/{namespace}/widgets/{name}/status"));
  EXPECT_TRUE(doc["paths"].contains("/apis/example.kubeon.io/v1/widgets"));  // across namespaces

  json v2 = Get("/openapi/v2");
  const json& d = v2["definitions"]["io.kubeon.example.v1.Widget"];
  EXPECT_EQ(d["properties"]["metadata"]["$ref"], "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  EXPECT_FALSE(d["properties"]["spec"]["properties"]["note"].contains("nullable"));
  EXPECT_FALSE(d["properties"]["spec"]["properties"]["port"].contains("anyOf"));
  EXPECT_TRUE(v2["paths"].contains("/apis/example.kubeon.io/v1/namespaces/{namespace}/widgets/{name}"));

  // Deleting the CRD withdraws it.
  ASSERT_EQ(api.Handle(testing::TestRequest("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.kubeon.io"))
                .status,
            200);
  EXPECT_FALSE(Get("/openapi/v3")["paths"].contains("apis/example.kubeon.io/v1"));
  EXPECT_FALSE(Get("/openapi/v2")["definitions"].contains("io.kubeon.example.v1.Widget"));
}

}  // namespace
}  // namespace kubeon::kubesim
