// Tests for api.h/rest.h through the in-process Api (no HTTP): discovery,
// Status errors, list/paginate/select, create/update/patch/delete, the
// status/scale/eviction subresources, faults and watch streams.
#include "api.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

class ApiTest : public ::testing::Test {
 protected:
  ApiResponse Call(const std::string& method, const std::string& target, const std::string& body = "",
                   const std::string& content_type = "application/json", bool auth = true) {
    return api.Handle(testing::TestRequest(method, target, body, content_type, auth ? "sekrit" : ""));
  }
  json Json(const std::string& method, const std::string& target, int want_status, const std::string& body = "",
            const std::string& content_type = "application/json") {
    ApiResponse r = Call(method, target, body, content_type);
    EXPECT_EQ(r.status, want_status) << method << " " << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  std::vector<std::string> PodNames(const std::string& ns) {
    std::vector<std::string> out;
    for (const auto& p : m.Pods(ns)) out.push_back(Name(p));
    return out;
  }

  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST_F(ApiTest, AuthenticationIsRequired) {
  ApiResponse none = Call("GET", "/api/v1/nodes", "", "", false);
  EXPECT_EQ(none.status, 401);
  json s = json::parse(none.body);
  EXPECT_EQ(s["kind"], "Status");
  EXPECT_EQ(s["reason"], "Unauthorized");
  ApiRequest wrong;
  wrong.method = "GET";
  wrong.path = "/api/v1/nodes";
  wrong.headers["authorization"] = "Bearer sekriT";
  EXPECT_EQ(api.Handle(wrong).status, 401);
  ApiRequest cert = wrong;
  cert.headers.clear();
  cert.client_cert_verified = true;
  EXPECT_EQ(api.Handle(cert).status, 200);
}

TEST_F(ApiTest, Discovery) {
  json v1 = Json("GET", "/api/v1", 200);
  bool eviction = false, node_status = false;
  for (const auto& r : v1["resources"]) {
    if (r["name"] == "pods/eviction") {
      eviction = r["group"] == "policy" && r["version"] == "v1" && r["kind"] == "Eviction";
    }
    node_status = node_status || r["name"] == "nodes/status";
    if (r["name"] == "pods") {
      EXPECT_EQ(r["shortNames"], json::array({"po"}));
    }
  }
  EXPECT_TRUE(eviction);
  EXPECT_TRUE(node_status);
  json apis = Json("GET", "/apis", 200);
  bool policy = false;
  for (const auto& g : apis["groups"]) {
    if (g["name"] == "policy") {
      policy = g["preferredVersion"]["version"] == "v1" && g["versions"].size() == 2;
    }
  }
  EXPECT_TRUE(policy);
  EXPECT_EQ(Json("GET", "/apis/policy/v1beta1", 200)["resources"][0]["name"], "poddisruptionbudgets");
  EXPECT_EQ(Json("GET", "/version", 200)["minor"], "32");
  EXPECT_EQ(Json("GET", "/api", 200)["serverAddressByClientCIDRs"][0]["serverAddress"], "127.0.0.1:6443");
  EXPECT_EQ(Json("GET", "/apis/nope.io/v1", 404)["reason"], "NotFound");
  EXPECT_EQ(Call("GET", "/openapi/v1").status, 404);  // /openapi/v2 and v3: openapi_endpoint_test
}

TEST_F(ApiTest, NotFoundStatusBodies) {
  json s = Json("GET", "/api/v1/namespaces/ml/pods/nope", 404);
  EXPECT_EQ(s["status"], "Failure");
  EXPECT_EQ(s["message"], "pods \"nope\" not found");
  EXPECT_EQ(s["details"]["kind"], "pods");
  EXPECT_EQ(s["code"], 404);
  EXPECT_EQ(Json("GET", "/apis/apps/v1/namespaces/ml/deployments/nope", 404)["message"],
            "deployments.apps \"nope\" not found");
  EXPECT_EQ(Json("GET", "/api/v1/widgets", 404)["message"], "the server could not find the requested resource");
}

TEST_F(ApiTest, ListsWithSelectors) {
  json pods = Json("GET", "/api/v1/pods", 200);
  EXPECT_EQ(pods["kind"], "PodList");
  EXPECT_EQ(pods["apiVersion"], "v1");
  EXPECT_EQ(pods["items"].size(), 11u);  // 3 workload pods + 4 GPU operator DaemonSet pods on each GPU node
  EXPECT_FALSE(pods["items"][0].contains("kind"));
  EXPECT_FALSE(pods["metadata"]["resourceVersion"].get<std::string>().empty());
  EXPECT_EQ(Json("GET", "/api/v1/namespaces/ml/pods", 200)["items"].size(), 2u);
  EXPECT_EQ(Json("GET", "/api/v1/pods?labelSelector=app%3Dtrainer", 200)["items"].size(), 2u);
  EXPECT_EQ(Json("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-a&labelSelector=app%20in%20(trainer,x)", 200)["items"].size(), 2u);
  EXPECT_EQ(Json("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-a", 200)["items"].size(), 6u);
  EXPECT_EQ(Json("GET", "/api/v1/pods?fieldSelector=spec.bogus%3Dx", 400)["reason"], "BadRequest");
  EXPECT_EQ(Json("GET", "/api/v1/pods?labelSelector=app%20in", 400)["code"], 400);
  EXPECT_EQ(Json("GET", "/apis/policy/v1beta1/poddisruptionbudgets", 200)["items"].size(), 1u);
  EXPECT_EQ(Json("GET", "/apis/policy/v1beta1/namespaces/ml/poddisruptionbudgets/trainer-pdb", 200)["apiVersion"],
            "policy/v1beta1");
  EXPECT_EQ(Json("GET", "/api/v1/namespaces", 200)["items"].size(), 7u);
}

TEST_F(ApiTest, PaginationWithContinueTokens) {
  std::vector<std::string> seen;
  std::string cont;
  int pages = 0;
  do {
    json page = Json("GET", "/api/v1/pods?limit=1" + (cont.empty() ? "" : "&continue=" + cont), 200);
    ASSERT_EQ(page["items"].size(), 1u);
    seen.push_back(page["items"][0]["metadata"]["namespace"].get<std::string>() + "/" +
                   page["items"][0]["metadata"]["name"].get<std::string>());
    cont = page["metadata"].value("continue", "");
    ++pages;
  } while (!cont.empty() && pages < 20);
  std::vector<std::string> all;
  const json list = Json("GET", "/api/v1/pods", 200);
  for (const auto& p : list["items"]) {
    all.push_back(p["metadata"]["namespace"].get<std::string>() + "/" + p["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(seen, all);
  EXPECT_EQ(seen.size(), 11u);
  EXPECT_EQ(seen.back(), "serving/infer-0");
  EXPECT_EQ(Json("GET", "/api/v1/pods?limit=1&continue=!!!", 400)["reason"], "BadRequest");
}

TEST_F(ApiTest, ExpiredContinueTokenIs410) {
  json page = Json("GET", "/api/v1/pods?limit=1", 200);
  std::string cont = page["metadata"]["continue"];
  for (int i = 0; i < 10001; ++i) {
    m.store().Create(kConfigMaps, {{"metadata", {{"name", "c" + std::to_string(i)}, {"namespace", "ml"}}}});
  }
  json s = Json("GET", "/api/v1/pods?limit=1&continue=" + cont, 410);
  EXPECT_EQ(s["reason"], "Expired");
}

TEST_F(ApiTest, CreateConflictsAndValidation) {
  std::string cm = R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "plan"}, "data": {"a": "1"}})";
  json created = Json("POST", "/api/v1/namespaces/ml/configmaps", 201, cm);
  EXPECT_EQ(created["metadata"]["namespace"], "ml");
  EXPECT_FALSE(created["metadata"]["uid"].get<std::string>().empty());
  json again = Json("POST", "/api/v1/namespaces/ml/configmaps", 409, cm);
  EXPECT_EQ(again["reason"], "AlreadyExists");
  EXPECT_EQ(again["message"], "configmaps \"plan\" already exists");
  EXPECT_EQ(Json("POST", "/api/v1/namespaces/nowhere/configmaps", 404, cm)["message"], "namespaces \"nowhere\" not found");
  EXPECT_EQ(Json("POST", "/api/v1/namespaces/ml/configmaps", 422, R"({"metadata": {"name": "Bad_Name"}})")["reason"], "Invalid");
  json gen = Json("POST", "/api/v1/namespaces/ml/configmaps", 201, R"({"metadata": {"generateName": "plan-"}})");
  EXPECT_EQ(gen["metadata"]["name"].get<std::string>().size(), 10u);
  Json("POST", "/api/v1/namespaces/ml/configmaps?dryRun=All", 201, R"({"metadata": {"name": "dry"}})");
  EXPECT_EQ(m.Get(kConfigMaps, "ml", "dry"), json());
  EXPECT_EQ(Json("POST", "/api/v1/namespaces/ml/configmaps", 415, cm, "application/yaml")["code"], 415);
  EXPECT_EQ(Json("POST", "/api/v1/namespaces/ml/configmaps", 400, R"({"metadata": {"name": "x", "namespace": "other"}})")["code"], 400);
  json ns = Json("POST", "/api/v1/namespaces", 201, R"({"metadata": {"name": "kubeon-system"}})");
  EXPECT_EQ(ns["status"]["phase"], "Active");
  Json("POST", "/api/v1/namespaces/kubeon-system/configmaps", 201, cm);
}

TEST_F(ApiTest, UpdateUsesOptimisticConcurrency) {
  Json("POST", "/api/v1/namespaces/ml/configmaps", 201, R"({"metadata": {"name": "plan"}, "data": {"v": "1"}})");
  json cm = Json("GET", "/api/v1/namespaces/ml/configmaps/plan", 200);
  json stale = cm;
  cm["data"]["v"] = "2";
  json updated = Json("PUT", "/api/v1/namespaces/ml/configmaps/plan", 200, cm.dump());
  EXPECT_NE(updated["metadata"]["resourceVersion"], stale["metadata"]["resourceVersion"]);
  stale["data"]["v"] = "3";
  json conflict = Json("PUT", "/api/v1/namespaces/ml/configmaps/plan", 409, stale.dump());
  EXPECT_EQ(conflict["reason"], "Conflict");
  EXPECT_EQ(conflict["message"],
            "Operation cannot be fulfilled on configmaps \"plan\": the object has been modified; please apply your "
            "changes to the latest version and try again");
  EXPECT_EQ(Json("PUT", "/api/v1/namespaces/ml/configmaps/other", 404, stale.dump())["reason"], "NotFound");
  EXPECT_EQ(Json("PUT", "/api/v1/namespaces/ml/configmaps/plan", 400, cm.dump().replace(cm.dump().find("\"plan\""), 6, "\"else\""))["code"], 400);
}

TEST_F(ApiTest, LeasesWithOptimisticConcurrency) {
  json group = Json("GET", "/apis/coordination.k8s.io", 200);
  EXPECT_EQ(group["preferredVersion"]["groupVersion"], "coordination.k8s.io/v1");
  json resources = Json("GET", "/apis/coordination.k8s.io/v1", 200)["resources"];
  ASSERT_EQ(resources.size(), 1u);
  EXPECT_EQ(resources[0]["name"], "leases");
  EXPECT_EQ(resources[0]["kind"], "Lease");
  EXPECT_EQ(resources[0]["namespaced"], true);
  EXPECT_EQ(resources[0]["verbs"].size(), 8u);

  const std::string base = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  json created = Json("POST", base + "?fieldValidation=Strict", 201, R"({"apiVersion": "coordination.k8s.io/v1",
      "kind": "Lease", "metadata": {"name": "kubeon-policy-a"}, "spec": {"holderIdentity": "host-1_4711",
      "leaseDurationSeconds": 30, "acquireTime": "2026-12-03T12:00:00.123456Z",
      "renewTime": "2026-12-03T12:00:10.654321Z", "leaseTransitions": 0}})");
  EXPECT_EQ(created["kind"], "Lease");
  EXPECT_EQ(created["spec"]["renewTime"], "2026-12-03T12:00:10.654321Z");
  EXPECT_FALSE(Str(created, {"metadata", "uid"}).empty());
  EXPECT_EQ(Json("POST", base + "?fieldValidation=Strict", 400,
                 R"({"metadata": {"name": "x"}, "spec": {"holder": "typo"}})")["reason"], "BadRequest");

  // A second holder that read the Lease before the first renewed loses.
  json stale = Json("GET", base + "/kubeon-policy-a", 200);
  json renewed = stale;
  renewed["spec"]["renewTime"] = "2026-12-03T12:00:20.000001Z";
  json r1 = Json("PUT", base + "/kubeon-policy-a", 200, renewed.dump());
  stale["spec"]["holderIdentity"] = "host-2_99";
  stale["spec"]["leaseTransitions"] = 1;
  EXPECT_EQ(Json("PUT", base + "/kubeon-policy-a", 409, stale.dump())["reason"], "Conflict");
  // A merge patch with a stale resourceVersion conflicts too; a current one wins.
  json patch = {{"metadata", {{"resourceVersion", stale["metadata"]["resourceVersion"]}}},
                {"spec", {{"holderIdentity", "host-2_99"}}}};
  EXPECT_EQ(Json("PATCH", base + "/kubeon-policy-a", 409, patch.dump(), "application/merge-patch+json")["reason"],
            "Conflict");
  patch["metadata"]["resourceVersion"] = r1["metadata"]["resourceVersion"];
  EXPECT_EQ(Json("PATCH", base + "/kubeon-policy-a", 200, patch.dump(), "application/merge-patch+json")["spec"]
                ["holderIdentity"], "host-2_99");

  json list = Json("GET", "/apis/coordination.k8s.io/v1/leases", 200);
  EXPECT_EQ(list["kind"], "LeaseList");
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["spec"]["leaseDurationSeconds"], 30);

