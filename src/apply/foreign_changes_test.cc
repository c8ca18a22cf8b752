#include "apply/foreign_changes.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeNode;
using testing::StepFixture;

class ForeignChangesTest : public StepFixture {};

TEST_F(ForeignChangesTest, AStepTaintOrCordonOfAChangeThisLogLacksIsAConflict) {
  cluster().Put("/api/v1/nodes/clean", FakeNode("clean", 4));
  json ours = FakeNode("ours", 4);
  ours["spec"]["taints"] = {{{"key", kStepTaintKey}, {"value", "5e1c0a77"}, {"effect", "NoSchedule"}}};
  cluster().Put("/api/v1/nodes/ours", ours);
  (void)Journal("5e1c0a77");  // the change is in this log
  EXPECT_TRUE(CheckForeignChanges(*client_, store_).ok());

  json theirs = FakeNode("theirs", 4);
  theirs["spec"]["unschedulable"] = true;
  theirs["metadata"]["annotations"] = {{kCordonedByAnnotation, "0badc0de"}};
  cluster().Put("/api/v1/nodes/theirs", theirs);
  Status s = CheckForeignChanges(*client_, store_);
  EXPECT_EQ(s.code(), StatusCode::kConflict);
  EXPECT_EQ(s.message().rfind("node theirs is held by change \"0badc0de\" (gpu.kubeon.io/step or "
                              "gpu.kubeon.io/cordoned-by), which is not in this audit log",
                              0),
            0u)
      << s.message();
  EXPECT_TRUE(cluster().writes.empty());
}

TEST_F(ForeignChangesTest, ManyAreCountedNotAllListed) {
  for (int i = 0; i < 8; ++i) {
    json n = FakeNode("n" + std::to_string(i), 4);
    n["spec"]["taints"] = {{{"key", kStepTaintKey}, {"value", "0000000" + std::to_string(i)}, {"effect", "NoSchedule"}}};
    cluster().Put("/api/v1/nodes/n" + std::to_string(i), n);
  }
  Status s = CheckForeignChanges(*client_, store_);
  EXPECT_NE(s.message().find("; and 3 more"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kubeon::apply
