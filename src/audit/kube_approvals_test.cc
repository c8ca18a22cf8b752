#include "audit/kube_approvals.h"

#include <chrono>
#include <memory>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "audit/kube_sim_support.h"
#include "audit/test_fake_kube_api.h"
#include "kube/identity.h"

namespace kubeon::audit {
namespace {

using nlohmann::json;
using testing::FakeKubeApi;

ChangeRecord SampleChange(const std::string& id) {
  ChangeRecord r;
  r.id = id;
  r.policy = "gpu-sharing";
  r.content_hash = std::string(64, 'a');
  r.step_json = R"({"id":")" + id + R"("})";
  r.created_at = r.updated_at = "2026-12-03T10:00:00Z";
  return r;
}

const auto kNow = std::chrono::sys_days(std::chrono::year_month_day(std::chrono::year(2026), std::chrono::month(12),
                                                                   std::chrono::day(3))) +
                  std::chrono::hours(12);
const std::string kHash = std::string(64, 'a');

class KubeApprovalsTest : public ::testing::Test {
 protected:
  KubeApprovalsTest() {
    kube::RestConfig config;
    config.server = "https://fake.test";
    client_ = std::make_unique<kube::KubeClient>(std::make_unique<FakeKubeApi>(state_), config);
    store_ = std::make_unique<KubeAuditStore>(*client_, KubeAuditStore::Options());
  }
  void Guard(const json& actions = {"Deny"}) {
    state_.objects["/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/kubeon-gpu-approvals"] = {
        {"metadata", {{"name", "kubeon-gpu-approvals"}}}};
    state_.objects["/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/kubeon-gpu-approvals"] = {
        {"metadata", {{"name", "kubeon-gpu-approvals"}}},
        {"spec", {{"policyName", "kubeon-gpu-approvals"}, {"validationActions", actions}}}};
  }
  void Propose(const std::string& id) {
    ChangeRecord r = SampleChange(id);
    r.content_hash = kHash;
    ASSERT_TRUE(store_->PutChange(r, 0).ok());
  }
  json& Object(const std::string& id) { return state_.objects[std::string(kGpuChangesPath) + "/" + id]; }
  void Annotate(const std::string& id, const json& annotations) {
    Object(id)["metadata"]["annotations"].update(annotations);
  }
  ChangeRecord Get(const std::string& id) { return **store_->GetChange(id); }

