// Tests for identity.h against a scripted HttpTransport (the answers a real
// API server gives; kube_sim_test checks the same calls against kube-sim).
#include "kube/identity.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kubeon::kube {
namespace {

using json = nlohmann::json;

// Answers "METHOD path" from a table; anything else is a 404 Status.
class ScriptedTransport : public HttpTransport {
 public:
  ScriptedTransport(std::map<std::string, std::pair<int, json>> answers, std::vector<HttpRequest>* seen)
      : answers_(std::move(answers)), seen_(seen) {}
  HttpResult Send(const HttpRequest& request) override {
    seen_->push_back(request);
    HttpResponse r;
    auto it = answers_.find(request.method + " " + request.path);
    if (it == answers_.end()) {
      r.status = 404;
      r.body = json{{"kind", "Status"}, {"code", 404}, {"reason", "NotFound"}, {"message", "the server could not "
                                                                                            "find the requested "
                                                                                            "resource"}}
                   .dump();
    } else {
      r.status = it->second.first;
      r.body = it->second.second.dump();
    }
    r.headers = {{"Content-Type", "application/json"}};
    return r;
  }
  HttpResult Stream(const HttpRequest&, const StreamHandler&) override {
    return TransportError{TransportErrorKind::kOther, "not scripted"};
  }

 private:
  std::map<std::string, std::pair<int, json>> answers_;
  std::vector<HttpRequest>* seen_;
};

std::unique_ptr<KubeClient> Client(std::map<std::string, std::pair<int, json>> answers,
                                   std::vector<HttpRequest>* seen) {
  RestConfig config;
  config.server = "https://kube.test:6443";
  config.token = "identity-test-token";
  ClientOptions o;
  o.retry_deadline = std::chrono::milliseconds(0);
  return std::make_unique<KubeClient>(std::make_unique<ScriptedTransport>(std::move(answers), seen), config, o);
}

json Review(const std::string& api_version, const std::string& user) {
  return {{"apiVersion", api_version},
          {"kind", "SelfSubjectReview"},
          {"metadata", {{"creationTimestamp", nullptr}}},
          {"status",
           {{"userInfo",
             {{"username", user}, {"uid", "u-1"}, {"groups", {"system:masters", "system:authenticated"}}}}}}};
}

TEST(IdentityTest, WhoAmIAsksSelfSubjectReviewV1) {
  std::vector<HttpRequest> seen;
  auto c = Client({{"POST /apis/authentication.k8s.io/v1/selfsubjectreviews",
                    {201, Review("authentication.k8s.io/v1", "kubernetes-admin")}}},
                  &seen);
  auto who = WhoAmI(*c);
  ASSERT_TRUE(who.ok()) << who.status().message();
  EXPECT_EQ(who->username, "kubernetes-admin");
  EXPECT_EQ(who->uid, "u-1");
  EXPECT_EQ(who->groups, (std::vector<std::string>{"system:masters", "system:authenticated"}));
  ASSERT_EQ(seen.size(), 1u);
  const json body = json::parse(seen[0].body);
  EXPECT_EQ(body["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(body["kind"], "SelfSubjectReview");
}

TEST(IdentityTest, WhoAmIFallsBackToV1beta1On404) {
  std::vector<HttpRequest> seen;
  auto c = Client({{"POST /apis/authentication.k8s.io/v1beta1/selfsubjectreviews",
                    {201, Review("authentication.k8s.io/v1beta1", "system:serviceaccount:ops:approver")}}},
                  &seen);
  auto who = WhoAmI(*c);
  ASSERT_TRUE(who.ok()) << who.status().message();
  EXPECT_EQ(who->username, "system:serviceaccount:ops:approver");
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].path, "/apis/authentication.k8s.io/v1/selfsubjectreviews");
  EXPECT_EQ(json::parse(seen[1].body)["apiVersion"], "authentication.k8s.io/v1beta1");
}

TEST(IdentityTest, WhoAmIWithoutTheApiSaysWhichVersionsItTried) {
  std::vector<HttpRequest> seen;
  auto c = Client({}, &seen);
  auto who = WhoAmI(*c);
  ASSERT_FALSE(who.ok());
  EXPECT_EQ(who.status().message(),
            "who am I: the API server at https://kube.test:6443 serves no SelfSubjectReview (authentication.k8s.io v1 "
            "or v1beta1; Kubernetes 1.27 or newer)");
}

TEST(IdentityTest, WhoAmIForbiddenIsNotRetriedOnOtherVersions) {
  std::vector<HttpRequest> seen;
  auto c = Client({{"POST /apis/authentication.k8s.io/v1/selfsubjectreviews",
                    {403, {{"kind", "Status"}, {"code", 403}, {"reason", "Forbidden"}, {"message", "nope"}}}}},
                  &seen);
  auto who = WhoAmI(*c);
  ASSERT_FALSE(who.ok());
  EXPECT_EQ(who.status().message().rfind("who am I: forbidden", 0), 0u) << who.status().message();
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_EQ(who.status().message().find("identity-test-token"), std::string::npos);
}

TEST(IdentityTest, WhoAmIWithoutUsernameIsAnError) {
  std::vector<HttpRequest> seen;
  auto c = Client({{"POST /apis/authentication.k8s.io/v1/selfsubjectreviews",
                    {201, {{"kind", "SelfSubjectReview"}, {"status", json::object()}}}}},
                  &seen);
  auto who = WhoAmI(*c);
  ASSERT_FALSE(who.ok());
  EXPECT_NE(who.status().message().find("without status.userInfo.username"), std::string::npos);
}

TEST(IdentityTest, ClusterIdIsServerAndKubeSystemUid) {
  std::vector<HttpRequest> seen;
  auto c = Client({{"GET /api/v1/namespaces/kube-system",
                    {200, {{"kind", "Namespace"}, {"metadata", {{"name", "kube-system"}, {"uid", "ks-uid-42"}}}}}}},
                  &seen);
  auto id = ClusterIdOf(*c);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(id->server, "https://kube.test:6443");
  EXPECT_EQ(id->kube_system_uid, "ks-uid-42");
}

TEST(IdentityTest, ClusterIdErrors) {
  std::vector<HttpRequest> seen;
  auto missing = Client({}, &seen);
  auto a = ClusterIdOf(*missing);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message().rfind("cluster identity: ", 0), 0u) << a.status().message();
  auto no_uid = Client({{"GET /api/v1/namespaces/kube-system", {200, {{"metadata", {{"name", "kube-system"}}}}}}},
                       &seen);
  auto b = ClusterIdOf(*no_uid);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "cluster identity: namespace kube-system at https://kube.test:6443 has no metadata.uid");
}

}  // namespace
}  // namespace kubeon::kube
