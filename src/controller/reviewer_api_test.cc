// Tests for reviewer_api.h: an in-process server with ReviewerApi mounted
// over a hand-made plan, a SQLite audit log in a temporary directory, a fake
// history and a fake Authenticator (authenticator_test covers the real one's
// TokenReview / SubjectAccessReview calls; the browser test web/e2e covers
// both against kube-sim).
#include "controller/reviewer_api.h"

#include <httplib.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "audit/sqlite_store.h"
#include "controller/web_assets.h"
#include "kube/test_util.h"

namespace kubeon::controller {
namespace {

using nlohmann::json;

class FakeAuth : public Authenticator {
 public:
  // token -> (user, verbs allowed)
  std::map<std::string, std::pair<std::string, std::set<std::string>>> tokens;
  AuthDecision Check(const std::string& token, const std::string& verb, const std::string& id) override {
    AuthDecision d;
    auto it = tokens.find(token);
    if (it == tokens.end()) {
      d.message = "the API server does not accept this token";
      return d;
    }
    d.username = it->second.first;
    if (!it->second.second.count(verb)) {
      d.code = AuthCode::kForbidden;
      d.message = "user \"" + d.username + "\" may not " + verb + " gpuchanges.gpu.kubeon.io \"" + id + "\"";
      return d;
    }
    d.code = AuthCode::kOk;
    return d;
  }
};

class FakeHistory : public HistorySource {
 public:
  model::WorkloadRef asked;
  int asked_points = 0;
  Result<std::vector<SeriesPoint>> MemoryMiB(const model::WorkloadRef& w, int max_points) override {
    asked = w;
    asked_points = max_points;
    return std::vector<SeriesPoint>{{1000, 2000}, {1060, 3500}, {1120, 2500}};
  }
};

const std::string kHash = std::string(56, 'c') + "0a1b2c3d";

plan::Plan MakePlan() {
  plan::Plan p;
  p.policy_name = "gpu-sharing";
  p.summary.gpus_before = 2;
  p.summary.gpus_after = 1;
  p.summary.gpus_freed = 1;
  p.summary.monthly_savings_usd = 2000;
  plan::WorkloadDecision w;
  w.ref = {"ml", "Deployment", "infer"};
  w.pods = {"infer-1", "infer-2"};
  w.gpus_per_pod = 1;
  w.gpu_model = "A100-40GB";
  w.peak_memory_mib = 3500;
  w.decision = plan::Decision::kMig;
  w.slice = "1g.10gb";
  w.reason = "peak 3500 MiB x 1.2 fits 1g.10gb";
  w.isolation = "own memory and compute slice";
  p.workloads.push_back(w);
  plan::NodePlan n;
  n.name = "gpu-a";
  n.gpu_model = "A100-40GB";
  n.method = "mig";
  n.gpu_count = 8;
  n.gpus_before = 2;
  n.gpus_after = 1;
  plan::GpuAfter g;
  g.index = 0;
  g.mig_enabled = true;
  g.mig_devices = {"1g.10gb", "1g.10gb"};
  g.workloads = {"ml/infer", "ml/infer"};
  n.gpus.push_back(g);
  p.nodes.push_back(n);
  plan::ScheduleStep s;
  s.index = 1;
  s.id = kHash.substr(0, 8);
  s.content_hash = kHash;
  s.gpu_model = "A100-40GB";
  s.method = "mig";
  s.nodes = {"gpu-a"};
  p.schedule.steps.push_back(s);
  return p;
}

class ReviewerApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.File("audit.db");
    auto store = audit::SqliteAuditStore::Open(db_);
    ASSERT_TRUE(store.ok()) << store.status().message();
    audit::ChangeRecord r;
    r.id = kHash.substr(0, 8);
    r.policy = "gpu-sharing";
    r.content_hash = kHash;
    r.step_json = "{}";
    r.created_at = r.updated_at = "2026-12-03T10:00:00Z";
    ASSERT_TRUE((*store)->PutChange(r, 0).ok());
    PolicyView v;
    v.name = "gpu-sharing";
    v.plan = MakePlan();
    v.planned_at = "2026-12-03T10:00:00Z";
    views_.Put(v);
    auth_.tokens = {{"alice-token", {"alice", {"approve", "revert"}}}, {"bob-token", {"bob", {}}}};
    ReviewerOptions o;
    o.now = [] { return std::chrono::sys_days(std::chrono::year(2026) / 12 / 3) + std::chrono::hours(12); };
    api_ = std::make_unique<ReviewerApi>(
        views_, [db = db_] { return audit::SqliteAuditStore::Open(db); }, history_, auth_, o);
    api_->Register(server_);
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // The socket listens from bind_to_any_port on; wait for the accept loop anyway.
    for (int i = 0; i < 60000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(60, 0);
  }
  void TearDown() override {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Result Post(const std::string& path, const std::string& body, const std::string& token) {
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    return client_->Post(path.c_str(), h, body, "application/json");
  }
  audit::ChangeRecord Stored() {
    auto store = audit::SqliteAuditStore::Open(db_);
    auto r = (*store)->GetChange(kHash.substr(0, 8));
    return **r;
  }
  std::string Id() const { return kHash.substr(0, 8); }

  kube::testing::TempDir dir_;
  std::string db_;
  PolicyViews views_;
  FakeHistory history_;
  FakeAuth auth_;
  std::unique_ptr<ReviewerApi> api_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ReviewerApiTest, ServesThePageWithCspAndEtag) {
  auto res = client_->Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  const std::string csp = res->get_header_value("Content-Security-Policy");
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos);
  EXPECT_NE(res->body.find("/static/app.js"), std::string::npos);
  // No inline script: every <script> names a src.
  EXPECT_EQ(res->body.find("<script>"), std::string::npos);
  const std::string etag = res->get_header_value("ETag");
  ASSERT_FALSE(etag.empty());
  auto again = client_->Get("/", httplib::Headers{{"If-None-Match", etag}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());

  auto js = client_->Get("/static/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(js->get_header_value("ETag"), etag);
  auto css = client_->Get("/static/app.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->get_header_value("Content-Type"), "text/css; charset=utf-8");
  auto missing = client_->Get("/static/nope.js");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST(WebAssets, EveryAssetHasTypeEtagAndBody) {
  ASSERT_EQ(WebAssets().size(), 3u);
  for (const auto& a : WebAssets()) {
    EXPECT_FALSE(a.body.empty()) << a.url;
    EXPECT_EQ(a.etag.size(), 66u) << a.url;  // quoted SHA-256 hex
    EXPECT_NE(a.content_type.find("charset=utf-8"), std::string_view::npos) << a.url;
  }
  EXPECT_NE(FindWebAsset("/"), nullptr);
  EXPECT_EQ(FindWebAsset("/static/index.html"), nullptr);
}

TEST_F(ReviewerApiTest, PolicyListAndPlanView) {
  auto res = client_->Get("/api/policies");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  json list = json::parse(res->body);
  ASSERT_EQ(list["policies"].size(), 1u);
  EXPECT_EQ(list["policies"][0]["summary"]["gpus_freed"], 1);
  EXPECT_EQ(list["policies"][0]["steps"], 1);

  auto view = client_->Get("/api/policies/gpu-sharing");
  ASSERT_TRUE(view);
  ASSERT_EQ(view->status, 200);
  json v = json::parse(view->body);
  const json& w = v["plan"]["workloads"][0];
  EXPECT_EQ(w["slice"], "1g.10gb");
  EXPECT_EQ(w["slice_memory_mib"], 9856);  // from the catalog
  EXPECT_EQ(w["needed_mib"], 4200);        // 3500 x 1.2 (default headroom without a policy)
  const json& gpu = v["plan"]["nodes"][0]["gpus"][0];
  ASSERT_EQ(gpu["slices"].size(), 2u);
  EXPECT_DOUBLE_EQ(gpu["slices"][0]["fraction"].get<double>(), 2.0 / 8.0);  // 2 of the A100's 8 memory slices
  EXPECT_EQ(gpu["slices"][0]["workload"], "ml/infer");
  EXPECT_EQ(v["plan"]["schedule"]["steps"][0]["id"], Id());

  auto missing = client_->Get("/api/policies/other");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(json::parse(missing->body).contains("error"));
}

TEST_F(ReviewerApiTest, HistoryOnlyForTheirWorkloadsAndPointsCapped) {
  auto res = client_->Get("/api/policies/gpu-sharing/history?namespace=ml&kind=Deployment&name=infer&points=5000");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  json h = json::parse(res->body);
  EXPECT_EQ(h["points"].size(), 3u);
  EXPECT_EQ(h["points"][1], json::array({1060, 3500.0}));
  EXPECT_EQ(h["slice_memory_mib"], 9856);
  EXPECT_EQ(history_.asked_points, 1000);
  EXPECT_EQ(history_.asked.name, "infer");

  auto other = client_->Get("/api/policies/gpu-sharing/history?namespace=kube-system&kind=Deployment&name=coredns");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
}

TEST_F(ReviewerApiTest, WritesNeedAValidTokenWithTheVerb) {
  const std::string body = json{{"hash", kHash}}.dump();
  auto none = Post("/api/changes/" + Id() + "/approve", body, "");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer");

  auto bad = Post("/api/changes/" + Id() + "/approve", body, "forged-token");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 401);
  EXPECT_EQ(bad->body.find("forged-token"), std::string::npos);

  auto bob = Post("/api/changes/" + Id() + "/approve", body, "bob-token");
  ASSERT_TRUE(bob);
  EXPECT_EQ(bob->status, 403);
  const std::string err = json::parse(bob->body)["error"];
  EXPECT_NE(err.find("bob"), std::string::npos);
  EXPECT_NE(err.find("approve"), std::string::npos);
  EXPECT_EQ(bob->body.find("bob-token"), std::string::npos);
  EXPECT_EQ(Stored().state, audit::ChangeState::kProposed);
}

TEST_F(ReviewerApiTest, ApproveChecksTheHashAndRecordsTheApiServersUser) {
  auto wrong = Post("/api/changes/" + Id() + "/approve", json{{"hash", std::string(64, 'd')}}.dump(), "alice-token");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 409);
  EXPECT_NE(json::parse(wrong->body)["error"].get<std::string>().find("step changed"), std::string::npos);
  EXPECT_EQ(Stored().state, audit::ChangeState::kProposed);

  // A name in the body is ignored: the approver is who the token belongs to.
  auto ok = Post("/api/changes/" + Id() + "/approve", json{{"hash", kHash}, {"user", "mallory"}}.dump(),
                 "alice-token");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  const audit::ChangeRecord r = Stored();
  EXPECT_EQ(r.state, audit::ChangeState::kApproved);
  EXPECT_EQ(r.approved_by, "alice");
  EXPECT_EQ(r.approved_hash, kHash);
  EXPECT_EQ(r.approved_at, "2026-12-03T12:00:00Z");
  EXPECT_EQ(r.approval_expires_at, "2026-12-04T12:00:00Z");

  auto log = client_->Get(("/api/changes/" + Id() + "/log").c_str());
  ASSERT_TRUE(log);
  json entries = json::parse(log->body)["entries"];
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0]["action"], "approve");
  EXPECT_EQ(entries[0]["data"]["user"], "alice");

