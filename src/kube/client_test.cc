// Tests for client.h against an in-process HTTPS server playing the
// Kubernetes API: pagination and selector encoding, retries and the retry
// deadline, 401/403/404 messages, 409 conflict retry, eviction 429, node
// patches, watch resume after a drop and re-list after 410 Gone; hostile
// answers: bodies past the byte caps (reading stops), lists that never end,
// wrong JSON types and deep nesting.
#include "kube/client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kube/curl_transport.h"
#include "kube/test_server.h"

namespace kubeon::kube {
namespace {

using json = nlohmann::json;
using testing::TestPki;
using testing::TestServer;

constexpr const char* kToken = "client-test-T0KEN-0123456789abcdef";

json StatusBody(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
          {"code", code},     {"reason", reason},   {"message", message}};
}

void Reply(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

class ClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    pki_ = testing::SharedTestPki();
    ASSERT_TRUE(pki_) << "openssl: cannot create the test PKI";
  }
  void SetUp() override { server_ = std::make_unique<TestServer>(*pki_); }

  // Starts the server (handlers registered) and connects a client to it.
  std::unique_ptr<KubeClient> Connect(std::chrono::milliseconds deadline = std::chrono::milliseconds(2000),
                                      ClientOptions o = {}) {
    EXPECT_TRUE(server_->Start());
    o.initial_backoff = std::chrono::milliseconds(5);
    o.max_backoff = std::chrono::milliseconds(40);
    o.retry_deadline = deadline;
    o.request_timeout = std::chrono::seconds(10);
    auto c = KubeClient::Connect(server_->Config(*pki_, kToken), o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  static const TestPki* pki_;
  std::unique_ptr<TestServer> server_;
  std::mutex mu_;  // guards what handlers record
};

const TestPki* ClientTest::pki_ = nullptr;

json Pod(const std::string& name, const std::string& rv) {
  return {{"metadata", {{"name", name}, {"namespace", "ml"}, {"resourceVersion", rv}}}};
}

TEST_F(ClientTest, ListFollowsContinueAndEncodesSelectors) {
  std::vector<std::string> targets;
  std::vector<std::string> selectors;
  server_->http().Get("/api/v1/pods", [&](const httplib::Request& req, httplib::Response& res) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      targets.push_back(req.target);
      selectors.push_back(req.get_param_value("labelSelector") + "|" + req.get_param_value("fieldSelector"));
    }
    if (req.get_header_value("Authorization") != std::string("Bearer ") + kToken) return Reply(res, 401, {});
    size_t start = req.has_param("continue") ? std::stoul(req.get_param_value("continue")) : 0;
    size_t limit = std::stoul(req.get_param_value("limit"));
    json items = json::array();
    for (size_t i = start; i < 7 && i < start + limit; ++i) items.push_back(Pod("p" + std::to_string(i), "1"));
    json md = {{"resourceVersion", start == 0 ? "100" : "101"}};
    if (start + limit < 7) md["continue"] = std::to_string(start + limit);
    Reply(res, 200, {{"kind", "PodList"}, {"apiVersion", "v1"}, {"metadata", md}, {"items", items}});
  });
  auto client = Connect();
  ListOptions o;
  o.label_selector = "app=web,gpu in (a,b),!spot";
  o.field_selector = "spec.nodeName=node-1";
  o.limit = 3;
  std::vector<size_t> progress;
  o.on_page = [&](size_t n) { progress.push_back(n); };
  auto list = client->List("/api/v1/pods", o);
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  ASSERT_EQ(list->items.size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(list->items[i]["metadata"]["name"], "p" + std::to_string(i));
  EXPECT_EQ(list->resource_version, "100");
  EXPECT_EQ(list->kind, "PodList");
  EXPECT_EQ(list->pages, 3);
  EXPECT_EQ(progress, (std::vector<size_t>{3, 6, 7}));
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0],
            "/api/v1/pods?labelSelector=app%3Dweb%2Cgpu%20in%20%28a%2Cb%29%2C%21spot"
            "&fieldSelector=spec.nodeName%3Dnode-1&limit=3");
  EXPECT_EQ(targets[2].substr(targets[2].size() - 11), "&continue=6");
  EXPECT_EQ(selectors[1], "app=web,gpu in (a,b),!spot|spec.nodeName=node-1");
}

TEST_F(ClientTest, ExpiredContinueTokenRestartsTheList) {
  int calls = 0;
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request& req, httplib::Response& res) {
    ++calls;
    if (req.has_param("continue") && calls == 2) {
      return Reply(res, 410, StatusBody(410, "Expired", "The provided continue parameter is too old"));
    }
    if (!req.has_param("continue")) {
      return Reply(res, 200, {{"kind", "NodeList"}, {"metadata", {{"resourceVersion", "5"}, {"continue", "x"}}},
                              {"items", {Pod("n0", "1")}}});
    }
    Reply(res, 200, {{"kind", "NodeList"}, {"metadata", {{"resourceVersion", "5"}}}, {"items", {Pod("n1", "1")}}});
  });
  auto client = Connect();
  auto list = client->List("/api/v1/nodes", {});
  ASSERT_TRUE(list.ok()) << list.error().ToString();
  EXPECT_EQ(calls, 4);
  ASSERT_EQ(list->items.size(), 2u);  // not 3: the first attempt's page was dropped
  EXPECT_EQ(list->items[0]["metadata"]["name"], "n0");
  EXPECT_EQ(list->items[1]["metadata"]["name"], "n1");
}

