#include "apply/node_ops.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeNode;
using testing::StepFixture;

class NodeOpsTest : public StepFixture {
 protected:
  json& Node(const std::string& name = "a") { return cluster().At("/api/v1/nodes/" + name); }
  NodeGoal Goal() { return {"a", {{kMigConfigLabel, "kubeon-1"}}}; }
};

TEST_F(NodeOpsTest, PrepareRecordsThePriorStateThenCordonsInOneWrite) {
  json n = FakeNode("a", 8, {{kMigConfigLabel, "all-disabled"}});
  n["metadata"]["annotations"] = {{kDoNotDisruptAnnotation, "false"}};
  cluster().Put("/api/v1/nodes/a", n);
  StepJournal& j = Journal();
  ASSERT_TRUE(PrepareNode(j, Goal()).ok());
  EXPECT_EQ(cluster().writes, (std::vector<std::string>{"PUT /api/v1/nodes/a"}));
  EXPECT_EQ(Node()["spec"]["unschedulable"], true);
  EXPECT_EQ(Node()["metadata"]["annotations"][kCordonedByAnnotation], "5e1c0a77");
  EXPECT_EQ(Node()["metadata"]["annotations"][kScaleDownDisabledAnnotation], "true");
  const NodeUndo& u = j.run().nodes.at("a");
  EXPECT_TRUE(u.cordoned);
  EXPECT_FALSE(u.prior.unschedulable);
  EXPECT_EQ(u.gpu_count, 8);
  EXPECT_EQ(u.prior.labels, (LabelValues{{kMigConfigLabel, "all-disabled"}, {kMigConfigStateLabel, std::nullopt}}));
  EXPECT_EQ(u.prior.annotations, (LabelValues{{kDoNotDisruptAnnotation, "false"},
                                              {kScaleDownDisabledAnnotation, std::nullopt},
                                              {kCordonedByAnnotation, std::nullopt}}));
  EXPECT_EQ(u.labels_set, Goal().labels);
  EXPECT_EQ(LogLines(), (std::vector<std::string>{"prepare-node/intent", "prepare-node/ok"}));
}

TEST_F(NodeOpsTest, ANodeCordonedByOthersIsRefusedAndAlreadyCordonedIsNotOurs) {
  json n = FakeNode("a", 8);
  n["spec"]["unschedulable"] = true;
  cluster().Put("/api/v1/nodes/a", n);
  StepJournal& j = Journal();
  Status s = CheckNodes(j, {Goal()});
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.message(), "node a is cordoned by someone else: not touched");
  n["metadata"]["annotations"] = {{kCordonedByAnnotation, "5e1c0a77"}};
  cluster().Put("/api/v1/nodes/a", n);
  EXPECT_TRUE(CheckNodes(j, {Goal()}).ok());
  ASSERT_TRUE(PrepareNode(j, Goal()).ok());
  EXPECT_FALSE(j.run().nodes.at("a").cordoned);  // it was cordoned before: not ours to uncordon
  EXPECT_TRUE(cluster().writes.size() == 1);
}

TEST_F(NodeOpsTest, ReserveTaintsAndUncordonsWhatThisChangeCordoned) {
  cluster().Put("/api/v1/nodes/a", FakeNode("a", 8));
  StepJournal& j = Journal();
  ASSERT_TRUE(PrepareNode(j, Goal()).ok());
  ASSERT_TRUE(ReserveAndUncordon(j, "a", true).ok());
  EXPECT_FALSE(Node()["spec"].contains("unschedulable"));
  EXPECT_FALSE(Node()["metadata"]["annotations"].contains(kCordonedByAnnotation));
  EXPECT_TRUE(HasStepTaint(Node(), "5e1c0a77"));
  EXPECT_FALSE(HasStepTaint(Node(), "00000000"));
  // Without the reservation, a node this change did not cordon is not written.
  cluster().writes.clear();
  ASSERT_TRUE(ReserveAndUncordon(j, "a", false).ok());
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(NodeOpsTest, RecordonPutsTheCordonBackAndTheTaintAway) {
  cluster().Put("/api/v1/nodes/a", FakeNode("a", 8));
  StepJournal& j = Journal();
  ASSERT_TRUE(PrepareNode(j, Goal()).ok());
  ASSERT_TRUE(ReserveAndUncordon(j, "a", true).ok());
  ASSERT_TRUE(Recordon(j, "a", j.run().nodes.at("a")).ok());
  EXPECT_EQ(Node()["spec"]["unschedulable"], true);
  EXPECT_FALSE(HasStepTaint(Node(), "5e1c0a77"));
  EXPECT_FALSE(Node()["spec"].contains("taints"));
  cluster().writes.clear();
  ASSERT_TRUE(Recordon(j, "a", j.run().nodes.at("a")).ok());  // nothing left to do: no write
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(NodeOpsTest, CleanupRestoresThePriorAnnotationsAndWritesNothingTwice) {
  json n = FakeNode("a", 8);
  n["metadata"]["annotations"] = {{kDoNotDisruptAnnotation, "false"}};
  n["spec"]["taints"] = {{{"key", "nvidia.com/gpu"}, {"effect", "NoSchedule"}}};
  cluster().Put("/api/v1/nodes/a", n);
  StepJournal& j = Journal();
  ASSERT_TRUE(PrepareNode(j, Goal()).ok());
  ASSERT_TRUE(ReserveAndUncordon(j, "a", true).ok());
  ASSERT_TRUE(CleanupNode(j, "a", j.run().nodes.at("a")).ok());
  EXPECT_EQ(Node()["metadata"]["annotations"], (json{{kDoNotDisruptAnnotation, "false"}}));
  EXPECT_EQ(Node()["spec"]["taints"], n["spec"]["taints"]);  // others' taints stay
  EXPECT_FALSE(Node()["spec"].contains("unschedulable"));
  cluster().writes.clear();
  ASSERT_TRUE(CleanupNode(j, "a", j.run().nodes.at("a")).ok());
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(NodeOpsTest, PausedOperandsComeBack) {
  json n = FakeNode("a", 8, {{"nvidia.com/gpu.deploy.device-plugin", "paused-for-mig-change"},
                              {"nvidia.com/gpu.deploy.dcgm", "false"}});
  cluster().Put("/api/v1/nodes/a", n);
  StepJournal& j = Journal();
  ASSERT_TRUE(RestorePausedLabels(j, "a").ok());
  EXPECT_EQ(Node()["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"], "true");
  EXPECT_EQ(Node()["metadata"]["labels"]["nvidia.com/gpu.deploy.dcgm"], "false");
}

TEST_F(NodeOpsTest, AFailedWriteIsAnErrorWithItsCode) {
  cluster().Put("/api/v1/nodes/a", FakeNode("a", 8));
  cluster().fail["PUT /api/v1/nodes/a"] = 1;
  StepJournal& j = Journal();
  Status s = PrepareNode(j, Goal());
  EXPECT_EQ(s.code(), StatusCode::kForbidden) << s.message();
  EXPECT_EQ(LogLines(), (std::vector<std::string>{"prepare-node/intent"}));  // the intent, never an ok
}

}  // namespace
}  // namespace kubeon::apply
