#include "apply/revert.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"
#include "apply/step_machine.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeDeployment;
using testing::FakeNode;
using testing::StepFixture;

const char* kNode = "/api/v1/nodes/a";
const char* kDep = "/apis/apps/v1/namespaces/ml/deployments/infer";

// A done change as the step left it: node a at kubeon-1 (14 slices and 2
// whole GPUs), Deployment infer (2 replicas) moved onto slices.
class RevertTest : public StepFixture {
 protected:
  void SetUp() override {
    json node = FakeNode("a", 4, {{kMigConfigLabel, "kubeon-1"}, {kMigConfigStateLabel, "success"}});
    node["status"]["allocatable"] = {{"nvidia.com/gpu", "2"}, {"nvidia.com/mig-1g.5gb", "14"}};
    cluster().Put(kNode, node);
    cluster().Put("/api/v1/namespaces/gpu-operator/configmaps/kubeon-mig-parted-config",
                  {{"metadata", {{"name", "kubeon-mig-parted-config"}}},
                   {"data", {{"config.yaml", testing::TestMigConfig("kubeon-1")}}}});
    json before = FakeDeployment("ml", "infer", 2);
    json after = before;
    after["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] = {{"nvidia.com/mig-1g.5gb", "1"}};
    cluster().Put(kDep, after);
    StepRecord r;
    r.step.emplace();
    r.step->phase = Phase::kDone;
    NodeUndo u;
    u.prior.labels = {{kMigConfigLabel, std::nullopt}, {kMigConfigStateLabel, std::nullopt}};
    u.cordoned = true;
    u.gpu_count = 4;
    u.labels_set = {{kMigConfigLabel, "kubeon-1"}};
    u.configured = true;
    r.step->nodes["a"] = u;
    OwnerUndo o;
    o.kind = "Deployment";
    o.namespace_ = "ml";
    o.name = "infer";
    o.template_before = before["spec"]["template"];
    o.template_after = after["spec"]["template"];
    o.intent = o.patched = true;
    r.step->owners.push_back(o);
    audit::ChangeRecord rec;
    rec.id = "5e1c0a77";
    rec.state = audit::ChangeState::kDone;
    rec.undo_json = WriteStepRecord(r);
    EXPECT_TRUE(store_.PutChange(rec, 0).ok());
  }
  StepJournal& RevertJournal() {
    ctx_ = std::make_unique<StepContext>(Ctx());
    journal_ = std::make_unique<StepJournal>(*ctx_, "5e1c0a77", RunKind::kRevert);
    EXPECT_TRUE(journal_->Load(nullptr).ok());
    return *journal_;
  }
};

TEST_F(RevertTest, TheGoalPutsBackExactlyWhatTheStepSet) {
  cluster().Put("/api/v1/nodes/spare", FakeNode("spare", 2));
  Result<Goal> g = RevertGoal(RevertJournal());
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->nodes[0].labels, (LabelValues{{kMigConfigLabel, "all-disabled"}}));  // absent before: all-disabled
  ASSERT_EQ(g->owners.size(), 1u);
  EXPECT_EQ(*g->owners[0].template_, FakeDeployment("ml", "infer", 2)["spec"]["template"]);
  EXPECT_TRUE(g->owners_first);
  EXPECT_TRUE(g->owners_fit_elsewhere);  // spare's 2 whole GPUs take the 2 replicas
  EXPECT_FALSE(g->reserve);
  EXPECT_TRUE(cluster().writes.empty());
}

// The whole GPUs the owners need come from the reverted node itself: their
// rollouts are not awaited before the node is emptied and reconfigured.
TEST_F(RevertTest, WithoutWholeGpusElsewhereTheRolloutsWaitForTheNode) {
  Result<Goal> g = RevertGoal(RevertJournal());
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_FALSE(g->owners_fit_elsewhere);
}

// kubectl set env deployment/infer FOO=bar after the change: the revert puts
// back only the resources the change set, and FOO stays.
TEST_F(RevertTest, SomeoneElsesEditToOtherFieldsIsKept) {
  cluster().Put("/api/v1/nodes/spare", FakeNode("spare", 2));
  json& tpl = cluster().At(kDep)["spec"]["template"];
  tpl["spec"]["containers"][0]["env"] = json::parse(R"([{"name": "FOO", "value": "bar"}])");
  StepJournal& j = RevertJournal();
  BeginRevert(j);
  Result<Goal> g = RevertGoal(j);
  ASSERT_TRUE(g.ok()) << g.status().message();
  json want = FakeDeployment("ml", "infer", 2)["spec"]["template"];
  want["spec"]["containers"][0]["env"] = tpl["spec"]["containers"][0]["env"];
  EXPECT_EQ(*g->owners[0].template_, want);
  testing::PlayGpuOperator(cluster());
  auto op = cluster().on_write;
  cluster().on_write = [op](const std::string& path, json& obj) {
    op(path, obj);
    if (path.rfind("/apis/apps/v1/", 0) == 0) testing::CompleteRollout(obj);
  };
  const StepOutcome o = RunGoal(j, *g, audit::ChangeState::kReverted);
  ASSERT_EQ(o.kind, OutcomeKind::kDone) << o.cause;
  EXPECT_EQ(cluster().At(kDep)["spec"]["template"], want);
}

TEST_F(RevertTest, ALabelChangedSinceIsRefusedNamingFieldObjectAndValues) {
  cluster().At(kNode)["metadata"]["labels"][kMigConfigLabel] = "all-1g.5gb";
  Result<Goal> g = RevertGoal(RevertJournal());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kConflict);
  EXPECT_EQ(g.status().message(),
            "field metadata.labels[\"nvidia.com/mig.config\"] of node a was changed since change 5e1c0a77: expected "
            "\"kubeon-1\", found \"all-1g.5gb\"; nothing changed");
}

TEST_F(RevertTest, ATemplateChangedSinceIsRefused) {
  cluster().At(kDep)["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] = {{"nvidia.com/mig-2g.10gb", "1"}};
  Result<Goal> g = RevertGoal(RevertJournal());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kConflict);
  EXPECT_NE(g.status().message().find("of Deployment ml/infer was changed since change 5e1c0a77"), std::string::npos)
      << g.status().message();
}

TEST_F(RevertTest, MissingWholeGpusAreCounted) {
  // The owners need 2 whole GPUs; a offers 4 once back, but 4 pods wait Pending for 1 each.
  for (int i = 0; i < 4; ++i) {
    const std::string name = "pending-" + std::to_string(i);
    cluster().Put("/api/v1/namespaces/ml/pods/" + name, testing::FakePod("ml", name, ""));
  }
  Result<Goal> g = RevertGoal(RevertJournal());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(g.status().message(), "cannot revert change 5e1c0a77: the workloads need 6 whole GPUs, the cluster would "
                                  "have 4 (2 missing); nothing changed");
}

}  // namespace
}  // namespace kubeon::apply
