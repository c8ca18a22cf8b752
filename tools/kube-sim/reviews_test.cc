// Tests for reviews.h, service_accounts.h and audit_log.h through the API
// (api.h): RBAC enforced on every request of a non-admin user (403 body),
// ServiceAccount tokens from TokenRequest (who they are, expiry in
// simulated time, a deleted ServiceAccount), TokenReview, the access
// reviews and who may create them, Secret data, and the audit log lines.
#include "reviews.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "api.h"
#include "audit_log.h"
#include "rbac.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;
using testing::TestRequest;

class ReviewsTest : public ::testing::Test {
 protected:
  ReviewsTest() {
    auto ok = m.sim().UpdateSettings(json::parse(R"({"users": [
        {"name": "alice", "groups": ["reviewers"], "token": "alice-token"},
        {"name": "webhook", "token": "webhook-token"}]})"));
    EXPECT_TRUE(ok.ok());
  }
  ApiResponse Call(const std::string& method, const std::string& target, const json& body = nullptr,
                   const std::string& token = "sekrit") {
    return api.Handle(TestRequest(method, target, body.is_null() ? "" : body.dump(), "application/json", token));
  }
  json Body(const ApiResponse& r) { return json::parse(r.body); }
  void Admin(const std::string& method, const std::string& target, const json& body) {
    ApiResponse r = Call(method, target, body);
    ASSERT_LT(r.status, 300) << r.body;
  }
  // A token for ServiceAccount ns/name (created first).
  std::string SaToken(const std::string& ns, const std::string& name, int64_t seconds = 3600) {
    Admin("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts",
          {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}});
    ApiResponse r = Call("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts/" + name + "/token",
                         {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"},
                          {"spec", {{"expirationSeconds", seconds}}}});
    EXPECT_EQ(r.status, 201) << r.body;
    return Body(r)["status"].value("token", "");
  }
  json WhoAmI(const std::string& token) {
    ApiResponse r = Call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                         {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}}, token);
    return r.status == 201 ? Body(r)["status"]["userInfo"] : json(r.status);
  }

  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST_F(ReviewsTest, NonAdminRequestsNeedRbac) {
  ApiResponse r = Call("GET", "/api/v1/namespaces/default/pods", nullptr, "alice-token");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Body(r), json::parse(R"({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
      "reason": "Forbidden", "code": 403, "details": {"kind": "pods"},
      "message": "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""})"));
  EXPECT_EQ(Call("GET", "/version", nullptr, "alice-token").status, 200);
  EXPECT_EQ(Call("GET", "/apis/apps/v1", nullptr, "alice-token").status, 200);
  EXPECT_EQ(Call("GET", "/sim/state", nullptr, "alice-token").status, 403);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods", nullptr, "nobody").status, 401);
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        json::parse(R"({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                        "metadata": {"name": "system:reviewers-view"},
                        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                        "subjects": [{"kind": "Group", "name": "reviewers"}]})"));
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/pods", nullptr, "alice-token").status, 200);
  EXPECT_EQ(Call("DELETE", "/api/v1/namespaces/default/pods", nullptr, "alice-token").status, 403);
}

TEST_F(ReviewsTest, ServiceAccountTokensAuthenticateUntilTheyExpire) {
  const std::string token = SaToken("default", "ctrl", 600);
  ASSERT_FALSE(token.empty());
  json who = WhoAmI(token);
  EXPECT_EQ(who["username"], "system:serviceaccount:default:ctrl");
  EXPECT_EQ(who["groups"], json::parse(R"(["system:serviceaccounts", "system:serviceaccounts:default",
                                           "system:authenticated"])"));
  EXPECT_EQ(who["uid"], Uid(m.Get(kServiceAccounts, "default", "ctrl")));
  // Tampered: another signature.
  std::string forged = token;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  EXPECT_EQ(WhoAmI(forged), json(401));
  m.Advance(599 * 1000);
  EXPECT_EQ(WhoAmI(token)["username"], "system:serviceaccount:default:ctrl");
  m.Advance(2 * 1000);
  EXPECT_EQ(WhoAmI(token), json(401));
  // A deleted ServiceAccount's tokens die with it, even when one of the same name comes back.
  const std::string again = SaToken("default", "other");
  EXPECT_EQ(WhoAmI(again)["username"], "system:serviceaccount:default:other");
  Admin("DELETE", "/api/v1/namespaces/default/serviceaccounts/other", nullptr);
  EXPECT_EQ(WhoAmI(again), json(401));
  Admin("POST", "/api/v1/namespaces/default/serviceaccounts",
        {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "other"}}}});
  EXPECT_EQ(WhoAmI(again), json(401));
}

