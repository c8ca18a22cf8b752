#include "apply/owner_rollout.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeDeployment;
using testing::StepFixture;

const char* kDep = "/apis/apps/v1/namespaces/ml/deployments/infer";

class OwnerRolloutTest : public StepFixture {
 protected:
  void SetUp() override { cluster().Put(kDep, FakeDeployment("ml", "infer", 2)); }
  OwnerGoal Forward() {
    OwnerGoal g{"Deployment", "ml", "infer"};
    g.patch = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"main","resources":{"limits":
                             {"nvidia.com/gpu":null,"nvidia.com/mig-1g.5gb":"1"}}}]}}}})");
    g.change = "5e1c0a77";
    g.add_toleration = true;
    return g;
  }
};

TEST_F(OwnerRolloutTest, PatchRecordsTheTemplateBeforeAndAfter) {
  const json before = cluster().At(kDep)["spec"]["template"];
  StepJournal& j = Journal();
  ASSERT_TRUE(PatchOwner(j, Forward()).ok());
  const json& dep = cluster().At(kDep);
  EXPECT_EQ(dep["metadata"]["annotations"][kChangeAnnotation], "5e1c0a77");
  EXPECT_EQ(dep["spec"]["template"]["spec"]["tolerations"],
            json::parse(R"([{"key":"gpu.kubeon.io/step","operator":"Equal","value":"5e1c0a77","effect":"NoSchedule"}])"));
  EXPECT_EQ(dep["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"],
            (json{{"nvidia.com/mig-1g.5gb", "1"}}));
  ASSERT_EQ(j.run().owners.size(), 1u);
  const OwnerUndo& o = j.run().owners[0];
  EXPECT_EQ(o.template_before, before);
  EXPECT_EQ(*o.template_after, dep["spec"]["template"]);
  EXPECT_EQ(o.annotation_before, std::nullopt);
  EXPECT_TRUE(o.intent && o.patched);
  // Back: the template from before, the annotation removed; one entry still.
  ASSERT_TRUE(PatchOwner(j, RestoreGoal(o)).ok());
  EXPECT_EQ(cluster().At(kDep)["spec"]["template"], before);
  EXPECT_FALSE(cluster().At(kDep)["metadata"]["annotations"].contains(kChangeAnnotation));
  EXPECT_EQ(j.run().owners.size(), 1u);
}

TEST_F(OwnerRolloutTest, AnEarlierStepsTolerationIsReplacedOthersKept) {
  json& tpl = cluster().objects[kDep]["spec"]["template"];
  tpl["spec"]["tolerations"] = json::parse(R"([{"key":"dedicated","operator":"Exists","effect":"NoSchedule"},
      {"key":"gpu.kubeon.io/step","operator":"Exists","effect":"NoSchedule"},
      {"key":"gpu.kubeon.io/step","operator":"Equal","value":"0badcafe","effect":"NoSchedule"}])");
  StepJournal& j = Journal();
  ASSERT_TRUE(PatchOwner(j, Forward()).ok());
  EXPECT_EQ(cluster().At(kDep)["spec"]["template"]["spec"]["tolerations"],
            json::array({json::parse(R"({"key":"dedicated","operator":"Exists","effect":"NoSchedule"})"),
                         StepToleration("5e1c0a77")}));
}

TEST_F(OwnerRolloutTest, AGitOpsOwnerIsPrintedAndLoggedNotPatched) {
  OwnerGoal g = Forward();
  g.gitops = "Argo CD";
  StepJournal& j = Journal();
  ASSERT_TRUE(PatchOwner(j, g).ok());
  EXPECT_TRUE(cluster().writes.empty());
  ASSERT_EQ(j.outcome().gitops_patches.size(), 1u);
  EXPECT_EQ(j.outcome().gitops_patches[0].rfind("Deployment ml/infer (managed by Argo CD): not patched", 0), 0u);
  EXPECT_EQ(LogLines(), (std::vector<std::string>{"patch-owner/skipped"}));
  EXPECT_TRUE(j.run().owners.empty());
  options_.patch_gitops_owners = true;
  StepJournal& allowed = Journal();
  ASSERT_TRUE(PatchOwner(allowed, g).ok());
  EXPECT_EQ(cluster().writes.size(), 1u);
}