  json current = Json("GET", base + "/kubeon-policy-a", 200);
  json wrong_rv = {{"preconditions", {{"resourceVersion", r1["metadata"]["resourceVersion"]}}}};
  EXPECT_EQ(Json("DELETE", base + "/kubeon-policy-a", 409, wrong_rv.dump())["reason"], "Conflict");
  json right_rv = {{"preconditions", {{"resourceVersion", current["metadata"]["resourceVersion"]}}}};
  Json("DELETE", base + "/kubeon-policy-a", 200, right_rv.dump());
  EXPECT_EQ(Json("GET", base + "/kubeon-policy-a", 404)["reason"], "NotFound");
}

TEST_F(ApiTest, PatchFlavours) {
  json n = Json("PATCH", "/api/v1/nodes/gpu-a", 200, R"({"metadata": {"labels": {"foo": "bar"}}})", "application/merge-patch+json");
  EXPECT_EQ(n["metadata"]["labels"]["foo"], "bar");
  EXPECT_EQ(n["metadata"]["labels"]["kubernetes.io/hostname"], "gpu-a");
  n = Json("PATCH", "/api/v1/nodes/gpu-a", 200, R"({"spec": {"unschedulable": true}})", "application/strategic-merge-patch+json");
  EXPECT_EQ(n["spec"]["unschedulable"], true);
  n = Json("PATCH", "/api/v1/nodes/gpu-a", 200, R"({"spec": {"unschedulable": null}})", "application/strategic-merge-patch+json");
  EXPECT_FALSE(n["spec"].contains("unschedulable"));
  n = Json("PATCH", "/api/v1/nodes/gpu-a", 200, R"([{"op": "add", "path": "/metadata/labels/nvidia.com~1mig.config", "value": "x"}])",
           "application/json-patch+json");
  EXPECT_EQ(n["metadata"]["labels"]["nvidia.com/mig.config"], "x");
  EXPECT_EQ(Json("PATCH", "/api/v1/nodes/gpu-a", 415, "{}", "application/yaml")["reason"], "UnsupportedMediaType");
  EXPECT_EQ(Json("PATCH", "/api/v1/nodes/gpu-a", 422, R"({"metadata": {"name": "gpu-a"}})", "application/apply-patch+yaml")["reason"],
            "Invalid");  // server-side apply needs a fieldManager
  EXPECT_EQ(Json("PATCH", "/api/v1/nodes/gone", 404, "{}", "application/merge-patch+json")["reason"], "NotFound");
  json stale = Json("PATCH", "/api/v1/nodes/gpu-a", 409, R"({"metadata": {"resourceVersion": "1", "labels": {"a": "b"}}})",
                    "application/merge-patch+json");
  EXPECT_EQ(stale["reason"], "Conflict");
}