TEST_F(ClientTest, RetriesServerErrorsAndTooManyRequests) {
  int calls = 0;
  server_->http().Get("/api/v1/nodes/n1", [&](const httplib::Request&, httplib::Response& res) {
    ++calls;
    if (calls == 1) return Reply(res, 500, StatusBody(500, "InternalError", "etcd hiccup"));
    if (calls == 2) return Reply(res, 429, StatusBody(429, "TooManyRequests", "slow down"));
    if (calls == 3) return Reply(res, 503, StatusBody(503, "ServiceUnavailable", "restarting"));
    Reply(res, 200, Pod("n1", "9"));
  });
  auto client = Connect();
  auto node = client->Get("/api/v1/nodes/n1");
  ASSERT_TRUE(node.ok()) << node.error().ToString();
  EXPECT_EQ((*node)["metadata"]["resourceVersion"], "9");
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(client->requests(), 4u);
}

TEST_F(ClientTest, GivesUpAtTheRetryDeadlineWithTheLastError) {
  std::atomic<int> calls{0};
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    ++calls;
    Reply(res, 503, StatusBody(503, "ServiceUnavailable", "apiserver is shutting down"));
  });
  auto client = Connect(std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  auto list = client->List("/api/v1/nodes", {});
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(list.ok());
  EXPECT_GE(elapsed, std::chrono::milliseconds(300));
  EXPECT_LT(elapsed, std::chrono::milliseconds(2000));
  EXPECT_GT(calls.load(), 2);
  EXPECT_EQ(list.error().http_status, 503);
  EXPECT_EQ(list.error().attempts, calls.load());
  EXPECT_EQ(list.error().ToString(), "list nodes: 503 ServiceUnavailable: apiserver is shutting down (after " +
                                         std::to_string(calls.load()) + " attempts)");
}

TEST_F(ClientTest, UnauthorizedAndForbiddenSayWhatWasRefused) {
  int calls = 0;
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    ++calls;
    Reply(res, 401, StatusBody(401, "Unauthorized", "Unauthorized"));
  });
  server_->http().Get("/api/v1/namespaces/prod/pods", [&](const httplib::Request&, httplib::Response& res) {
    Reply(res, 403, StatusBody(403, "Forbidden",
                               "pods is forbidden: User \"dev\" cannot list resource \"pods\" in API group \"\" in "
                               "the namespace \"prod\""));
  });
  server_->http().Patch("/apis/apps/v1/namespaces/ml/deployments/train",
                        [&](const httplib::Request&, httplib::Response& res) {
                          Reply(res, 403, StatusBody(403, "Forbidden", "no patching"));
                        });
  auto client = Connect();
  auto nodes = client->List("/api/v1/nodes", {});
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.error().ToString(), "unauthorized: list nodes: check credentials");
  EXPECT_EQ(calls, 1);  // not retried
  EXPECT_EQ(nodes.error().ToString().find(kToken), std::string::npos);

  auto pods = client->List("/api/v1/namespaces/prod/pods", {});
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().http_status, 403);
  EXPECT_EQ(pods.error().ToString(),
            "forbidden: cannot list pods in namespace prod: pods is forbidden: User \"dev\" cannot list resource "
            "\"pods\" in API group \"\" in the namespace \"prod\"");

  auto patch = client->Patch("/apis/apps/v1/namespaces/ml/deployments/train", PatchType::kStrategicMerge,
                             {{"spec", {{"replicas", 1}}}});
  ASSERT_FALSE(patch.ok());
  EXPECT_EQ(patch.error().ToString(), "forbidden: cannot patch deployments.apps \"train\" in namespace ml: no patching");
}

TEST_F(ClientTest, NotFoundSurfacesTheStatusMessage) {
  server_->http().Get("/api/v1/namespaces/default/pods/nope", [&](const httplib::Request&, httplib::Response& res) {
    Reply(res, 404, StatusBody(404, "NotFound", "pods \"nope\" not found"));
  });
  auto client = Connect();
  auto pod = client->Get("/api/v1/namespaces/default/pods/nope");
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.error().http_status, 404);
  EXPECT_EQ(pod.error().reason, "NotFound");
  EXPECT_EQ(pod.error().message, "pods \"nope\" not found");
  EXPECT_EQ(pod.error().ToString(), "get pods \"nope\" in namespace default: 404 NotFound: pods \"nope\" not found");
  EXPECT_EQ(client->requests(), 1u);
}