TEST_F(ReviewsTest, TokenRequestChecksItsSpec) {
  SaToken("default", "ctrl");
  ApiResponse r = Call("POST", "/api/v1/namespaces/default/serviceaccounts/ctrl/token",
                       json::parse(R"({"spec": {"expirationSeconds": 60}})"));
  EXPECT_EQ(r.status, 422);
  EXPECT_NE(Body(r)["message"].get<std::string>().find("may not specify a duration less than 10 minutes"),
            std::string::npos);
  r = Call("POST", "/api/v1/namespaces/default/serviceaccounts/ctrl/token", json::parse(R"({"spec": {}})"));
  ASSERT_EQ(r.status, 201);
  EXPECT_EQ(Body(r)["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(Body(r)["spec"]["audiences"], json::array({kDefaultAudience}));
  EXPECT_EQ(Body(r)["status"]["expirationTimestamp"], Rfc3339(m.now() + std::chrono::seconds(3600)));
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/default/serviceaccounts/nope/token", json::parse(R"({"spec": {}})")).status,
            404);
  EXPECT_EQ(Call("GET", "/api/v1/namespaces/default/serviceaccounts/ctrl/token").status, 405);
}

TEST_F(ReviewsTest, TokenReviewNeedsAuthDelegatorAndNamesTheUser) {
  const std::string token = SaToken("default", "ctrl");
  auto review = [&](const std::string& t, const std::string& as, const json& audiences = nullptr) {
    json body = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", {{"token", t}}}};
    if (!audiences.is_null()) body["spec"]["audiences"] = audiences;
    return Call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", body, as);
  };
  EXPECT_EQ(review("alice-token", "webhook-token").status, 403);
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        json::parse(R"({"metadata": {"name": "webhook-delegator"},
                        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                    "name": "system:auth-delegator"},
                        "subjects": [{"kind": "User", "name": "webhook"}]})"));
  ApiResponse r = review(token, "webhook-token");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["status"]["authenticated"], true);
  EXPECT_EQ(Body(r)["status"]["user"]["username"], "system:serviceaccount:default:ctrl");
  EXPECT_EQ(Body(r)["status"]["audiences"], json::array({kDefaultAudience}));
  EXPECT_EQ(Body(review("alice-token", "webhook-token"))["status"]["user"]["username"], "alice");
  json bad = Body(review("not-a-token", "webhook-token"))["status"];
  EXPECT_EQ(bad["authenticated"], false);
  EXPECT_FALSE(bad.value("error", "").empty());
  EXPECT_EQ(Body(review(token, "webhook-token", json::array({"other-audience"})))["status"]["authenticated"], false);
  EXPECT_EQ(Call("GET", "/apis/authentication.k8s.io/v1/tokenreviews").status, 405);
}

TEST_F(ReviewsTest, AccessReviewsAnswerFromRbac) {
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        json::parse(R"({"metadata": {"name": "kubeon-gpu-reviewer"},
                        "rules": [{"apiGroups": ["gpu.kubeon.io"], "resources": ["gpuchanges"],
                                   "verbs": ["get", "list", "approve", "revert"]}]})"));
  Admin("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        json::parse(R"({"metadata": {"name": "reviewers"},
                        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                    "name": "kubeon-gpu-reviewer"},
                        "subjects": [{"kind": "Group", "name": "reviewers"}]})"));
  auto self = [&](const std::string& verb, const std::string& token) {
    ApiResponse r = Call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                         {{"spec", {{"resourceAttributes", {{"verb", verb}, {"group", "gpu.kubeon.io"},
                                                            {"resource", "gpuchanges"}, {"name", "ab12cd34"}}}}}},
                         token);
    EXPECT_EQ(r.status, 201) << r.body;
    return Body(r);
  };
  json yes = self("approve", "alice-token");
  EXPECT_EQ(yes["kind"], "SelfSubjectAccessReview");
  EXPECT_EQ(yes["status"], json::parse(R"({"allowed": true, "reason": "RBAC: allowed by ClusterRoleBinding \"reviewers\" of ClusterRole \"kubeon-gpu-reviewer\" to Group \"reviewers\""})"));
  EXPECT_EQ(self("delete", "alice-token")["status"], json::parse(R"({"allowed": false})"));
  EXPECT_EQ(self("approve", "webhook-token")["status"]["allowed"], false);

  // SubjectAccessReview: about someone else; needs create subjectaccessreviews.
  json sar = json::parse(R"({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                             "spec": {"user": "carol", "groups": ["reviewers"],
                                      "resourceAttributes": {"verb": "revert", "group": "gpu.kubeon.io",
                                                             "resource": "gpuchanges"}}})");
  EXPECT_EQ(Call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar, "alice-token").status, 403);
  ApiResponse r = Call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["status"]["allowed"], true);
  EXPECT_EQ(Body(r)["spec"], sar["spec"]);
  sar["spec"]["groups"] = json::array();
  EXPECT_EQ(Body(Call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar))["status"]["allowed"], false);
  sar["spec"].erase("user");
  EXPECT_EQ(Call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", sar).status, 422);
  json both = json::parse(R"({"spec": {"user": "x", "resourceAttributes": {"verb": "get"},
                                       "nonResourceAttributes": {"path": "/x", "verb": "get"}}})");
  EXPECT_EQ(Call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", both).status, 422);
  json nonres = json::parse(R"({"spec": {"user": "x", "groups": ["system:authenticated"],
                                         "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}})");
  EXPECT_EQ(Body(Call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", nonres))["status"]["allowed"], true);
  // LocalSubjectAccessReview: the URL's namespace.
  json local = json::parse(R"({"spec": {"user": "carol", "resourceAttributes": {"namespace": "other", "verb": "get",
                                                                               "resource": "pods"}}})");
  EXPECT_EQ(Call("POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", local).status,
            422);
  local["spec"]["resourceAttributes"].erase("namespace");
  r = Call("POST", "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews", local);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["status"]["allowed"], false);
}