  auto changes = client_->Get("/api/changes");
  ASSERT_TRUE(changes);
  json c = json::parse(changes->body)["changes"][0];
  EXPECT_EQ(c["state"], "approved");
  EXPECT_EQ(c["approval"]["by"], "alice");
  EXPECT_EQ(c["approval"]["matches_step"], true);
}

TEST_F(ReviewerApiTest, RejectThenRevertOnlyWhenDone) {
  auto rej = Post("/api/changes/" + Id() + "/reject", json{{"reason", "not this week"}}.dump(), "alice-token");
  ASSERT_TRUE(rej);
  ASSERT_EQ(rej->status, 200) << rej->body;
  EXPECT_EQ(Stored().rejected_by, "alice");
  EXPECT_EQ(Stored().reason, "not this week");

  auto early = Post("/api/changes/" + Id() + "/revert", "{}", "alice-token");
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 409);

  {
    auto store = audit::SqliteAuditStore::Open(db_);
    audit::ChangeRecord r = Stored();
    r.state = audit::ChangeState::kDone;
    ASSERT_TRUE((*store)->PutChange(r, r.revision).ok());
  }
  auto revert = Post("/api/changes/" + Id() + "/revert", "{}", "alice-token");
  ASSERT_TRUE(revert);
  ASSERT_EQ(revert->status, 202) << revert->body;
  EXPECT_EQ(Stored().state, audit::ChangeState::kDone);  // the executor reverts, not the handler
  auto changes = client_->Get("/api/changes");
  json c = json::parse(changes->body)["changes"][0];
  EXPECT_EQ(c["revert_requested"]["by"], "alice");
}