TEST_F(ClientTest, UnreachableServerIsRetriedThenReported) {
  auto client = Connect(std::chrono::milliseconds(200));
  std::string url = server_->url();
  server_->Stop();
  auto node = client->Get("/api/v1/nodes/n1");
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.error().http_status, 0);
  EXPECT_EQ(node.error().reason, "ConnectionFailed");
  EXPECT_GT(node.error().attempts, 1);
  EXPECT_EQ(node.error().ToString().rfind("get nodes \"n1\": cannot reach " + url + ": ", 0), 0u)
      << node.error().ToString();
  EXPECT_EQ(node.error().ToString().find(kToken), std::string::npos);
}

// A ConfigMap store with resourceVersion checks; `racer` edits the object
// right after the client reads it, so the client's first write conflicts.
struct ConfigMapStore {
  std::mutex mu;
  std::optional<json> object;
  int rv = 10;
  int racer_edits = 0;  // how many reads to race
  int puts = 0, posts = 0;

  void Register(httplib::SSLServer& s) {
    const std::string path = "/api/v1/namespaces/gpu/configmaps/time-slicing";
    s.Get(path, [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu);
      if (!object) return Reply(res, 404, StatusBody(404, "NotFound", "configmaps \"time-slicing\" not found"));
      Reply(res, 200, *object);
      if (racer_edits > 0) {
        --racer_edits;
        (*object)["data"]["racer" + std::to_string(racer_edits)] = "x";
        (*object)["metadata"]["resourceVersion"] = std::to_string(++rv);
      }
    });
    s.Put(path, [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu);
      ++puts;
      json in = json::parse(req.body);
      if (in["metadata"]["resourceVersion"] != (*object)["metadata"]["resourceVersion"]) {
        return Reply(res, 409, StatusBody(409, "Conflict",
                                          "Operation cannot be fulfilled on configmaps \"time-slicing\": the object "
                                          "has been modified; please apply your changes to the latest version and "
                                          "try again"));
      }
      in["metadata"]["resourceVersion"] = std::to_string(++rv);
      object = in;
      Reply(res, 200, in);
    });
    s.Post("/api/v1/namespaces/gpu/configmaps", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(mu);
      ++posts;
      if (object) {
        return Reply(res, 409, StatusBody(409, "AlreadyExists", "configmaps \"time-slicing\" already exists"));
      }
      json in = json::parse(req.body);
      in["metadata"]["resourceVersion"] = std::to_string(++rv);
      object = in;
      Reply(res, 201, in);
    });
  }
};

TEST_F(ClientTest, ConflictRereadsAndReappliesTheMutation) {
  ConfigMapStore store;
  store.object = json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                      {"metadata", {{"name", "time-slicing"}, {"namespace", "gpu"}, {"resourceVersion", "10"}}},
                      {"data", json::object()}};
  store.racer_edits = 2;
  store.Register(server_->http());
  auto client = Connect();
  int mutations = 0;
  auto updated = client->UpdateWithRetry("/api/v1/namespaces/gpu/configmaps/time-slicing", [&](json& cm) {
    ++mutations;
    cm["data"]["a100"] = "version: v1";
    return Status::Ok();
  });
  ASSERT_TRUE(updated.ok()) << updated.error().ToString();
  EXPECT_EQ(mutations, 3);
  EXPECT_EQ(store.puts, 3);
  EXPECT_EQ((*updated)["data"], (json{{"a100", "version: v1"}, {"racer0", "x"}, {"racer1", "x"}}));

  store.racer_edits = 100;
  auto exhausted = client->UpdateWithRetry(
      "/api/v1/namespaces/gpu/configmaps/time-slicing", [](json&) { return Status::Ok(); }, 3);
  ASSERT_FALSE(exhausted.ok());
  EXPECT_EQ(exhausted.error().http_status, 409);
  EXPECT_NE(exhausted.error().ToString().find("gave up after 3 conflicting updates"), std::string::npos)
      << exhausted.error().ToString();

  auto aborted = client->UpdateWithRetry("/api/v1/namespaces/gpu/configmaps/time-slicing",
                                         [](json&) { return Status::Error("data.a100: not a mig-parted config"); });
  ASSERT_FALSE(aborted.ok());
  EXPECT_EQ(aborted.error().reason, "Aborted");
  EXPECT_NE(aborted.error().ToString().find("data.a100: not a mig-parted config"), std::string::npos);
}

TEST_F(ClientTest, UpsertCreatesMissingObjectsAndUpdatesExistingOnes) {
  ConfigMapStore store;
  store.Register(server_->http());
  auto client = Connect();
  json skeleton = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"namespace", "gpu"}}}};
  auto set = [](const std::string& key) {
    return [key](json& cm) {
      cm["data"][key] = "v";
      return Status::Ok();
    };
  };
  auto created = client->Upsert("/api/v1/namespaces/gpu/configmaps", "time-slicing", skeleton, set("first"));
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  EXPECT_EQ(store.posts, 1);
  EXPECT_EQ((*created)["metadata"]["name"], "time-slicing");
  auto updated = client->Upsert("/api/v1/namespaces/gpu/configmaps", "time-slicing", skeleton, set("second"));
  ASSERT_TRUE(updated.ok()) << updated.error().ToString();
  EXPECT_EQ(store.posts, 1);
  EXPECT_EQ(store.puts, 1);
  EXPECT_EQ((*updated)["data"], (json{{"first", "v"}, {"second", "v"}}));
}