  FakeKubeApi::State state_;
  std::unique_ptr<kube::KubeClient> client_;
  std::unique_ptr<KubeAuditStore> store_;
};

TEST_F(KubeApprovalsTest, NothingIsImportedWithoutTheAdmissionPolicy) {
  Propose("ab12cd34");
  Annotate("ab12cd34", {{kApproveAnnotation, kHash}, {kApprovedByAnnotation, "mallory"}});
  auto got = ImportKubeApprovals(*store_, *client_, kNow, std::chrono::hours(24));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_FALSE(got->guarded);
  EXPECT_EQ(got->not_guarded,
            "approvals by annotation are not guarded: ValidatingAdmissionPolicy kubeon-gpu-approvals does not exist "
            "(install deploy/)");
  EXPECT_EQ(Get("ab12cd34").state, ChangeState::kProposed);

  Guard({"Audit", "Warn"});  // a binding that does not deny guards nothing
  got = ImportKubeApprovals(*store_, *client_, kNow, std::chrono::hours(24));
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->guarded);
  EXPECT_EQ(got->not_guarded,
            "approvals by annotation are not guarded: no ValidatingAdmissionPolicyBinding binds kubeon-gpu-approvals "
            "with validationActions Deny");
  EXPECT_EQ(Get("ab12cd34").state, ChangeState::kProposed);
  EXPECT_TRUE(store_->Log("ab12cd34")->empty());
}

TEST_F(KubeApprovalsTest, ImportsApprovalsRejectionsAndIgnoresOtherContent) {
  Guard();
  Propose("aa000001");
  Propose("bb000002");
  Propose("cc000003");
  Propose("dd000004");
  Annotate("aa000001", {{kApproveAnnotation, kHash}, {kApprovedByAnnotation, "alice"}});
  Object("aa000001")["metadata"]["managedFields"] = json::array(
      {{{"manager", "kubectl-annotate"}, {"operation", "Update"}, {"time", "2026-12-03T11:59:00Z"},
        {"fieldsType", "FieldsV1"},
        {"fieldsV1", {{"f:metadata", {{"f:annotations", {{"f:gpu.kubeon.io/approve", json::object()},
                                                         {"f:gpu.kubeon.io/approved-by", json::object()}}}}}}}}});
  Annotate("bb000002", {{kRejectAnnotation, "not this week"}, {kRejectedByAnnotation, "bob"},
                        {kApproveAnnotation, kHash}, {kApprovedByAnnotation, "alice"}});  // reject wins
  Annotate("cc000003", {{kApproveAnnotation, std::string(64, 'b')}, {kApprovedByAnnotation, "carol"}});
  auto got = ImportKubeApprovals(*store_, *client_, kNow, std::chrono::hours(24));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(got->guarded);
  EXPECT_TRUE(got->errors.empty());
  EXPECT_EQ(got->approved, std::vector<std::string>({"aa000001"}));
  EXPECT_EQ(got->rejected, std::vector<std::string>({"bb000002"}));
  EXPECT_EQ(got->ignored, std::vector<std::string>({"cc000003"}));

  ChangeRecord a = Get("aa000001");
  EXPECT_EQ(a.state, ChangeState::kApproved);
  EXPECT_EQ(a.approved_by, "alice");
  EXPECT_EQ(a.approved_at, "2026-12-03T11:59:00Z");  // when the API server recorded the write
  EXPECT_EQ(a.approval_expires_at, "2026-12-04T12:00:00Z");
  EXPECT_EQ(a.approved_hash, kHash);
  EXPECT_EQ(a.revision, 2);
  auto alog = *store_->Log("aa000001");
  ASSERT_EQ(alog.size(), 1u);
  EXPECT_EQ(alog[0].action, "approve");
  EXPECT_EQ(alog[0].detail, "approved by alice until 2026-12-04T12:00:00Z (step hash aaaaaaaaaaaaaaaa)");

  ChangeRecord b = Get("bb000002");
  EXPECT_EQ(b.state, ChangeState::kRejected);
  EXPECT_EQ(b.rejected_by, "bob");
  EXPECT_EQ(b.reason, "not this week");
  EXPECT_TRUE(b.approved_by.empty());

  EXPECT_EQ(Get("cc000003").state, ChangeState::kProposed);
  auto clog = *store_->Log("cc000003");
  ASSERT_EQ(clog.size(), 1u);
  EXPECT_EQ(clog[0].outcome, "skipped");
  EXPECT_NE(clog[0].detail.find("approval by carol for another content"), std::string::npos) << clog[0].detail;
  EXPECT_EQ(Get("dd000004").state, ChangeState::kProposed);

  // The next pass changes nothing and logs the foreign approval only once.
  auto again = ImportKubeApprovals(*store_, *client_, kNow + std::chrono::minutes(1), std::chrono::hours(24));
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->approved.empty() && again->rejected.empty() && again->ignored.empty());
  EXPECT_EQ(store_->Log("cc000003")->size(), 1u);
  EXPECT_EQ(Get("aa000001").revision, 2);
}

TEST_F(KubeApprovalsTest, ApprovalWithoutManagedFieldsIsTimedNow) {
  Guard();
  Propose("aa000001");
  ASSERT_TRUE(WriteDecisionAnnotations(*client_, Get("aa000001"), true, "alice", "").ok());
  EXPECT_EQ(Object("aa000001")["metadata"]["annotations"][kApproveAnnotation], kHash);
  EXPECT_EQ(Object("aa000001")["metadata"]["annotations"][kApprovedByAnnotation], "alice");
  auto got = ImportKubeApprovals(*store_, *client_, kNow, std::chrono::hours(1));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Get("aa000001").approved_at, "2026-12-03T12:00:00Z");
  EXPECT_EQ(Get("aa000001").approval_expires_at, "2026-12-03T13:00:00Z");
  EXPECT_FALSE(WriteDecisionAnnotations(*client_, SampleChange("ee000005"), false, "bob", "no").ok());  // no object
}

