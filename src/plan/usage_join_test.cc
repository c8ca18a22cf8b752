// Tests of usage_join.h: history pods map to workloads through live pods,
// ReplicaSet and StatefulSet names; the rest are counted as unmapped.
#include "plan/usage_join.h"

#include <gtest/gtest.h>

namespace kubeon::plan {
namespace {

model::Pod LivePod(const std::string& ns, const std::string& name, const std::string& controller_kind,
                   const std::string& controller, const model::WorkloadRef& workload) {
  model::Pod p;
  p.namespace_ = ns;
  p.name = name;
  if (!controller_kind.empty()) p.controller = model::OwnerRef{"apps/v1", controller_kind, controller, "uid", true};
  p.workload = workload;
  return p;
}

metrics::History HistoryOf(std::initializer_list<std::pair<std::string, std::string>> pods) {
  metrics::History h;
  int64_t peak = 100;
  for (const auto& [ns, pod] : pods) h.pods[{ns, pod}].peak_memory_mib = peak++;
  return h;
}

// The peaks of the history pods joined to `w`, in the history's order.
std::vector<int64_t> Peaks(const UsageJoin& j, const model::WorkloadRef& w) {
  std::vector<int64_t> out;
  auto it = j.by_workload.find(w);
  if (it == j.by_workload.end()) return out;
  for (const metrics::PodUsage* u : it->second) out.push_back(u->peak_memory_mib);
  return out;
}

const model::WorkloadRef kTrain{"ml", "Deployment", "train"};
const model::WorkloadRef kDb{"ml", "StatefulSet", "db"};

TEST(JoinUsage, LivePodsMapThroughTheirWorkload) {
  model::Cluster c;
  c.pods.push_back(LivePod("ml", "train-7d9-abcde", "ReplicaSet", "train-7d9", kTrain));
  c.pods.push_back(LivePod("ml", "db-0", "StatefulSet", "db", kDb));
  const metrics::History h = HistoryOf({{"ml", "db-0"}, {"ml", "train-7d9-abcde"}});
  const UsageJoin j = JoinUsage(c, h);
  EXPECT_EQ(Peaks(j, kDb), (std::vector<int64_t>{100}));
  EXPECT_EQ(Peaks(j, kTrain), (std::vector<int64_t>{101}));
  EXPECT_EQ(j.unmapped_pods, 0u);
}

// Pods gone from the snapshot map by name: "<replicaset>-<suffix>" for a
// ReplicaSet known from a live pod or from the snapshot's ReplicaSets (then
// to its owner, or to the ReplicaSet itself without one), "<statefulset>-<n>"
// for a known StatefulSet (digits only); anything else is unmapped, and a
// namespace never matches another's.
TEST(JoinUsage, DeletedPodsMapByTheirOwnersName) {
  model::Cluster c;
  c.pods.push_back(LivePod("ml", "train-7d9-abcde", "ReplicaSet", "train-7d9", kTrain));
  model::Controller old_rs;
  old_rs.namespace_ = "ml";
  old_rs.kind = "ReplicaSet";
  old_rs.name = "train-5c4";
  old_rs.owner = model::OwnerRef{"apps/v1", "Deployment", "train", "uid", true};
  c.controllers.push_back(old_rs);
  model::Controller bare_rs = old_rs;
  bare_rs.name = "batch-1a2";
  bare_rs.owner.reset();
  c.controllers.push_back(bare_rs);
  model::Controller ss;
  ss.namespace_ = "ml";
  ss.kind = "StatefulSet";
  ss.name = "db";
  c.controllers.push_back(ss);
  const metrics::History h = HistoryOf({{"ml", "batch-1a2-zzzzz"},   // 100: bare ReplicaSet
                                        {"ml", "db-1"},              // 101: StatefulSet ordinal
                                        {"ml", "db-x"},              // 102: not an ordinal
                                        {"ml", "train-5c4-qqqqq"},   // 103: old ReplicaSet -> Deployment
                                        {"ml", "train-7d9-fffff"},   // 104: live pod's ReplicaSet
                                        {"other", "db-0"},           // 105: other namespace
                                        {"ml", "nodash"}});          // 106
  const UsageJoin j = JoinUsage(c, h);
  EXPECT_EQ(Peaks(j, kTrain), (std::vector<int64_t>{103, 104}));
  EXPECT_EQ(Peaks(j, kDb), (std::vector<int64_t>{101}));
  EXPECT_EQ(Peaks(j, (model::WorkloadRef{"ml", "ReplicaSet", "batch-1a2"})), (std::vector<int64_t>{100}));
  EXPECT_EQ(j.unmapped_pods, 3u);
  EXPECT_EQ(j.by_workload.size(), 3u);
}

// A live pod's owner chain wins over the snapshot's ReplicaSet object of the
// same name (the pod's workload was resolved through every level).
TEST(JoinUsage, LivePodsOwnerChainWinsOverTheReplicaSetObject) {
  model::Cluster c;
  const model::WorkloadRef rollout{"ml", "Rollout", "train"};
  c.pods.push_back(LivePod("ml", "train-7d9-abcde", "ReplicaSet", "train-7d9", rollout));
  model::Controller rs;
  rs.namespace_ = "ml";
  rs.kind = "ReplicaSet";
  rs.name = "train-7d9";
  c.controllers.push_back(rs);
  const metrics::History h = HistoryOf({{"ml", "train-7d9-old01"}});  // outlives the join (it points into it)
  const UsageJoin j = JoinUsage(c, h);
  EXPECT_EQ(Peaks(j, rollout), (std::vector<int64_t>{100}));
  EXPECT_EQ(j.by_workload.size(), 1u);
}

}  // namespace
}  // namespace kubeon::plan