TEST_F(ClientTest, EvictionBlockedByDisruptionBudgetIsADistinctResult) {
  std::vector<json> bodies;
  int calls = 0;
  server_->http().Post("/api/v1/namespaces/ml/pods/(.*)/eviction", [&](const httplib::Request& req,
                                                                        httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls;
    bodies.push_back(json::parse(req.body));
    if (req.matches[1] == "gone") return Reply(res, 404, StatusBody(404, "NotFound", "pods \"gone\" not found"));
    if (calls == 1) {
      json s = StatusBody(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.");
      s["details"] = {{"causes",
                       {{{"reason", "DisruptionBudget"},
                         {"message", "The disruption budget train-pdb needs 2 healthy pods and has 2 currently"}}}}};
      return Reply(res, 429, s);
    }
    Reply(res, 201, {{"kind", "Status"}, {"status", "Success"}, {"code", 201}});
  });
  auto client = Connect();
  auto blocked = client->Evict("ml", "train-0");
  ASSERT_TRUE(blocked.ok()) << blocked.error().ToString();
  EXPECT_EQ(blocked->outcome, EvictionOutcome::kBlocked);
  EXPECT_EQ(blocked->message,
            "Cannot evict pod as it would violate the pod's disruption budget. (The disruption budget train-pdb "
            "needs 2 healthy pods and has 2 currently)");
  EXPECT_EQ(calls, 1);  // the caller decides when to try again

  EvictOptions o;
  o.grace_period_seconds = 30;
  auto evicted = client->Evict("ml", "train-0", o);
  ASSERT_TRUE(evicted.ok()) << evicted.error().ToString();
  EXPECT_EQ(evicted->outcome, EvictionOutcome::kEvicted);
  EXPECT_EQ(bodies[1], (json{{"apiVersion", "policy/v1"},
                             {"kind", "Eviction"},
                             {"metadata", {{"name", "train-0"}, {"namespace", "ml"}}},
                             {"deleteOptions", {{"gracePeriodSeconds", 30}}}}));

  auto gone = client->Evict("ml", "gone");
  ASSERT_TRUE(gone.ok()) << gone.error().ToString();
  EXPECT_EQ(gone->outcome, EvictionOutcome::kPodNotFound);
  EXPECT_EQ(gone->message, "pods \"gone\" not found");
}

// API Priority and Fairness rejects with 429 too, with a Retry-After and no
// DisruptionBudget cause: throttling, not a PDB, and the wait is the server's.
TEST_F(ClientTest, EvictionThrottledByPriorityAndFairnessCarriesRetryAfter) {
  server_->http().Post("/api/v1/namespaces/ml/pods/(.*)/eviction", [&](const httplib::Request& req,
                                                                        httplib::Response& res) {
    if (req.matches[1] == "budget") {  // a PDB refusal that also names a Retry-After stays a PDB refusal
      json s = StatusBody(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.");
      s["details"] = {{"causes", {{{"reason", "DisruptionBudget"}, {"message", "needs 2"}}}}};
      res.set_header("Retry-After", "10");
      return Reply(res, 429, s);
    }
    res.set_header("Retry-After", "3");
    Reply(res, 429, StatusBody(429, "TooManyRequests", "Too many requests, please try again later."));
  });
  auto client = Connect();
  auto throttled = client->Evict("ml", "train-0");
  ASSERT_TRUE(throttled.ok()) << throttled.error().ToString();
  EXPECT_EQ(throttled->outcome, EvictionOutcome::kThrottled);
  EXPECT_EQ(throttled->retry_after, std::chrono::seconds(3));
  auto budget = client->Evict("ml", "budget");
  ASSERT_TRUE(budget.ok()) << budget.error().ToString();
  EXPECT_EQ(budget->outcome, EvictionOutcome::kBlocked);
}

TEST_F(ClientTest, NodePatchesAndPatchTypes) {
  std::vector<std::pair<std::string, std::string>> seen;  // content type, body
  server_->http().Patch("/api/v1/nodes/gpu-1", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    seen.emplace_back(req.get_header_value("Content-Type"), req.body);
    Reply(res, 200, Pod("gpu-1", "3"));
  });
  auto client = Connect();
  ASSERT_TRUE(client->Cordon("gpu-1").ok());
  ASSERT_TRUE(client->Uncordon("gpu-1").ok());
  ASSERT_TRUE(client->LabelNode("gpu-1", {{"nvidia.com/mig.config", "all-1g.10gb"}, {"old", std::nullopt}}).ok());
  ASSERT_TRUE(client->Patch("/api/v1/nodes/gpu-1", PatchType::kJson,
                            json::array({{{"op", "add"}, {"path", "/spec/unschedulable"}, {"value", true}}}))
                  .ok());
  ASSERT_TRUE(client->Patch("/api/v1/nodes/gpu-1", PatchType::kStrategicMerge, {{"spec", json::object()}}).ok());
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], std::make_pair(std::string("application/merge-patch+json"),
                                    std::string(R"({"spec":{"unschedulable":true}})")));
  EXPECT_EQ(seen[1].second, R"({"spec":{"unschedulable":null}})");
  EXPECT_EQ(seen[2].second, R"({"metadata":{"labels":{"nvidia.com/mig.config":"all-1g.10gb","old":null}}})");
  EXPECT_EQ(seen[3].first, "application/json-patch+json");
  EXPECT_EQ(seen[4].first, "application/strategic-merge-patch+json");
}

