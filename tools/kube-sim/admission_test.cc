// Tests for admission.h through the API: a bound ValidatingAdmissionPolicy
// denies a write whose validation is false (the real message and code),
// lets the others pass, follows matchConstraints, matchConditions,
// validationActions and failurePolicy, and a policy outside the CEL subset
// is stored, reported and not enforced.
#include "admission.h"

#include <gtest/gtest.h>

#include "api.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;
using testing::TestRequest;

class AdmissionTest : public ::testing::Test {
 protected:
  AdmissionTest() {
    EXPECT_TRUE(m.sim().UpdateSettings(json::parse(R"({"users": [{"name": "alice", "token": "alice-token"}]})")).ok());
    Post("/apis/rbac.authorization.k8s.io/v1/clusterroles",
         R"({"metadata": {"name": "cm-writer"}, "rules": [{"apiGroups": [""], "resources": ["configmaps"],
             "verbs": ["create", "update", "patch", "delete", "get"]}]})");
    Post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
         R"({"metadata": {"name": "alice-cm"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
             "kind": "ClusterRole", "name": "cm-writer"}, "subjects": [{"kind": "User", "name": "alice"}]})");
  }
  ApiResponse Post(const std::string& path, const std::string& body, const std::string& token = "sekrit") {
    ApiResponse r = api.Handle(TestRequest("POST", path, body, "application/json", token));
    return r;
  }
  void Policy(const std::string& spec, const std::string& binding_spec) {
    ApiResponse r = Post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
                         R"({"metadata": {"name": "owner-label"}, "spec": )" + spec + "}");
    ASSERT_EQ(r.status, 201) << r.body;
    r = Post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
             R"({"metadata": {"name": "owner-label-binding"}, "spec": )" + binding_spec + "}");
    ASSERT_EQ(r.status, 201) << r.body;
  }
  ApiResponse CreateCm(const std::string& name, const std::string& owner, const std::string& token = "alice-token") {
    return Post("/api/v1/namespaces/default/configmaps",
                R"({"metadata": {"name": ")" + name + R"(", "labels": {"owner": ")" + owner + R"("}}})", token);
  }
  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

const char* kMatchConfigMaps = R"("matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
    "operations": ["CREATE", "UPDATE"], "resources": ["configmaps"]}]})";

TEST_F(AdmissionTest, DeniesWritesWhoseValidationFails) {
  Policy(std::string("{") + kMatchConfigMaps + R"(, "validations": [{"expression":
      "object.metadata.labels['owner'] == request.userInfo.username", "message": "owner must be you"}]})",
         R"({"policyName": "owner-label", "validationActions": ["Deny"]})");
  EXPECT_EQ(CreateCm("mine", "alice").status, 201);
  ApiResponse r = CreateCm("forged", "bob");
  EXPECT_EQ(r.status, 422);
  json s = json::parse(r.body);
  EXPECT_EQ(s["reason"], "Invalid");
  EXPECT_EQ(s["message"], "ValidatingAdmissionPolicy 'owner-label' with binding 'owner-label-binding' denied request: "
                          "owner must be you");
  // Updates are checked too; the admin is not exempt.
  ApiRequest put = TestRequest("PATCH", "/api/v1/namespaces/default/configmaps/mine",
                               R"({"metadata": {"labels": {"owner": "bob"}}})", "application/merge-patch+json");
  EXPECT_EQ(api.Handle(put).status, 422);
  // Not matched: deletes, and other kinds.
  EXPECT_EQ(api.Handle(TestRequest("DELETE", "/api/v1/namespaces/default/configmaps/mine")).status, 200);
  EXPECT_EQ(Post("/api/v1/namespaces/default/secrets", R"({"metadata": {"name": "s"}})").status, 201);
}

TEST_F(AdmissionTest, ReasonConditionsActionsAndFailurePolicy) {
  Policy(std::string("{") + kMatchConfigMaps + R"(, "failurePolicy": "Ignore",
      "matchConditions": [{"name": "only-alice", "expression": "request.userInfo.username == 'alice'"}],
      "validations": [{"expression": "object.metadata.labels['owner'] == 'alice'", "reason": "Forbidden"}]})",
         R"({"policyName": "owner-label", "validationActions": ["Warn", "Deny"]})");
  ApiResponse r = CreateCm("x", "bob");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(json::parse(r.body)["message"],
            "ValidatingAdmissionPolicy 'owner-label' with binding 'owner-label-binding' denied request: failed "
            "expression: object.metadata.labels['owner'] == 'alice'");
  EXPECT_EQ(CreateCm("y", "bob", "sekrit").status, 201);  // matchConditions: not alice
  // failurePolicy Ignore: an evaluation error (no labels) lets it through.
  EXPECT_EQ(Post("/api/v1/namespaces/default/configmaps", R"({"metadata": {"name": "z"}})", "alice-token").status, 201);
}

TEST_F(AdmissionTest, PoliciesOutsideTheSubsetAreNotEnforced) {
  Policy(std::string("{") + kMatchConfigMaps + R"J(, "validations": [{"expression":
      "object.metadata.name.startsWith('ok')"}]})J",
         R"({"policyName": "owner-label", "validationActions": ["Deny"]})");
  EXPECT_EQ(CreateCm("anything", "alice").status, 201);
  std::lock_guard<std::mutex> lock(m.sim().mutex());
  AdmissionRequest a{"CREATE", "", "v1", "configmaps", "", "default", "n", json::object(), nullptr, {"alice", "", {}}};
  AdmissionResult result = Admit(m.store(), a);
  EXPECT_FALSE(result.denied);
  ASSERT_EQ(result.not_enforced.size(), 1u);
  EXPECT_EQ(result.not_enforced[0].rfind("owner-label: unsupported CEL: method .startsWith()", 0), 0u)
      << result.not_enforced[0];
}

}  // namespace
}  // namespace kubeon::kubesim
