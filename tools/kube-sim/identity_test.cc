// Tests for identity.h: the users setting, who a request is (admin token,
// a user's token, a client certificate's CN/O) and the SelfSubjectReview
// (every served version, create only, listed by discovery).
#include "identity.h"

#include <gtest/gtest.h>

#include "api.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

TEST(IdentityTest, UsersSettingIsChecked) {
  auto ok = ParseSimUsers(json::parse(R"([{"name": "alice", "uid": "u-1", "groups": ["reviewers"], "token": "t-a"},
                                          {"name": "bob@example.com", "groups": ["ops", "reviewers"]}])"));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok.value().size(), 2u);
  EXPECT_EQ(ok.value()[1].groups, (std::vector<std::string>{"ops", "reviewers"}));
  EXPECT_EQ(SimUsersJson(ok.value())[0], json::parse(R"({"name": "alice", "uid": "u-1", "groups": ["reviewers"],
                                                          "token": "t-a"})"));
  struct Bad {
    const char* users;
    const char* error;
  };
  for (const Bad& b : {Bad{R"({})", "users: must be an array"},
                       Bad{R"([{"name": ""}])", "users[0].name: must be non-empty"},
                       Bad{R"([{"name": "a b"}])", "users[0].name: must be non-empty"},
                       Bad{R"([{"name": "a", "token": "x\"y"}])", "users[0].token: must be of"},
                       Bad{R"([{"name": "a", "groups": "g"}])", "users[0].groups: must be an array"},
                       Bad{R"([{"name": "a", "role": "admin"}])", "users[0]: unknown key \"role\""},
                       Bad{R"([{"name": "a", "token": "t"}, {"name": "b", "token": "t"}])", "users[1].token: not unique"},
                       Bad{R"([{"name": "a"}, {"name": "a"}])", "users[1].name: \"a\" appears twice"}}) {
    auto r = ParseSimUsers(json::parse(b.users));
    ASSERT_FALSE(r.ok()) << b.users;
    EXPECT_NE(r.error().message.find(b.error), std::string::npos) << r.error().message;
  }
  Settings s;
  auto merged = s.Merge(json::parse(R"({"users": [{"name": "carol", "token": "t-c"}]})"));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged.value().ToJson()["users"][0]["name"], "carol");
  EXPECT_FALSE(s.Merge(json::parse(R"({"users": [{"name": 7}]})")).ok());
}

TEST(IdentityTest, TokensAndCertificatesMapToUsers) {
  std::vector<SimUser> users = {{"alice", "u-1", {"reviewers"}, "t-a"}, {"bob", "", {}, ""}};
  auto admin = TokenUser("Bearer admin-t", "admin-t", users);
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->ToJson(), json::parse(R"({"username": "kube-sim-admin",
                                            "groups": ["system:masters", "system:authenticated"]})"));
  auto alice = TokenUser("bearer t-a", "admin-t", users);
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->ToJson(), json::parse(R"({"username": "alice", "uid": "u-1",
                                            "groups": ["reviewers", "system:authenticated"]})"));
  EXPECT_FALSE(TokenUser("Bearer t-b", "admin-t", users));
  EXPECT_FALSE(TokenUser("Bearer ", "admin-t", users));  // bob has no token: "" never matches
  EXPECT_FALSE(TokenUser("Basic t-a", "admin-t", users));
  EXPECT_EQ(CertUser("bob", {"ops", "system:authenticated"}).groups,
            (std::vector<std::string>{"ops", "system:authenticated"}));
}

class SelfSubjectReviewTest : public ::testing::Test {
 protected:
  SelfSubjectReviewTest() {
    auto ok = m.sim().UpdateSettings(json::parse(R"({"users": [{"name": "alice", "groups": ["reviewers"],
                                                                "token": "alice-token"}]})"));
    EXPECT_TRUE(ok.ok());
  }
  ApiResponse Post(const std::string& version, const std::string& bearer, bool cert = false) {
    ApiRequest req;
    req.method = "POST";
    req.path = "/apis/authentication.k8s.io/" + version + "/selfsubjectreviews";
    req.headers["content-type"] = "application/json";
    req.body = R"({"apiVersion": "authentication.k8s.io/)" + version + R"(", "kind": "SelfSubjectReview"})";
    if (!bearer.empty()) req.headers["authorization"] = "Bearer " + bearer;
    if (cert) {
      req.client_cert_verified = true;
      req.client_cert_cn = "dave";
      req.client_cert_orgs = {"ops"};
    }
    return api.Handle(req);
  }
  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST_F(SelfSubjectReviewTest, AnswersTheCallersIdentity) {
  for (const char* v : {"v1", "v1beta1", "v1alpha1"}) {
    ApiResponse r = Post(v, "alice-token");
    ASSERT_EQ(r.status, 201) << r.body;
    json review = json::parse(r.body);
    EXPECT_EQ(review["kind"], "SelfSubjectReview");
    EXPECT_EQ(review["apiVersion"], std::string("authentication.k8s.io/") + v);
    EXPECT_EQ(review["status"]["userInfo"]["username"], "alice");
    EXPECT_EQ(review["status"]["userInfo"]["groups"], json::parse(R"(["reviewers", "system:authenticated"])"));
  }
  EXPECT_EQ(json::parse(Post("v1", "sekrit").body)["status"]["userInfo"]["username"], "kube-sim-admin");
  EXPECT_EQ(json::parse(Post("v1", "", true).body)["status"]["userInfo"],
            json::parse(R"({"username": "dave", "groups": ["ops", "system:authenticated"]})"));
  EXPECT_EQ(Post("v1", "bob-token").status, 401);
  EXPECT_EQ(Post("v2", "sekrit").status, 404);

  ApiRequest get;
  get.method = "GET";
  get.path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
  get.headers["authorization"] = "Bearer sekrit";
  EXPECT_EQ(api.Handle(get).status, 405);
  get.path = "/apis/authentication.k8s.io/v1";
  json list = json::parse(api.Handle(get).body);
  ASSERT_EQ(list["resources"].size(), 2u);  // and tokenreviews (reviews.h)
  EXPECT_EQ(list["resources"][0]["name"], "selfsubjectreviews");
  EXPECT_EQ(list["resources"][0]["verbs"], json::array({"create"}));
  EXPECT_EQ(list["resources"][1]["name"], "tokenreviews");
  get.path = "/apis/authentication.k8s.io";
  EXPECT_EQ(json::parse(api.Handle(get).body)["versions"].size(), 3u);
  get.path = "/apis";
  bool listed = false;
  json groups = json::parse(api.Handle(get).body)["groups"];
  for (const auto& g : groups) listed = listed || g["name"] == "authentication.k8s.io";
  EXPECT_TRUE(listed);
}

}  // namespace
}  // namespace kubeon::kubesim