// Watch scenario, connection by connection:
//  1 (rv=1):  ADDED(5), MODIFIED(6), then the connection breaks
//  2 (rv=6):  DELETED(7), then an ERROR event with code 410
//  -> re-list: rv 20, items a, b
//  3 (rv=20): HTTP 410
//  -> re-list: rv 21
//  4 (rv=21): BOOKMARK(30), then the server ends the watch normally
//  5 (rv=30): ADDED(31): the callback stops the watch
TEST_F(ClientTest, WatchResumesAfterDropsAndRelistsOnGone) {
  std::vector<std::string> watch_rvs;
  int lists = 0;
  server_->http().Get("/api/v1/pods", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!req.has_param("watch")) {
      ++lists;
      std::string rv = lists == 1 ? "20" : "21";
      return Reply(res, 200, {{"kind", "PodList"}, {"metadata", {{"resourceVersion", rv}}},
                              {"items", {Pod("a", "19"), Pod("b", "20")}}});
    }
    EXPECT_EQ(req.get_param_value("allowWatchBookmarks"), "true");
    std::string rv = req.get_param_value("resourceVersion");
    watch_rvs.push_back(rv);
    if (rv == "20") return Reply(res, 410, StatusBody(410, "Expired", "too old resource version: 20 (25)"));
    std::vector<std::string> lines;
    bool drop = false;
    if (rv == "1") {
      lines = {json{{"type", "ADDED"}, {"object", Pod("x", "5")}}.dump(),
               json{{"type", "MODIFIED"}, {"object", Pod("x", "6")}}.dump()};
      drop = true;
    } else if (rv == "6") {
      lines = {json{{"type", "DELETED"}, {"object", Pod("x", "7")}}.dump(),
               json{{"type", "ERROR"}, {"object", StatusBody(410, "Expired", "too old resource version: 6 (15)")}}.dump()};
    } else if (rv == "21") {
      lines = {json{{"type", "BOOKMARK"}, {"object", Pod("", "30")}}.dump()};
    } else {
      lines = {json{{"type", "ADDED"}, {"object", Pod("y", "31")}}.dump()};
    }
    res.set_chunked_content_provider("application/json", [lines, drop](size_t offset, httplib::DataSink& sink) {
      if (offset > 0) {
        if (drop) return false;
        sink.done();
        return true;
      }
      std::string all;
      for (const auto& l : lines) all += l + "\n";
      // Split mid-line to exercise reassembly across chunks.
      size_t half = all.size() / 2;
      sink.write(all.data(), half);
      sink.write(all.data() + half, all.size() - half);
      return true;
    });
  });
  auto client = Connect();
  std::vector<std::string> events;
  auto result = client->Watch("/api/v1/pods", "1", {}, [&](const WatchEvent& e) {
    switch (e.type) {
      case WatchEventType::kAdded: events.push_back("ADDED " + e.object["metadata"]["name"].get<std::string>()); break;
      case WatchEventType::kModified: events.push_back("MODIFIED"); break;
      case WatchEventType::kDeleted: events.push_back("DELETED"); break;
      case WatchEventType::kBookmark: events.push_back("BOOKMARK"); break;
      case WatchEventType::kResync:
        events.push_back("RESYNC " + std::to_string(e.object["items"].size()) + " " +
                         e.object["metadata"]["resourceVersion"].get<std::string>());
        break;
    }
    return e.type != WatchEventType::kAdded || e.object["metadata"]["name"] != "y";
  });
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(*result, "31");
  EXPECT_EQ(watch_rvs, (std::vector<std::string>{"1", "6", "20", "21", "30"}));
  EXPECT_EQ(lists, 2);
  EXPECT_EQ(events, (std::vector<std::string>{"ADDED x", "MODIFIED", "DELETED", "RESYNC 2 20", "RESYNC 2 21",
                                              "BOOKMARK", "ADDED y"}));
}