TEST_F(ApiTest, PodSpecIsImmutableExceptImages) {
  std::string path = "/api/v1/namespaces/ml/pods/trainer-6d4cf56db6-x7k2p";
  json p = Json("PATCH", path, 200, R"({"spec": {"containers": [{"name": "main", "image": "registry.example/trainer:1.1"}]}})",
                "application/strategic-merge-patch+json");
  EXPECT_EQ(p["spec"]["containers"][0]["image"], "registry.example/trainer:1.1");
  json bad = Json("PATCH", path, 422,
                  R"({"spec": {"containers": [{"name": "main", "resources": {"limits": {"nvidia.com/mig-1g.10gb": "1"}}}]}})",
                  "application/strategic-merge-patch+json");
  EXPECT_NE(bad["message"].get<std::string>().find("pod updates may not change fields"), std::string::npos);
}

TEST_F(ApiTest, StatusSubresourceSeparatesSpecAndStatus) {
  json n = Json("PATCH", "/api/v1/nodes/cpu-1/status", 200, R"({"status": {"capacity": {"example.com/dongle": "2"}}})",
                "application/merge-patch+json");
  EXPECT_EQ(n["status"]["capacity"]["example.com/dongle"], "2");
  n = Json("PATCH", "/api/v1/nodes/cpu-1/status", 200, R"({"spec": {"unschedulable": true}})", "application/merge-patch+json");
  EXPECT_FALSE(n["spec"].contains("unschedulable"));
  n = Json("PATCH", "/api/v1/nodes/cpu-1", 200, R"({"status": {"capacity": {"cpu": "1000"}}})", "application/merge-patch+json");
  EXPECT_EQ(n["status"]["capacity"]["cpu"], "16");
}