#ifdef KUBE_SIM_BINARY
// On kube-sim: the annotations as the API server stores them (managedFields),
// nothing imported until the admission policy and its binding exist.
TEST(KubeApprovalsOnSimTest, ImportedOnlyOnceTheAdmissionPolicyGuardsThem) {
  auto sim = testing::KubeSimAudit::Start(KUBE_SIM_BINARY);
  if (!sim) GTEST_SKIP() << "kube-sim audit store not available (deploy/crd-gpuchange.yaml or kubectl missing)";
  auto client = sim->Connect();
  ASSERT_TRUE(client);
  KubeAuditStore store(*client, KubeAuditStore::Options());
  ASSERT_TRUE(store.PutChange(SampleChange("ab12cd34"), 0).ok());
  auto who = kube::WhoAmI(*client);
  ASSERT_TRUE(who.ok()) << who.status().message();
  ASSERT_TRUE(WriteDecisionAnnotations(*client, **store.GetChange("ab12cd34"), true, who->username, "").ok());

  auto got = ImportKubeApprovals(store, *client, kNow, std::chrono::hours(24));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_FALSE(got->guarded);
  EXPECT_EQ(got->not_guarded.rfind("approvals by annotation are not guarded: ", 0), 0u) << got->not_guarded;
  EXPECT_EQ((*store.GetChange("ab12cd34"))->state, ChangeState::kProposed);

  const std::string vaps = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies";
  auto policy = client->Create(
      vaps, {{"apiVersion", "admissionregistration.k8s.io/v1"},
             {"kind", "ValidatingAdmissionPolicy"},
             {"metadata", {{"name", kApprovalsPolicy}}},
             {"spec",
              {{"failurePolicy", "Fail"},
               {"matchConstraints",
                {{"resourceRules", {{{"apiGroups", {"gpu.kubeon.io"}}, {"apiVersions", {"v1"}},
                                     {"operations", {"CREATE", "UPDATE"}}, {"resources", {"gpuchanges"}}}}}}},
               {"validations",
                {{{"expression", "!has(object.metadata.annotations) || !('gpu.kubeon.io/approved-by' in "
                                 "object.metadata.annotations) || object.metadata.annotations['gpu.kubeon.io/"
                                 "approved-by'] == request.userInfo.username"}}}}}}});
  if (!policy.ok() && policy.error().http_status == 404) {
    GTEST_SKIP() << "this kube-sim does not serve ValidatingAdmissionPolicies: " << policy.error().ToString();
  }
  ASSERT_TRUE(policy.ok()) << policy.error().ToString();
  auto binding = client->Create("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
                                {{"apiVersion", "admissionregistration.k8s.io/v1"},
                                 {"kind", "ValidatingAdmissionPolicyBinding"},
                                 {"metadata", {{"name", kApprovalsPolicy}}},
                                 {"spec", {{"policyName", kApprovalsPolicy}, {"validationActions", {"Deny"}}}}});
  ASSERT_TRUE(binding.ok()) << binding.error().ToString();
  got = ImportKubeApprovals(store, *client, kNow, std::chrono::hours(24));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(got->guarded) << got->not_guarded;
  EXPECT_EQ(got->approved, std::vector<std::string>({"ab12cd34"}));
  ChangeRecord r = **store.GetChange("ab12cd34");
  EXPECT_EQ(r.state, ChangeState::kApproved);
  EXPECT_EQ(r.approved_by, who->username);
  EXPECT_EQ(r.approval_expires_at, "2026-12-04T12:00:00Z");
  EXPECT_FALSE(r.approved_at.empty());
}
#endif

}  // namespace
}  // namespace kubeon::audit