TEST_F(ClientTest, WatchStopsWhenCancelledAndReportsPermanentErrors) {
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return sink.write("\n", 1);  // keep-alive blank lines, no events
    });
  });
  server_->http().Get("/api/v1/secrets", [&](const httplib::Request&, httplib::Response& res) {
    Reply(res, 403, StatusBody(403, "Forbidden", "secrets is forbidden"));
  });
  auto client = Connect();
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  WatchOptions o;
  o.cancel = &cancel;
  auto start = std::chrono::steady_clock::now();
  auto result = client->Watch("/api/v1/nodes", "7", o, [](const WatchEvent&) { return true; });
  stopper.join();
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(*result, "7");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));

  auto denied = client->Watch("/api/v1/secrets", "1", {}, [](const WatchEvent&) { return true; });
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().ToString(), "forbidden: cannot watch secrets at cluster scope: secrets is forbidden");
}

TEST_F(ClientTest, QuietWatchesThatTheServerEndsAreReopened) {
  std::atomic<int> connections{0};
  server_->http().Get("/api/v1/configmaps", [&](const httplib::Request&, httplib::Response& res) {
    ++connections;
    auto opened = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    res.set_chunked_content_provider("application/json", [opened](size_t, httplib::DataSink& sink) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (std::chrono::steady_clock::now() - *opened > std::chrono::milliseconds(1100)) {
        sink.done();  // timeoutSeconds reached without any event
        return true;
      }
      return sink.write("\n", 1);
    });
  });
  auto client = Connect(std::chrono::milliseconds(200));  // far shorter than one quiet watch
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    cancel = true;
  });
  WatchOptions o;
  o.cancel = &cancel;
  auto result = client->Watch("/api/v1/configmaps", "3", o, [](const WatchEvent&) { return true; });
  stopper.join();
  ASSERT_TRUE(result.ok()) << result.error().ToString();
  EXPECT_EQ(*result, "3");
  EXPECT_GE(connections.load(), 2);
}

TEST_F(ClientTest, TokenFileIsReread) {
  std::vector<std::string> seen;
  server_->http().Get("/version", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    seen.push_back(req.get_header_value("Authorization"));
    Reply(res, 200, {{"major", "1"}});
  });
  ASSERT_TRUE(server_->Start());
  testing::TempDir dir;
  const std::string file = dir.File("token");
  testing::WriteText(file, "first-token\n");
  RestConfig cfg = server_->Config(*pki_, "first-token");
  cfg.token_file = file;
  ClientOptions o;
  o.token_refresh = std::chrono::milliseconds(0);
  auto client = KubeClient::Connect(cfg, o);
  ASSERT_TRUE(client.ok()) << client.status().message();
  ASSERT_TRUE((*client)->Get("/version").ok());
  testing::WriteText(file, "rotated-token\n");
  ASSERT_TRUE((*client)->Get("/version").ok());
  testing::WriteText(file, "");  // mid-rotation: keep the last good token
  ASSERT_TRUE((*client)->Get("/version").ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"Bearer first-token", "Bearer rotated-token", "Bearer rotated-token"}));
}

// ---- Hostile or broken servers: caps, endless lists, wrong types, nesting.

ClientOptions Caps(size_t response_bytes, uint64_t list_bytes = kMaxListBytes, int pages = kMaxListPages) {
  ClientOptions o;
  o.max_response_bytes = response_bytes;
  o.max_list_bytes = list_bytes;
  o.max_list_pages = pages;
  return o;
}

TEST_F(ClientTest, AResponsePastTheByteCapIsAnErrorAndReadingStops) {
  // An endless list page: the client must stop reading, not buffer it.
  auto sent = std::make_shared<std::atomic<uint64_t>>(0);
  auto finished = std::make_shared<std::atomic<bool>>(false);
  server_->http().Get("/api/v1/pods", [sent, finished](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider(
        "application/json",
        [sent](size_t offset, httplib::DataSink& sink) {
          static const std::string chunk = [] {
            std::string c;
            while (c.size() < 65536) c += R"({"metadata":{"name":"p"}},)";
            return c;
          }();
          const std::string data = offset == 0 ? "{\"items\":[" + chunk : chunk;
          if (!sink.write(data.data(), data.size())) return false;
          *sent += data.size();
          return true;
        },
        [finished](bool) { *finished = true; });
  });
  // A body whose Content-Length is past the cap is refused before reading.
  server_->http().Get("/api/v1/nodes/big", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"metadata\":{\"name\":\"" + std::string(3 << 20, 'x') + "\"}}", "application/json");
  });
  auto client = Connect(std::chrono::milliseconds(2000), Caps(1 << 20));
  auto list = client->List("/api/v1/pods");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().reason, "ResponseTooLarge");
  EXPECT_EQ(list.error().resource, "pods");
  EXPECT_NE(list.error().ToString().find("list pods: GET " + server_->url() +
                                         "/api/v1/pods: the response is larger than 1048576 bytes; stopped reading"),
            std::string::npos)
      << list.error().ToString();
  EXPECT_EQ(list.error().attempts, 1);  // not retried
  // The server sees the connection end: what it sent is bounded by the cap
  // plus socket buffers, not by the (endless) body.
  for (int i = 0; i < 3000 && !*finished; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(*finished);
  EXPECT_LT(sent->load(), uint64_t{64} << 20);

  auto big = client->Get("/api/v1/nodes/big");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().reason, "ResponseTooLarge");
  EXPECT_NE(big.error().ToString().find("get nodes \"big\": GET "), std::string::npos) << big.error().ToString();
}