TEST_F(ApiTest, ScaleSubresource) {
  json s = Json("GET", "/apis/apps/v1/namespaces/ml/deployments/trainer/scale", 200);
  EXPECT_EQ(s["kind"], "Scale");
  EXPECT_EQ(s["spec"]["replicas"], 2);
  EXPECT_EQ(s["status"]["selector"], "app=trainer");
  s = Json("PATCH", "/apis/apps/v1/namespaces/ml/deployments/trainer/scale", 200, R"({"spec": {"replicas": 3}})",
           "application/merge-patch+json");
  EXPECT_EQ(s["spec"]["replicas"], 3);
  EXPECT_EQ(PodNames("ml").size(), 3u);
  EXPECT_EQ(Json("PUT", "/apis/apps/v1/namespaces/ml/deployments/trainer/scale", 422, R"({"spec": {"replicas": -1}})")["reason"], "Invalid");
}

TEST_F(ApiTest, DeleteCascadesOrOrphans) {
  json d = Json("DELETE", "/apis/apps/v1/namespaces/ml/deployments/trainer?propagationPolicy=Orphan", 200);
  EXPECT_EQ(d["metadata"]["name"], "trainer");
  json rs = m.Get(kReplicaSets, "ml", "trainer-6d4cf56db6");
  ASSERT_FALSE(rs.is_null());
  EXPECT_FALSE(rs["metadata"].contains("ownerReferences"));
  EXPECT_EQ(PodNames("ml").size(), 2u);
  Json("DELETE", "/apis/apps/v1/namespaces/ml/replicasets/trainer-6d4cf56db6", 200);
  Json("DELETE", "/apis/apps/v1/namespaces/serving/statefulsets/infer", 200, R"({"propagationPolicy": "Background"})");
  // The dependents' pods terminate gracefully (30 s).
  EXPECT_EQ(PodNames("ml").size(), 2u);
  for (const auto& p : m.Pods("ml")) EXPECT_TRUE(IsPodDeleting(p));
  m.Advance(30000);
  EXPECT_TRUE(PodNames("ml").empty());
  EXPECT_TRUE(PodNames("serving").empty());
  EXPECT_EQ(Json("DELETE", "/api/v1/nodes/cpu-1", 409, R"({"preconditions": {"uid": "wrong"}})")["reason"], "Conflict");
  Json("DELETE", "/api/v1/namespaces/gpu-operator", 200);
  EXPECT_TRUE(PodNames("gpu-operator").empty());
  EXPECT_EQ(m.Get(kDaemonSets, "gpu-operator", "nvidia-device-plugin-daemonset"), json());
}