TEST_F(ReviewerApiTest, BodiesAreCappedAndMustBeJsonObjects) {
  auto big = Post("/api/changes/" + Id() + "/reject", json{{"reason", std::string(20000, 'x')}}.dump(), "alice-token");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  auto notjson = Post("/api/changes/" + Id() + "/reject", "[1,2]", "alice-token");
  ASSERT_TRUE(notjson);
  EXPECT_EQ(notjson->status, 400);
  auto badid = Post("/api/changes/Bad.Id/approve", "{}", "alice-token");
  ASSERT_TRUE(badid);
  EXPECT_EQ(badid->status, 400);
  EXPECT_EQ(Stored().state, audit::ChangeState::kProposed);
}

// Only a change id (8 hex digits) names a change: a longer name, or one
// with a query or a fragment escaped into the path, is a 400 that names
// the id, and nothing is decided.
TEST_F(ReviewerApiTest, OnlyChangeIdsNameChanges) {
  for (const std::string& path : {Id() + "0", Id() + "%3FdryRun%3DAll", Id() + "%23x", Id().substr(0, 7),
                                 std::string("abcdefgh-ijkl")}) {
    auto r = Post("/api/changes/" + path + "/approve", "{}", "alice-token");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 400) << path;
    EXPECT_NE(r->body.find("is not 8 hexadecimal digits"), std::string::npos) << r->body;
    auto log = client_->Get("/api/changes/" + path + "/log");
    ASSERT_TRUE(log) << path;
    EXPECT_EQ(log->status, 400) << path;
  }
  EXPECT_EQ(Stored().state, audit::ChangeState::kProposed);
}

}  // namespace
}  // namespace kubeon::controller