TEST_F(ReviewsTest, SelfSubjectRulesReviewListsTheRulesThatApply) {
  ApiResponse r = Call("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                       json::parse(R"({"spec": {"namespace": "default"}})"), "alice-token");
  ASSERT_EQ(r.status, 201) << r.body;
  json status = Body(r)["status"];
  EXPECT_EQ(status["incomplete"], false);
  EXPECT_NE(std::find(status["resourceRules"].begin(), status["resourceRules"].end(),
                      json::parse(R"({"verbs": ["create"], "apiGroups": ["authentication.k8s.io"],
                                      "resources": ["selfsubjectreviews"]})")),
            status["resourceRules"].end());
  EXPECT_FALSE(status["nonResourceRules"].empty());
}

TEST_F(ReviewsTest, SecretsKeepBase64DataAndFoldStringData) {
  ApiResponse r = Call("POST", "/api/v1/namespaces/default/secrets",
                       json::parse(R"({"metadata": {"name": "s"}, "data": {"a": "YWJj"}, "stringData": {"b": "xyz"}})"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(Body(r)["data"], json::parse(R"({"a": "YWJj", "b": "eHl6"})"));
  EXPECT_EQ(Body(r)["type"], "Opaque");
  EXPECT_FALSE(Body(r).contains("stringData"));
  r = Call("POST", "/api/v1/namespaces/default/secrets", json::parse(R"({"metadata": {"name": "t"}, "data": {"a": "!!"}})"));
  EXPECT_EQ(r.status, 400);
  ApiRequest patch = TestRequest("PATCH", "/api/v1/namespaces/default/secrets/s", R"({"stringData": {"a": "new"}})",
                                 "application/merge-patch+json");
  r = api.Handle(patch);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Body(r)["data"]["a"], "bmV3");
}

TEST(AuditLogTest, OneLinePerAnsweredRequest) {
  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
  const std::string path = ::testing::TempDir() + "/kube-sim-audit-" + std::to_string(getpid()) + ".jsonl";
  std::remove(path.c_str());
  auto log = AuditLog::Open(path);
  ASSERT_TRUE(log.ok());
  api.SetAuditLog(std::move(log).value());
  api.Handle(TestRequest("GET", "/apis/apps/v1/namespaces/default/deployments/web"));
  api.Handle(TestRequest("PATCH", "/apis/apps/v1/namespaces/default/deployments/web/status", "{}",
                         "application/merge-patch+json"));
  api.Handle(TestRequest("GET", "/version", "", "application/json", "bad-token"));
  auto lines = ReadAuditLog(path);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines.value().size(), 3u);
  EXPECT_EQ(lines.value()[0], json::parse(R"({"user": "kube-sim-admin", "groups": ["system:masters",
      "system:authenticated"], "verb": "get", "apiGroup": "apps", "resource": "deployments", "subresource": "",
      "namespace": "default", "name": "web", "code": 404})"));
  EXPECT_EQ(lines.value()[1]["verb"], "patch");
  EXPECT_EQ(lines.value()[1]["subresource"], "status");
  EXPECT_EQ(lines.value()[2], json::parse(R"({"user": "", "groups": [], "verb": "get", "apiGroup": "",
      "resource": "", "subresource": "", "namespace": "", "name": "", "code": 401, "path": "/version"})"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kubeon::kubesim