TEST_F(ApiTest, WorkloadsAreDefaultedAndRollingUpdateValidated) {
  const std::string path = "/apis/apps/v1/namespaces/ml/deployments";
  const std::string tmpl = R"("selector": {"matchLabels": {"app": "w"}}, "template": {"metadata": {"labels": {"app": "w"}},
      "spec": {"containers": [{"name": "c", "image": "i"}]}})";
  json d = Json("POST", path, 201, R"({"metadata": {"name": "w"}, "spec": {)" + tmpl + "}}");
  EXPECT_EQ(d["spec"]["replicas"], 1);
  EXPECT_EQ(d["spec"]["strategy"], json::parse(R"({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}})"));
  EXPECT_EQ(d["spec"]["progressDeadlineSeconds"], 600);
  EXPECT_EQ(d["spec"]["revisionHistoryLimit"], 10);
  json zero = Json("POST", path, 422,
                   R"({"metadata": {"name": "z"}, "spec": {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}, )" + tmpl + "}}");
  EXPECT_NE(zero["message"].get<std::string>().find("may not be 0 when `maxSurge` is 0"), std::string::npos) << zero;
  Json("PATCH", path + "/w", 422, R"({"spec": {"strategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}}})",
       "application/merge-patch+json");
  json sts = Json("POST", "/apis/apps/v1/namespaces/ml/statefulsets", 201,
                  R"({"metadata": {"name": "s"}, "spec": {"serviceName": "s", )" + tmpl + "}}");
  EXPECT_EQ(sts["spec"]["podManagementPolicy"], "OrderedReady");
  EXPECT_EQ(sts["spec"]["updateStrategy"], json::parse(R"({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}})"));
}