TEST_F(ClientTest, AListPastTheWholeAnswerCapIsAnError) {
  std::atomic<int> pages{0};
  server_->http().Get("/api/v1/pods", [&](const httplib::Request& req, httplib::Response& res) {
    ++pages;
    const int n = req.has_param("continue") ? std::stoi(req.get_param_value("continue")) : 0;
    json items = json::array();
    for (int i = 0; i < 100; ++i) items.push_back(Pod("p" + std::to_string(n) + "-" + std::string(900, 'x'), "1"));
    Reply(res, 200, {{"kind", "PodList"}, {"metadata", {{"continue", std::to_string(n + 1)}}}, {"items", items}});
  });
  // Pages of ≈ 100 KB, each under the 1 MiB page cap; 250 KB for the whole list.
  auto client = Connect(std::chrono::milliseconds(2000), Caps(1 << 20, 250000));
  auto list = client->List("/api/v1/pods");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().reason, "ResponseTooLarge");
  EXPECT_EQ(list.error().ToString(),
            "list pods: 200 ResponseTooLarge: page 3: the list is larger than 250000 bytes in all; stopped listing");
  EXPECT_EQ(pages.load(), 3);
}

TEST_F(ClientTest, AServerThatNeverStopsSendingContinueTokensIsAnError) {
  std::atomic<int> endless{0}, repeating{0};
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    const int n = ++endless;  // a new token every time, and no items
    Reply(res, 200, {{"kind", "NodeList"}, {"metadata", {{"continue", "t" + std::to_string(n)}}}, {"items", nullptr}});
  });
  server_->http().Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    ++repeating;  // the same token again and again
    Reply(res, 200, {{"kind", "PodList"}, {"metadata", {{"continue", "again"}}}, {"items", {Pod("p", "1")}}});
  });
  auto client = Connect(std::chrono::milliseconds(2000), Caps(kMaxResponseBytes, kMaxListBytes, 10));
  auto nodes = client->List("/api/v1/nodes");
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.error().ToString(),
            "list nodes: 200 BadResponse: the server still sends a continue token after 10 pages; stopped listing");
  EXPECT_EQ(endless.load(), 10);
  auto pods = client->List("/api/v1/pods");
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().ToString(),
            "list pods: 200 BadResponse: page 2: the server sent the same continue token again (\"again\"); "
            "stopped listing");
  EXPECT_EQ(repeating.load(), 2);
}

TEST_F(ClientTest, WrongJsonTypesInAListPageAreErrorsNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"kind":5,"items":[]})", "page 1: kind: expected a string, got a number"},
      {R"({"kind":"PodList","metadata":{"continue":1},"items":[]})",
       "page 1: metadata.continue: expected a string, got a number"},
      {R"({"kind":"PodList","metadata":[]})", "page 1: metadata: expected an object, got an array"},
      {R"({"kind":"PodList","items":{"metadata":{}}})", "page 1: items: expected an array, got an object"},
      {R"({"kind":"PodList","items":[{"metadata":{}},"pod"]})", "page 1: items[1]: expected an object, got a string"},
      {R"({"kind":"PodList","items":[{"metadata":{}}]}trailing)", "page 1: not valid JSON: "},
      {R"([1,2])", "page 1: expected a JSON object (a list), got an array"},
      {"{\"items\":[{\"a\":" + std::string(500, '[') + std::string(500, ']') + "}]}",
       "page 1: items[0]: nested deeper than 64 levels"},
  };
  std::atomic<size_t> which{0};
  server_->http().Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(cases[which.load()].first, "application/json");
  });
  auto client = Connect();
  for (size_t i = 0; i < cases.size(); ++i) {
    which = i;
    auto list = client->List("/api/v1/pods");
    ASSERT_FALSE(list.ok()) << cases[i].first;
    EXPECT_EQ(list.error().reason, "BadResponse") << cases[i].first;
    EXPECT_EQ(list.error().ToString().rfind("list pods: 200 BadResponse: " + cases[i].second, 0), 0u)
        << cases[i].first << ": " << list.error().ToString();
  }
}

TEST_F(ClientTest, DeepNestingInAnObjectOrWatchEventIsAnError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  server_->http().Get("/api/v1/nodes/n1", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"metadata\":{\"name\":\"n1\"},\"spec\":" + deep + "}", "application/json");
  });
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    const std::string event = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"n\"},\"x\":" + deep + "}}\n";
    res.set_content(event, "application/json");
  });
  auto client = Connect();
  auto node = client->Get("/api/v1/nodes/n1");
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.error().ToString(), "get nodes \"n1\": 200 BadResponse: the object is nested deeper than 64 levels");
  int events = 0;
  auto watch = client->Watch("/api/v1/nodes", "1", {}, [&](const WatchEvent&) { return ++events < 10; });
  ASSERT_FALSE(watch.ok());
  EXPECT_EQ(watch.error().ToString(),
            "watch nodes: 200 BadResponse: watch event: the object is nested deeper than 64 levels");
  EXPECT_EQ(events, 0);
}

