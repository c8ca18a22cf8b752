// Tests for authenticator.h against a transport that answers TokenReview and
// SubjectAccessReview as an API server does (reviewer_api_e2e checks the
// same calls against kube-sim).
#include "controller/authenticator.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kubeon::controller {
namespace {

using nlohmann::json;
using kube::HttpRequest;
using kube::HttpResponse;
using kube::HttpResult;

// Tokens -> users; (user, verb) pairs allowed on gpuchanges.
class ReviewTransport : public kube::HttpTransport {
 public:
  std::map<std::string, std::string> users;              // token -> username
  std::set<std::pair<std::string, std::string>> allowed;  // (user, verb)
  int fail_status = 0;                                    // != 0: every call answers this
  std::vector<HttpRequest> seen;

  HttpResult Send(const HttpRequest& request) override {
    seen.push_back(request);
    HttpResponse r;
    r.headers = {{"Content-Type", "application/json"}};
    if (fail_status) {
      r.status = fail_status;
      r.body = json{{"kind", "Status"}, {"code", fail_status}, {"reason", "Forbidden"},
                    {"message", "system:serviceaccount:kubeon-system:kubeon-gpu cannot create tokenreviews"}}
                   .dump();
      return r;
    }
    json in = json::parse(request.body);
    json out = in;
    r.status = 201;
    if (request.path == "/apis/authentication.k8s.io/v1/tokenreviews") {
      auto it = users.find(in["spec"]["token"].get<std::string>());
      if (it == users.end()) {
        out["status"] = {{"authenticated", false}, {"error", "invalid bearer token"}};
      } else {
        out["status"] = {{"authenticated", true},
                         {"user", {{"username", it->second}, {"uid", "uid-" + it->second}, {"groups", {"reviewers"}}}}};
      }
    } else if (request.path == "/apis/authorization.k8s.io/v1/subjectaccessreviews") {
      const bool ok = allowed.count({in["spec"]["user"].get<std::string>(),
                                     in["spec"]["resourceAttributes"]["verb"].get<std::string>()}) > 0;
      out["status"] = {{"allowed", ok}};
      if (!ok) out["status"]["reason"] = "no RBAC rule allows it";
    } else {
      r.status = 404;
      out = json{{"kind", "Status"}, {"code", 404}, {"reason", "NotFound"}};
    }
    r.body = out.dump();
    return r;
  }
  HttpResult Stream(const HttpRequest&, const kube::StreamHandler&) override {
    return kube::TransportError{kube::TransportErrorKind::kOther, "not used"};
  }
};

struct Fixture {
  ReviewTransport* transport = nullptr;
  std::unique_ptr<kube::KubeClient> client;
  Fixture() {
    auto t = std::make_unique<ReviewTransport>();
    transport = t.get();
    transport->users = {{"alice-token-123", "alice"}, {"bob-token-456", "bob"}};
    transport->allowed = {{"alice", "approve"}, {"alice", "revert"}, {"bob", "approve"}};
    kube::RestConfig config;
    config.server = "https://kube.test:6443";
    config.token = "controller-token";
    kube::ClientOptions o;
    o.retry_deadline = std::chrono::milliseconds(0);
    client = std::make_unique<kube::KubeClient>(std::move(t), config, o);
  }
};

TEST(KubeAuthenticator, AllowedUserIsNamedByTheApiServer) {
  Fixture f;
  KubeAuthenticator auth(*f.client);
  AuthDecision d = auth.Check("alice-token-123", kApproveVerb, "abcd1234");
  EXPECT_EQ(d.code, AuthCode::kOk) << d.message;
  EXPECT_EQ(d.username, "alice");
  EXPECT_EQ(d.groups, std::vector<std::string>{"reviewers"});
  ASSERT_EQ(f.transport->seen.size(), 2u);
  const json sar = json::parse(f.transport->seen[1].body);
  EXPECT_EQ(sar["spec"]["user"], "alice");
  EXPECT_EQ(sar["spec"]["uid"], "uid-alice");
  EXPECT_EQ(sar["spec"]["groups"], json::array({"reviewers"}));
  EXPECT_EQ(sar["spec"]["resourceAttributes"],
            (json{{"group", "gpu.kubeon.io"}, {"resource", "gpuchanges"}, {"verb", "approve"}, {"name", "abcd1234"}}));
  // The controller's own credentials make the reviews.
  bool has_controller_auth = false;
  for (const auto& [k, v] : f.transport->seen[1].headers) {
    if (k == "Authorization") has_controller_auth = v == "Bearer controller-token";
  }
  EXPECT_TRUE(has_controller_auth);
}

TEST(KubeAuthenticator, UnknownTokenIsUnauthenticatedAndNotEchoed) {
  Fixture f;
  KubeAuthenticator auth(*f.client);
  AuthDecision d = auth.Check("forged-token-789", kApproveVerb, "abcd1234");
  EXPECT_EQ(d.code, AuthCode::kUnauthenticated);
  EXPECT_TRUE(d.username.empty());
  EXPECT_NE(d.message.find("invalid bearer token"), std::string::npos) << d.message;
  EXPECT_EQ(d.message.find("forged-token-789"), std::string::npos);
  EXPECT_EQ(f.transport->seen.size(), 1u);  // no SubjectAccessReview
}

TEST(KubeAuthenticator, MissingVerbIsForbiddenNamingUserAndVerb) {
  Fixture f;
  KubeAuthenticator auth(*f.client);
  AuthDecision d = auth.Check("bob-token-456", kRevertVerb, "abcd1234");
  EXPECT_EQ(d.code, AuthCode::kForbidden);
  EXPECT_EQ(d.username, "bob");
  EXPECT_NE(d.message.find("\"bob\""), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("\"revert\""), std::string::npos) << d.message;
  EXPECT_EQ(d.message.find("bob-token-456"), std::string::npos);
}

TEST(KubeAuthenticator, ApiFailureIsUnavailableWithoutTheToken) {
  Fixture f;
  f.transport->fail_status = 403;
  KubeAuthenticator auth(*f.client);
  AuthDecision d = auth.Check("alice-token-123", kApproveVerb, "abcd1234");
  EXPECT_EQ(d.code, AuthCode::kUnavailable);
  EXPECT_NE(d.message.find("TokenReview"), std::string::npos) << d.message;
  EXPECT_EQ(d.message.find("alice-token-123"), std::string::npos);
}

}  // namespace
}  // namespace kubeon::controller
