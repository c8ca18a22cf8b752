// Tests for managed_fields.h: the manager's name, one entry per (manager,
// operation, subresource), and what the REST writes record through the Api
// (User-Agent, fieldManager, status, client-given entries, no-op writes).
#include "managed_fields.h"

#include <gtest/gtest.h>

#include "api.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

TEST(ManagedFieldsTest, ManagerName) {
  EXPECT_EQ(FieldManagerOf("kubectl-edit", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl-edit");
  EXPECT_EQ(FieldManagerOf("", "argocd-controller/v2.9.3+6eba5be (linux/amd64)"), "argocd-controller");
  EXPECT_EQ(FieldManagerOf("", "helm"), "helm");
  EXPECT_EQ(FieldManagerOf("", ""), "unknown");
  EXPECT_EQ(FieldManagerOf(std::string(200, 'm'), "").size(), 128u);
}

TEST(ManagedFieldsTest, OneEntryPerManagerOperationAndSubresource) {
  json obj = {{"metadata", {{"name", "x"}}}};
  const TimePoint t0(std::chrono::seconds(1714521600));
  RecordManagedFields(obj, {"helm", "Update", "apps/v1", ""}, t0);
  RecordManagedFields(obj, {"helm", "Update", "apps/v1", "status"}, t0);
  RecordManagedFields(obj, {"helm", "Update", "apps/v1", ""}, t0 + std::chrono::seconds(60));
  RecordManagedFields(obj, {"kubectl-label", "Update", "apps/v1", ""}, t0);
  const json& mf = obj["metadata"]["managedFields"];
  ASSERT_EQ(mf.size(), 3u);
  EXPECT_EQ(mf[0], json::parse(R"({"manager": "helm", "operation": "Update", "apiVersion": "apps/v1",
                                   "time": "2024-05-01T00:01:00Z", "fieldsType": "FieldsV1", "fieldsV1": {}})"));
  EXPECT_EQ(mf[1]["subresource"], "status");
  EXPECT_EQ(mf[2]["manager"], "kubectl-label");
}

class ManagedFieldsApiTest : public ::testing::Test {
 protected:
  json Call(const std::string& method, const std::string& target, const std::string& body, const std::string& agent,
            int want, const std::string& content_type = "application/json") {
    ApiRequest req = testing::TestRequest(method, target, body, content_type);
    req.headers["user-agent"] = agent;
    ApiResponse r = api.Handle(req);
    EXPECT_EQ(r.status, want) << method << " " << target << ": " << r.body;
    return json::parse(r.body, nullptr, false);
  }
  static std::vector<std::string> Managers(const json& obj) {
    std::vector<std::string> out;
    const json* entries = Find(obj, {"metadata", "managedFields"});
    if (entries == nullptr) return out;
    for (const auto& e : *entries) {
      out.push_back(e["manager"].get<std::string>() + "/" + e["operation"].get<std::string>() +
                    (e.contains("subresource") ? "/" + e["subresource"].get<std::string>() : ""));
    }
    return out;
  }

  ManualSim m;
  Api api{m.sim(), "sekrit", "127.0.0.1:6443"};
};

TEST_F(ManagedFieldsApiTest, WritesRecordTheirManager) {
  const std::string cms = "/api/v1/namespaces/ml/configmaps";
  json cm = Call("POST", cms, R"({"metadata": {"name": "c"}, "data": {"a": "1"}})", "argocd-controller/v2.9.3", 201);
  EXPECT_EQ(Managers(cm), (std::vector<std::string>{"argocd-controller/Update"}));
  EXPECT_EQ(cm["metadata"]["managedFields"][0]["apiVersion"], "v1");

  json patched = Call("PATCH", cms + "/c?fieldManager=kubeon-gpu", R"({"data": {"a": "2"}})", "kubeon-gpu/1", 200,
                      "application/merge-patch+json");
  EXPECT_EQ(Managers(patched), (std::vector<std::string>{"argocd-controller/Update", "kubeon-gpu/Update"}));
  // The same patch again changes nothing: no new version, entries unchanged.
  json again = Call("PATCH", cms + "/c?fieldManager=kubeon-gpu", R"({"data": {"a": "2"}})", "kubeon-gpu/1", 200,
                    "application/merge-patch+json");
  EXPECT_EQ(again["metadata"]["resourceVersion"], patched["metadata"]["resourceVersion"]);
  // A PUT without managedFields keeps them and adds its own.
  json put = again;
  put["metadata"].erase("managedFields");
  put["data"]["a"] = "3";
  json updated = Call("PUT", cms + "/c", put.dump(), "helm/v3.14.0", 200);
  EXPECT_EQ(Managers(updated),
            (std::vector<std::string>{"argocd-controller/Update", "kubeon-gpu/Update", "helm/Update"}));

  // Status writes are entries of their own.
  json status = m.Get(kReplicaSets, "ml", "trainer-6d4cf56db6");
  status["status"]["fullyLabeledReplicas"] = 7;
  json rs = Call("PUT", "/apis/apps/v1/namespaces/ml/replicasets/trainer-6d4cf56db6/status", status.dump(),
                 "kube-controller-manager/v1.32.0", 200);
  std::vector<std::string> managers = Managers(rs);
  ASSERT_FALSE(managers.empty());
  EXPECT_EQ(managers.back(), "kube-controller-manager/Update/status");

  // Entries a client writes itself (an Argo CD server-side apply) are kept.
  json dep = Call("POST", "/apis/apps/v1/namespaces/ml/deployments?fieldValidation=Strict", R"({
      "metadata": {"name": "gitops", "managedFields": [{"manager": "argocd-controller", "operation": "Apply",
          "apiVersion": "apps/v1", "time": "2024-04-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {}}]},
      "spec": {"selector": {"matchLabels": {"app": "g"}}, "template": {"metadata": {"labels": {"app": "g"}},
               "spec": {"containers": [{"name": "c", "image": "i"}]}}}})", "kubectl/v1.32.0", 201);
  EXPECT_EQ(Managers(dep), (std::vector<std::string>{"argocd-controller/Apply", "kubectl/Update"}));
}

}  // namespace
}  // namespace kubeon::kubesim