const std::string kEvictV1 = R"({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "trainer-6d4cf56db6-x7k2p", "namespace": "ml"}})";
const std::string kEvictPath = "/api/v1/namespaces/ml/pods/trainer-6d4cf56db6-x7k2p/eviction";

TEST_F(ApiTest, EvictionBlockedByPdb) {
  json s = Json("POST", kEvictPath, 429, kEvictV1);
  EXPECT_EQ(s["reason"], "TooManyRequests");
  EXPECT_EQ(s["message"], "Cannot evict pod as it would violate the pod's disruption budget.");
  EXPECT_EQ(s["details"]["causes"][0]["reason"], "DisruptionBudget");
  EXPECT_EQ(s["details"]["causes"][0]["message"], "The disruption budget trainer-pdb needs 2 healthy pods and has 2 currently");
  std::string beta = kEvictV1;
  beta.replace(beta.find("policy/v1"), 9, "policy/v1beta1");
  EXPECT_EQ(Json("POST", kEvictPath, 429, beta)["code"], 429);
  EXPECT_EQ(PodNames("ml").size(), 2u);
}

TEST_F(ApiTest, EvictionAllowedByPdbDeletesAndUpdatesBudget) {
  Json("PATCH", "/apis/policy/v1/namespaces/ml/poddisruptionbudgets/trainer-pdb", 200, R"({"spec": {"minAvailable": 1}})",
       "application/merge-patch+json");
  Json("POST", kEvictPath + "?dryRun=All", 201, kEvictV1);
  EXPECT_FALSE(m.Get(kPods, "ml", "trainer-6d4cf56db6-x7k2p").is_null());
  json ok = Json("POST", kEvictPath, 201, kEvictV1);
  EXPECT_EQ(ok["status"], "Success");
  // The evicted pod terminates for its grace period (30 s); the ReplicaSet
  // replaces it at once.
  json evicted = m.Get(kPods, "ml", "trainer-6d4cf56db6-x7k2p");
  ASSERT_FALSE(evicted.is_null());
  EXPECT_EQ(evicted["metadata"]["deletionGracePeriodSeconds"], 30);
  EXPECT_FALSE(IsPodReady(evicted));
  EXPECT_EQ(PodNames("ml").size(), 3u);
  json pdb = m.Get(kPdbs, "ml", "trainer-pdb");
  EXPECT_EQ(pdb["status"]["currentHealthy"], 2);
  EXPECT_EQ(pdb["status"]["disruptionsAllowed"], 1);
  // Evicting a terminating pod skips the budget and changes nothing.
  EXPECT_EQ(Json("POST", kEvictPath, 201, kEvictV1)["status"], "Success");
  m.Advance(29999);
  EXPECT_FALSE(m.Get(kPods, "ml", "trainer-6d4cf56db6-x7k2p").is_null());
  m.Advance(1);
  EXPECT_TRUE(m.Get(kPods, "ml", "trainer-6d4cf56db6-x7k2p").is_null());
  EXPECT_EQ(PodNames("ml").size(), 2u);
  EXPECT_EQ(Json("POST", kEvictPath, 404, kEvictV1)["reason"], "NotFound");
}