TEST_F(OwnerRolloutTest, WaitRolloutWaitsForTheNewGenerationToBeReady) {
  options_.rollout_deadline = std::chrono::minutes(1);
  StepJournal& j = Journal();
  ASSERT_TRUE(PatchOwner(j, Forward()).ok());  // generation 2, status still at 1
  int sleeps = 0;
  clock_.on_sleep = [&] {
    if (++sleeps == 3) testing::CompleteRollout(cluster().At(kDep));
  };
  ASSERT_TRUE(WaitRollout(j, "Deployment", "ml", "infer").ok());
  EXPECT_EQ(sleeps, 3);
  // Never ready: the deadline says what it waited for.
  clock_.on_sleep = nullptr;
  cluster().At(kDep)["status"]["readyReplicas"] = 1;
  Status s = WaitRollout(j, "Deployment", "ml", "infer");
  EXPECT_EQ(s.message(), "timed out after 60 s waiting for the rollout of Deployment ml/infer");
}

// A rollout is done only once its old pods are gone: until then they hold
// their GPUs, which the next step may need.
TEST_F(OwnerRolloutTest, WaitRolloutWaitsForTheOldPodsToTerminate) {
  json old = testing::FakePod("ml", "infer-old", "a");
  old["metadata"]["labels"] = {{"app", "infer"}};
  old["metadata"]["deletionTimestamp"] = "2026-12-07T10:00:00Z";
  cluster().Put("/api/v1/namespaces/ml/pods/infer-old", old);
  int sleeps = 0;
  clock_.on_sleep = [&] {
    if (++sleeps == 4) cluster().objects.erase("/api/v1/namespaces/ml/pods/infer-old");
  };
  StepJournal& j = Journal();
  ASSERT_TRUE(WaitRollout(j, "Deployment", "ml", "infer").ok());
  EXPECT_EQ(sleeps, 4);
  bool said = false;
  for (const auto& line : progress_) said |= line.find("waiting for the old pods of Deployment ml/infer") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST_F(OwnerRolloutTest, AnOnDeleteStatefulSetIsMovedPodByPod) {
  json sts = FakeDeployment("ml", "db", 2);
  sts["kind"] = "StatefulSet";
  sts["spec"]["updateStrategy"] = {{"type", "OnDelete"}};
  sts["status"]["updateRevision"] = "db-2";
  cluster().Put("/apis/apps/v1/namespaces/ml/statefulsets/db", sts);
  for (const char* p : {"db-0", "db-1"}) {
    json pod = testing::FakePod("ml", p, "a");
    pod["metadata"]["labels"] = {{"app", "db"}, {"controller-revision-hash", "db-1"}};
    cluster().Put(std::string("/api/v1/namespaces/ml/pods/") + p, pod);
  }
  // The StatefulSet controller recreates an evicted pod at the update revision.
  clock_.on_sleep = [&] {
    for (const char* p : {"db-0", "db-1"}) {
      const std::string path = std::string("/api/v1/namespaces/ml/pods/") + p;
      if (cluster().objects.count(path)) continue;
      json pod = testing::FakePod("ml", p, "b");
      pod["metadata"]["labels"] = {{"app", "db"}, {"controller-revision-hash", "db-2"}};
      pod["metadata"]["uid"] = std::string("uid-new-") + p;
      cluster().Put(path, pod);
    }
  };
  StepJournal& j = Journal();
  ASSERT_TRUE(WaitRollout(j, "StatefulSet", "ml", "db").ok());
  EXPECT_EQ(cluster().writes, (std::vector<std::string>{"POST /api/v1/namespaces/ml/pods/db-0/eviction",
                                                         "POST /api/v1/namespaces/ml/pods/db-1/eviction"}));
}

}  // namespace
}  // namespace kubeon::apply