TEST_F(ClientTest, AWatchEventPastTheByteCapIsAnError) {
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      const std::string chunk(65536, ' ');  // an event that never ends
      return sink.write(chunk.data(), chunk.size());
    });
  });
  auto client = Connect(std::chrono::milliseconds(2000), Caps(1 << 20));
  auto watch = client->Watch("/api/v1/nodes", "1", {}, [&](const WatchEvent&) { return true; });
  ASSERT_FALSE(watch.ok());
  EXPECT_EQ(watch.error().ToString(),
            "watch nodes: 200 ResponseTooLarge: a watch event is larger than 1048576 bytes; stopped reading");
}

TEST_F(ClientTest, ServerTextInErrorsIsFoldedToOneLine) {
  server_->http().Get("/api/v1/pods", [&](const httplib::Request&, httplib::Response& res) {
    Reply(res, 403, StatusBody(403, "Forbidden", "pods is forbidden:\nsecond line\x1b[31m\r"));
  });
  server_->http().Get("/api/v1/nodes", [&](const httplib::Request&, httplib::Response& res) {
    Reply(res, 404, StatusBody(404, "Not\nFound", "a\tb"));
  });
  auto client = Connect();
  auto pods = client->List("/api/v1/pods");
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().ToString(), "forbidden: cannot list pods at cluster scope: pods is forbidden: second line [31m ");
  auto nodes = client->List("/api/v1/nodes");
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.error().ToString(), "list nodes: 404 Not Found: a b");
}

TEST(QueryEscapeTest, KeepsUnreservedCharactersOnly) {
  EXPECT_EQ(QueryEscape("a-b_c.d~e"), "a-b_c.d~e");
  EXPECT_EQ(QueryEscape("k in (x, y)"), "k%20in%20%28x%2C%20y%29");
  EXPECT_EQ(QueryEscape("a/b=c&d+e"), "a%2Fb%3Dc%26d%2Be");
}

// Error kinds come from the metav1.Status reason, the HTTP status only when
// the body has none: callers branch on the code, never on the text.
TEST(ApiErrorCode, FromTheStatusReason) {
  auto code = [](int http, const std::string& reason, const std::string& resource = "pods") {
    ApiError e;
    e.http_status = http;
    e.reason = reason;
    e.resource = resource;
    return e.ToStatus().code();
  };
  EXPECT_EQ(code(409, "Conflict"), StatusCode::kConflict);
  EXPECT_EQ(code(409, "AlreadyExists"), StatusCode::kAlreadyExists);
  EXPECT_EQ(code(429, "TooManyRequests", "pods/eviction"), StatusCode::kDisruptionBudget);
  EXPECT_EQ(code(429, "TooManyRequests", "leases.coordination.k8s.io"), StatusCode::kThrottled);
  EXPECT_EQ(code(410, "Expired"), StatusCode::kExpired);
  EXPECT_EQ(code(410, "Gone"), StatusCode::kExpired);
  EXPECT_EQ(code(404, "NotFound"), StatusCode::kNotFound);
  EXPECT_EQ(code(403, "Forbidden"), StatusCode::kForbidden);
  EXPECT_EQ(code(401, "Unauthorized"), StatusCode::kUnauthorized);
  EXPECT_EQ(code(422, "Invalid"), StatusCode::kInvalid);
  EXPECT_EQ(code(503, "ServiceUnavailable"), StatusCode::kUnavailable);
  EXPECT_EQ(code(500, "HTTP 500"), StatusCode::kUnavailable);
  EXPECT_EQ(code(0, "ConnectionFailed"), StatusCode::kUnavailable);
  EXPECT_EQ(code(0, "Aborted"), StatusCode::kAborted);
  EXPECT_EQ(code(0, "ResponseTooLarge"), StatusCode::kTooLarge);
  // A reason the code does not know falls back on the HTTP status.
  EXPECT_EQ(code(409, "SomethingNew"), StatusCode::kConflict);
  EXPECT_EQ(code(418, "Teapot"), StatusCode::kUnknown);
  // The message is the person's line, the code survives a prefix.
  ApiError e{409, "Conflict", "the object has been modified", "update", "leases", "x", "kube-system", 1};
  const Status s = e.ToStatus().WithPrefix("policy p");
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.message().rfind("policy p: update leases", 0), 0u) << s.message();
}

TEST(ApiErrorCode, StatusBasics) {
  EXPECT_EQ(Status::Ok().code(), StatusCode::kOk);
  EXPECT_EQ(Status::Error("x").code(), StatusCode::kUnknown);
  EXPECT_EQ(Status::Error("x", StatusCode::kOk).code(), StatusCode::kUnknown);  // an error is never OK
  EXPECT_FALSE(Status::Error("x", StatusCode::kOk).ok());
  EXPECT_STREQ(StatusCodeName(StatusCode::kDisruptionBudget), "DisruptionBudget");
}

}  // namespace
}  // namespace kubeon::kube