TEST_F(ApiTest, EvictionChecksBodyAndSkipsBudgetsForPendingPods) {
  EXPECT_EQ(Json("POST", kEvictPath, 400, R"({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}})")["code"], 400);
  // A pod the scheduler cannot place stays Pending; budgets do not protect it.
  Json("POST", "/api/v1/namespaces/ml/pods", 201,
       R"({"metadata": {"name": "stuck", "labels": {"app": "trainer"}}, "spec": {"containers": [{"name": "c",
           "image": "i", "resources": {"limits": {"nvidia.com/gpu": "99"}}}]}})");
  EXPECT_EQ(PodPhase(m.Get(kPods, "ml", "stuck")), "Pending");
  Json("POST", "/api/v1/namespaces/ml/pods/stuck/eviction", 201);
  EXPECT_TRUE(m.Get(kPods, "ml", "stuck").is_null());
}

TEST_F(ApiTest, InjectedEvictionRefusals) {
  Json("PATCH", "/apis/policy/v1/namespaces/ml/poddisruptionbudgets/trainer-pdb", 200, R"({"spec": {"maxUnavailable": 1}})",
       "application/merge-patch+json");
  Json("PATCH", "/apis/policy/v1/namespaces/ml/poddisruptionbudgets/trainer-pdb", 200, R"({"spec": {"minAvailable": null}})",
       "application/merge-patch+json");
  Json("POST", "/sim/faults", 200,
       R"({"refuseEviction": [{"namespace": "ml", "pod": "trainer-6d4cf56db6-x7k2p", "count": 2},
                              {"namespace": "ml", "pod": "trainer-6d4cf56db6-m9q4z", "count": 1, "code": 500}]})");
  EXPECT_EQ(Call("POST", kEvictPath, kEvictV1).status, 429);
  EXPECT_EQ(Call("POST", kEvictPath, kEvictV1).status, 429);
  EXPECT_EQ(Call("POST", kEvictPath, kEvictV1).status, 201);
  EXPECT_EQ(Call("POST", "/api/v1/namespaces/ml/pods/trainer-6d4cf56db6-m9q4z/eviction").status, 500);
  EXPECT_EQ(Json("GET", "/sim/faults", 200)["remaining"]["refuseEviction"], json::parse("[0, 0]"));
}

TEST_F(ApiTest, InjectedRequestFailuresAndBadFaultConfigs) {
  Json("POST", "/sim/faults", 200, R"({"failRequests": [{"path": "^/api/v1/nodes$", "method": "GET", "count": 2, "code": 503}]})");
  EXPECT_EQ(Call("GET", "/api/v1/nodes").status, 503);
  EXPECT_EQ(Call("GET", "/api/v1/nodes/gpu-a").status, 200);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").status, 503);
  EXPECT_EQ(Call("GET", "/api/v1/nodes").status, 200);
  json bad = Json("POST", "/sim/faults", 400, R"({"failRequests": [{"path": "(", "count": 1}]})");
  EXPECT_NE(bad["message"].get<std::string>().find("failRequests[0].path"), std::string::npos);
  EXPECT_EQ(Json("POST", "/sim/faults", 400, R"({"nonsense": 1})")["code"], 400);
  json settings = Json("POST", "/sim/settings", 200, R"({"podStartupDelayMs": 250})");
  EXPECT_EQ(settings["podStartupDelayMs"], 250);
  EXPECT_EQ(Json("POST", "/sim/settings", 400, R"({"podStartupDelayMs": "soon"})")["code"], 400);
  EXPECT_EQ(Json("GET", "/sim/state", 200)["objects"]["nodes"], 3);
}

// Reads watch lines until `n` arrived or the stream ends.
std::vector<json> ReadEvents(WatchStream& s, size_t n, WatchStream::Step* last = nullptr) {
  std::vector<json> out;
  std::string buf;
  for (int i = 0; i < 40 && out.size() < n; ++i) {
    WatchStream::Step step = s.Next(&buf, std::chrono::milliseconds(50));
    size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      out.push_back(json::parse(buf.substr(0, nl)));
      buf.erase(0, nl + 1);
    }
    if (last != nullptr) *last = step;
    if (step != WatchStream::Step::kMore) break;
  }
  return out;
}

