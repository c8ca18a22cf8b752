// Tests for openapi_v3.h: one OpenAPI 3.0 document per served
// group-version, self-contained (every $ref resolves inside it), with the
// operations kubectl inspects.
#include "openapi_v3.h"

#include <gtest/gtest.h>

#include <functional>

namespace kubeon::kubesim {
namespace {

TEST(OpenApiV3Test, KeysAreTheServedGroupVersions) {
  EXPECT_EQ(OpenApiV3Keys(), (std::vector<std::string>{"api/v1", "apis/apps/v1", "apis/policy/v1", "apis/policy/v1beta1",
                                                       "apis/batch/v1", "apis/coordination.k8s.io/v1",
                                                       "apis/apiextensions.k8s.io/v1"}));
  EXPECT_TRUE(OpenApiV3Document("apis/extensions/v1beta1", "v1.32.0").is_null());
}

TEST(OpenApiV3Test, DocumentsAreSelfContained) {
  for (const auto& key : OpenApiV3Keys()) {
    json d = OpenApiV3Document(key, "v1.32.0");
    ASSERT_TRUE(d.is_object()) << key;
    EXPECT_EQ(d["openapi"], "3.0.0");
    const json& schemas = d["components"]["schemas"];
    std::function<void(const json&)> check = [&](const json& v) {
      if (v.is_object()) {
        if (v.contains("$ref")) {
          std::string ref = v["$ref"];
          ASSERT_EQ(ref.rfind("#/components/schemas/", 0), 0u) << ref;
          EXPECT_TRUE(schemas.contains(ref.substr(21))) << key << ": " << ref;
        }
        for (const auto& [k, sub] : v.items()) check(sub);
      } else if (v.is_array()) {
        for (const auto& sub : v) check(sub);
      }
    };
    check(d);
    for (const auto& [path, item] : d["paths"].items()) {
      EXPECT_EQ(path.rfind("/" + key + "/", 0), 0u) << path;
    }
  }
}

TEST(OpenApiV3Test, PatchOperationsOfBuiltinKindsAcceptStrategicMerge) {
  json apps = OpenApiV3Document("apis/apps/v1", "v1.32.0");
  const json& patch = apps["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"], json({{"group", "apps"}, {"kind", "Deployment"}, {"version", "v1"}}));
  EXPECT_TRUE(patch["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
  bool field_validation = false;
  for (const auto& p : patch["parameters"]) field_validation |= p["name"] == "fieldValidation" && p["in"] == "query";
  EXPECT_TRUE(field_validation);
  EXPECT_EQ(apps["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"][0]["kind"],
            "Deployment");
  EXPECT_EQ(apps["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"]
                ["x-kubernetes-patch-merge-key"], "name");
  json leases = OpenApiV3Document("apis/coordination.k8s.io/v1", "v1.32.0");
  const json& lpatch = leases["paths"]["/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"]["patch"];
  EXPECT_TRUE(lpatch["requestBody"]["content"].contains("application/strategic-merge-patch+json"));
  EXPECT_TRUE(lpatch["requestBody"]["content"].contains("application/merge-patch+json"));
}

}  // namespace
}  // namespace kubeon::kubesim
