#include "apply/gpu_capacity.h"

#include <gtest/gtest.h>

#include "apply/fake_cluster_test_util.h"

namespace kubeon::apply {
namespace {

using json = nlohmann::json;
using testing::FakeNode;
using testing::FakePod;

json Nodes() {
  json a = FakeNode("a", 4);
  json b = FakeNode("b", 8);
  b["spec"]["unschedulable"] = true;
  json m = FakeNode("m", 4);
  m["status"]["allocatable"] = {{"nvidia.com/mig-1g.5gb", "14"}, {"nvidia.com/gpu", "2"}, {"cpu", "32"}};
  return json::array({a, b, m});
}

json Pods() {
  json done = FakePod("ml", "done", "a");
  done["status"]["phase"] = "Succeeded";
  return json::array({FakePod("ml", "p1", "a"), FakePod("ml", "p2", "a", "nvidia.com/gpu", 2), done,
                      FakePod("ml", "s1", "m", "nvidia.com/mig-1g.5gb", 3), FakePod("ml", "pending", "", "nvidia.com/gpu", 2),
                      FakePod("ml", "cpu", "a", "")});
}

TEST(GpuLedger, AllocatableMinusWhatBoundPodsRequestPendingApart) {
  const GpuLedger l = LedgerOf(Nodes(), Pods());
  EXPECT_EQ(l.Free("a", "nvidia.com/gpu"), 1);  // 4 - 1 - 2; the Succeeded pod holds nothing
  EXPECT_EQ(l.Free("m", "nvidia.com/mig-1g.5gb"), 11);
  EXPECT_EQ(l.Free("m", "nvidia.com/gpu"), 2);
  EXPECT_EQ(l.Free("nowhere", "nvidia.com/gpu"), 0);
  EXPECT_FALSE(l.nodes.at("b").schedulable);
  EXPECT_EQ(l.nodes.at("m").allocatable.count("cpu"), 0u);
  EXPECT_EQ(l.pending.at("nvidia.com/gpu"), 2);
}

TEST(GpuLedger, NeedsCountOnlyFreeUnitsAmongTheNamedNodes) {
  const GpuLedger l = LedgerOf(Nodes(), Pods());
  EXPECT_TRUE(CheckNeeds(l, {{"nvidia.com/gpu", 11, {}, "free before"}}).ok());  // 1 + 8 + 2
  EXPECT_TRUE(CheckNeeds(l, {{"nvidia.com/mig-1g.5gb", 11, {"m"}, "slices"}}).ok());
  Status s = CheckNeeds(l, {{"nvidia.com/gpu", 4, {"a", "m"}, "freed by step 1"}});
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(),
            "capacity changed since the plan: the step needs 4 free nvidia.com/gpu (freed by step 1), the cluster has 3");
}

TEST(GpuLedger, ARevertNeedsWholeGpusForOwnersEvictedPodsAndPendingPods) {
  const GpuLedger l = LedgerOf(Nodes(), Pods());
  // Reverting m: free elsewhere = a's 1 (b is cordoned); m offers 4 again;
  // needed = owners 2 + pending 2 + m's whole-GPU pods 0.
  EXPECT_TRUE(CheckWholeGpusForRevert(l, {"m"}, 2, 4, "5e1c0a77").ok());
  Status s = CheckWholeGpusForRevert(l, {"m"}, 4, 2, "5e1c0a77");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(),
            "cannot revert change 5e1c0a77: the workloads need 6 whole GPUs, the cluster would have 3 (3 missing); "
            "nothing changed");
  // Reverting a: its own whole-GPU pods (3 GPUs) come back too: needed 3 +
  // pending 2, against m's 2 free plus what a offers.
  EXPECT_TRUE(CheckWholeGpusForRevert(l, {"a"}, 0, 3, "5e1c0a77").ok());
  EXPECT_FALSE(CheckWholeGpusForRevert(l, {"a"}, 0, 2, "5e1c0a77").ok());
}

}  // namespace
}  // namespace kubeon::apply