TEST_F(ApiTest, WatchFromVersion) {
  std::string rv = Json("GET", "/api/v1/nodes", 200)["metadata"]["resourceVersion"];
  ApiResponse w = Call("GET", "/api/v1/nodes?watch=true&resourceVersion=" + rv);
  ASSERT_EQ(w.status, 200);
  ASSERT_TRUE(w.watch);
  Json("PATCH", "/api/v1/nodes/gpu-b", 200, R"({"metadata": {"labels": {"x": "y"}}})", "application/merge-patch+json");
  auto events = ReadEvents(*w.watch, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "MODIFIED");
  EXPECT_EQ(events[0]["object"]["kind"], "Node");
  EXPECT_EQ(events[0]["object"]["apiVersion"], "v1");
  EXPECT_EQ(events[0]["object"]["metadata"]["labels"]["x"], "y");
}

TEST_F(ApiTest, WatchWithoutVersionListsFirstAndFiltersByName) {
  ApiResponse w = Call("GET", "/api/v1/namespaces/ml/pods?watch=1&labelSelector=app%3Dtrainer");
  auto events = ReadEvents(*w.watch, 2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  ApiResponse one = Call("GET", "/api/v1/watch/namespaces/serving/pods/infer-0");
  auto e = ReadEvents(*one.watch, 1);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0]["object"]["metadata"]["name"], "infer-0");
}

TEST_F(ApiTest, WatchTooOldVersionSendsExpiredErrorEvent) {
  ApiResponse w = Call("GET", "/api/v1/pods?watch=true&resourceVersion=1");
  ASSERT_EQ(w.status, 200);
  WatchStream::Step last = WatchStream::Step::kMore;
  auto events = ReadEvents(*w.watch, 1, &last);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(events[0]["object"]["reason"], "Expired");
  EXPECT_EQ(last, WatchStream::Step::kEnd);
}

TEST_F(ApiTest, WatchBookmarksTimeoutsAndInjectedDrops) {
  Json("POST", "/sim/settings", 200, R"({"bookmarkIntervalMs": 10})");
  std::string rv = Json("GET", "/api/v1/nodes", 200)["metadata"]["resourceVersion"];
  ApiResponse b = Call("GET", "/api/v1/nodes?watch=1&allowWatchBookmarks=true&resourceVersion=" + rv);
  auto events = ReadEvents(*b.watch, 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "BOOKMARK");
  EXPECT_EQ(events[0]["object"]["metadata"]["resourceVersion"], rv);
  ApiResponse init = Call("GET", "/api/v1/namespaces/ml/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan");
  events = ReadEvents(*init.watch, 3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2]["type"], "BOOKMARK");
  EXPECT_EQ(events[2]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
  ApiResponse t = Call("GET", "/api/v1/nodes?watch=1&timeoutSeconds=1&resourceVersion=" + rv);
  WatchStream::Step last = WatchStream::Step::kMore;
  auto start = std::chrono::steady_clock::now();
  while (last == WatchStream::Step::kMore && std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
    std::string buf;
    last = t.watch->Next(&buf, std::chrono::milliseconds(100));
  }
  EXPECT_EQ(last, WatchStream::Step::kEnd);
  Json("POST", "/sim/faults", 200, R"({"dropWatchAfterEvents": [{"path": "/pods", "events": 1, "count": 1}]})");
  ApiResponse d = Call("GET", "/api/v1/pods?watch=1");
  ReadEvents(*d.watch, 10, &last);
  EXPECT_EQ(last, WatchStream::Step::kDrop);
}

}  // namespace
}  // namespace kubeon::kubesim
