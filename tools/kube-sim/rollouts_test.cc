// Tests for rollouts through the workload controllers on a manual clock:
// the sequence of ReplicaSet sizes of a RollingUpdate, Recreate waiting for
// termination, minReadySeconds, the progress deadline, revision history and
// rollback; StatefulSet creation order, updates from the highest ordinal,
// partition, OnDelete, Parallel and ordered scale-down.
#include <gtest/gtest.h>

#include "pod_deletion.h"
#include "test_util.h"
#include "workload.h"

namespace kubeon::kubesim {
namespace {

using testing::Condition;
using testing::ManualSim;

Settings SlowStart(int64_t ms) {
  Settings s;
  s.pod_startup_delay_ms = ms;
  return s;
}

json Template(const std::string& app, const std::string& image, int64_t grace = 1) {
  return {{"metadata", {{"labels", {{"app", app}}}}},
          {"spec", {{"terminationGracePeriodSeconds", grace},
                    {"containers", json::array({{{"name", "c"}, {"image", image}}})}}}};
}

json Deployment(const std::string& name, int64_t replicas, const json& strategy) {
  return {{"apiVersion", "apps/v1"}, {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"spec", {{"replicas", replicas}, {"selector", {{"matchLabels", {{"app", name}}}}},
                    {"strategy", strategy}, {"template", Template(name, "v1")}}}};
}

json Rolling(const json& surge, const json& unavailable) {
  return {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", surge}, {"maxUnavailable", unavailable}}}};
}

void SetImage(ManualSim& m, const std::string& store_id, const std::string& ns, const std::string& name,
              const std::string& image) {
  m.Mutate(store_id, ns, name, [&](json& o) { o["spec"]["template"]["spec"]["containers"][0]["image"] = image; });
}

// The ReplicaSets of Deployment `name` whose pods run `image`, and the others.
std::pair<int64_t, int64_t> Sizes(ManualSim& m, const std::string& name, const std::string& image) {
  int64_t fresh = 0, old = 0;
  for (const auto& rs : m.store().List(kReplicaSets, "ml")) {
    if (Name(rs).rfind(name + "-", 0) != 0) continue;
    const bool is_new = rs["spec"]["template"]["spec"]["containers"][0]["image"] == image;
    (is_new ? fresh : old) += SpecReplicas(rs);
  }
  return {fresh, old};
}

std::string Reason(ManualSim& m, const std::string& name, const std::string& type) {
  json d = m.Get(kDeployments, "ml", name);
  const json* c = Condition(d, type);
  return c == nullptr ? "" : c->value("status", "") + "/" + c->value("reason", "");
}

// Advances the clock by `ms` in steps of 100 ms.
void AdvanceInSteps(ManualSim& m, int ms) {
  for (int t = 0; t < ms; t += 100) m.Advance(100);
}

bool DeletePodForTest(ManualSim& m, const std::string& name) {
  bool ok = DeletePod(m.store(), "serving", name, std::nullopt, m.now()).ok();
  m.sim().AfterWrite();
  return ok;
}

// Advances in 1 s steps until `name` has completed (at most `limit` steps).
void Complete(ManualSim& m, const std::string& name, int limit = 30) {
  for (int i = 0; i < limit && Reason(m, name, "Progressing") != "True/NewReplicaSetAvailable"; ++i) m.Advance(1000);
}

TEST(DeploymentRolloutSequenceTest, RollingUpdateWithDefaultFenceposts) {
  ManualSim m(SlowStart(1000));
  m.Create(kDeployments, Deployment("web", 4, Rolling("25%", "25%")));  // surge 1, unavailable 1
  Complete(m, "web");
  ASSERT_EQ(Reason(m, "web", "Progressing"), "True/NewReplicaSetAvailable");
  SetImage(m, kDeployments, "ml", "web", "v2");
  // NewReplicaSetCreated, then ReplicaSetUpdated once its pod is counted.
  EXPECT_EQ(Reason(m, "web", "Progressing"), "True/ReplicaSetUpdated");
  std::vector<std::pair<int64_t, int64_t>> seen = {Sizes(m, "web", "v2")};
  for (int i = 0; i < 6; ++i) {
    m.Advance(1000);
    if (seen.back() != Sizes(m, "web", "v2")) seen.push_back(Sizes(m, "web", "v2"));
  }
  // As the real controller: new 1 / old 3, then the new one grows back to
  // 5 pods in all (2 / 3); each step waits for new pods to become available.
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{{2, 3}, {4, 1}, {4, 0}}));
  json d = m.Get(kDeployments, "ml", "web");
  EXPECT_EQ(d["status"]["updatedReplicas"], 4);
  EXPECT_EQ(d["status"]["availableReplicas"], 4);
  EXPECT_EQ(d["status"]["observedGeneration"], d["metadata"]["generation"]);
  EXPECT_EQ(Reason(m, "web", "Progressing"), "True/NewReplicaSetAvailable");
  EXPECT_EQ(Reason(m, "web", "Available"), "True/MinimumReplicasAvailable");
  EXPECT_EQ(Str(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "2");
}

TEST(DeploymentRolloutSequenceTest, SurgeOnlyNeverDropsBelowReplicas) {
  ManualSim m(SlowStart(1000));
  m.Create(kDeployments, Deployment("web", 4, Rolling("50%", 0)));  // surge 2, unavailable 0
  Complete(m, "web");
  SetImage(m, kDeployments, "ml", "web", "v2");
  std::vector<std::pair<int64_t, int64_t>> seen = {Sizes(m, "web", "v2")};
  for (int i = 0; i < 6; ++i) {
    m.Advance(1000);
    if (seen.back() != Sizes(m, "web", "v2")) seen.push_back(Sizes(m, "web", "v2"));
    EXPECT_GE(Int(m.Get(kDeployments, "ml", "web"), {"status", "availableReplicas"}, 0), 4);
  }
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{{2, 4}, {4, 2}, {4, 0}}));
}

TEST(DeploymentRolloutSequenceTest, RecreateWaitsUntilOldPodsAreGone) {
  ManualSim m;
  json d = Deployment("batch", 2, {{"type", "Recreate"}});
  d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 5;
  m.Create(kDeployments, d);
  Complete(m, "batch");
  SetImage(m, kDeployments, "ml", "batch", "v2");
  EXPECT_EQ(Sizes(m, "batch", "v2"), std::make_pair(int64_t{0}, int64_t{0}));
  int terminating = 0;
  for (const auto& p : m.Pods("ml")) terminating += Name(p).rfind("batch-", 0) == 0 && IsPodDeleting(p);
  EXPECT_EQ(terminating, 2);
  m.Advance(4999);  // Terminating is not gone: no new pods yet
  EXPECT_EQ(Sizes(m, "batch", "v2"), std::make_pair(int64_t{0}, int64_t{0}));
  m.Advance(1);
  EXPECT_EQ(Sizes(m, "batch", "v2"), std::make_pair(int64_t{2}, int64_t{0}));
  Complete(m, "batch");
  EXPECT_EQ(m.Get(kDeployments, "ml", "batch")["status"]["updatedReplicas"], 2);
}

TEST(DeploymentRolloutSequenceTest, MinReadySecondsHoldsBackTheOldReplicaSet) {
  ManualSim m;
  json d = Deployment("web", 1, Rolling(1, 0));
  d["spec"]["minReadySeconds"] = 5;
  m.Create(kDeployments, d);
  m.Advance(5000);
  Complete(m, "web");
  SetImage(m, kDeployments, "ml", "web", "v2");
  EXPECT_EQ(Sizes(m, "web", "v2"), std::make_pair(int64_t{1}, int64_t{1}));
  m.Advance(4000);  // Ready, not yet available
  EXPECT_EQ(Sizes(m, "web", "v2"), std::make_pair(int64_t{1}, int64_t{1}));
  EXPECT_EQ(m.Get(kDeployments, "ml", "web")["status"]["readyReplicas"], 2);
  m.Advance(1000);
  EXPECT_EQ(Sizes(m, "web", "v2"), std::make_pair(int64_t{1}, int64_t{0}));
}

TEST(DeploymentRolloutSequenceTest, ProgressDeadlineExceeded) {
  ManualSim m;
  json d = Deployment("web", 2, Rolling("25%", "25%"));
  d["spec"]["progressDeadlineSeconds"] = 3;
  m.Create(kDeployments, d);
  Complete(m, "web");
  // The new pods can never be scheduled.
  m.Mutate(kDeployments, "ml", "web", [](json& o) { o["spec"]["template"]["spec"]["nodeSelector"] = {{"pool", "none"}}; });
  EXPECT_EQ(Reason(m, "web", "Progressing"), "True/ReplicaSetUpdated");
  m.Advance(3000);  // exactly at the deadline: not yet past it
  EXPECT_EQ(Reason(m, "web", "Progressing"), "True/ReplicaSetUpdated");
  m.Advance(1);
  EXPECT_EQ(Reason(m, "web", "Progressing"), "False/ProgressDeadlineExceeded");
  const json stuck = m.Get(kDeployments, "ml", "web");
  const json* c = Condition(stuck, "Progressing");
  EXPECT_NE(c->value("message", "").find("has timed out progressing."), std::string::npos);
  EXPECT_EQ(Reason(m, "web", "Available"), "True/MinimumReplicasAvailable");  // the old pods still serve
  // A fixed template starts a new rollout that completes.
  m.Mutate(kDeployments, "ml", "web", [](json& o) { o["spec"]["template"]["spec"].erase("nodeSelector"); });
  Complete(m, "web");
  EXPECT_EQ(Reason(m, "web", "Progressing"), "True/NewReplicaSetAvailable");
}

TEST(DeploymentRolloutSequenceTest, RevisionHistoryLimitAndRollback) {
  ManualSim m;
  json d = Deployment("web", 1, Rolling(1, 0));
  d["spec"]["revisionHistoryLimit"] = 1;
  m.Create(kDeployments, d);
  Complete(m, "web");
  for (const char* image : {"v2", "v3"}) {
    SetImage(m, kDeployments, "ml", "web", image);
    Complete(m, "web");
    m.Advance(1000);
  }
  std::vector<std::string> left;
  for (const auto& rs : m.store().List(kReplicaSets, "ml")) {
    if (Name(rs).rfind("web-", 0) == 0) left.push_back(Str(rs, {"metadata", "annotations", "deployment.kubernetes.io/revision"}));
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"2", "3"}));  // revision 1 was cleaned up
  // Back to v2: the revision-2 ReplicaSet is adopted as the new one (revision 4).
  SetImage(m, kDeployments, "ml", "web", "v2");
  Complete(m, "web");
  EXPECT_EQ(Sizes(m, "web", "v2"), std::make_pair(int64_t{1}, int64_t{0}));
  int count = 0;
  for (const auto& rs : m.store().List(kReplicaSets, "ml")) {
    if (Name(rs).rfind("web-", 0) != 0) continue;
    ++count;
    if (rs["spec"]["template"]["spec"]["containers"][0]["image"] == "v2") {
      EXPECT_EQ(Str(rs, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "4");
    }
  }
  EXPECT_EQ(count, 2);
}

TEST(DeploymentRolloutSequenceTest, SemanticallyEqualTemplateDoesNotRollOut) {
  ManualSim m;
  m.Create(kDeployments, Deployment("web", 1, Rolling(1, 0)));
  Complete(m, "web");
  // What `kubectl rollout undo` sends: nulls and empty structs are no change.
  m.Mutate(kDeployments, "ml", "web", [](json& d) {
    d["spec"]["template"]["metadata"]["creationTimestamp"] = nullptr;
    d["spec"]["template"]["spec"]["containers"][0]["resources"] = json::object();
    d["spec"]["template"]["spec"]["tolerations"] = json::array();
  });
  EXPECT_EQ(m.store().List(kReplicaSets, "ml").size(), 2u);  // trainer's and web's
  EXPECT_EQ(Reason(m, "web", "Progressing"), "True/NewReplicaSetAvailable");
  SetImage(m, kDeployments, "ml", "web", "v2");
  EXPECT_EQ(m.store().List(kReplicaSets, "ml").size(), 3u);
}

TEST(DeploymentRolloutSequenceTest, AdoptsAnOrphanedReplicaSetWithItsTemplate) {
  ManualSim m;
  json tmpl = Template("web", "v1");
  tmpl["metadata"]["labels"]["pod-template-hash"] = "abc12";
  m.Create(kReplicaSets, {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"},
                          {"metadata", {{"name", "web-abc12"}, {"namespace", "ml"}, {"labels", {{"app", "web"}}}}},
                          {"spec", {{"replicas", 1}, {"selector", {{"matchLabels", {{"app", "web"}, {"pod-template-hash", "abc12"}}}}},
                                    {"template", tmpl}}}});
  m.Create(kDeployments, Deployment("web", 2, Rolling(1, 0)));
  std::vector<json> rss;
  for (const auto& rs : m.store().List(kReplicaSets, "ml")) {
    if (Name(rs).rfind("web-", 0) == 0) rss.push_back(rs);
  }
  ASSERT_EQ(rss.size(), 1u);
  EXPECT_EQ(Name(rss[0]), "web-abc12");
  EXPECT_EQ(Str(*ControllerRef(rss[0]), {"name"}), "web");
  EXPECT_EQ(SpecReplicas(rss[0]), 2);
}

json StatefulSet(const std::string& name, int64_t replicas, const json& extra_spec = json::object()) {
  json sts = {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"},
              {"metadata", {{"name", name}, {"namespace", "serving"}}},
              {"spec", {{"replicas", replicas}, {"serviceName", name},
                        {"selector", {{"matchLabels", {{"app", name}}}}}, {"template", Template(name, "v1")}}}};
  for (const auto& [k, v] : extra_spec.items()) sts["spec"][k] = v;
  return sts;
}

std::vector<std::string> PodsOf(ManualSim& m, const std::string& sts) {
  std::vector<std::string> out;
  for (const auto& p : m.Pods("serving")) {
    if (Name(p).rfind(sts + "-", 0) == 0) out.push_back(Name(p));
  }
  return out;
}

std::string Image(ManualSim& m, const std::string& pod) {
  json p = m.Get(kPods, "serving", pod);
  return p.is_null() ? "" : p["spec"]["containers"][0]["image"].get<std::string>();
}

TEST(StatefulSetRolloutTest, OrderedCreationAndUpdateFromTheHighestOrdinal) {
  ManualSim m(SlowStart(1000));
  m.Create(kStatefulSets, StatefulSet("db", 3));
  EXPECT_EQ(PodsOf(m, "db"), std::vector<std::string>{"db-0"});
  m.Advance(1000);
  EXPECT_EQ(PodsOf(m, "db"), (std::vector<std::string>{"db-0", "db-1"}));
  m.Advance(2000);
  ASSERT_EQ(PodsOf(m, "db"), (std::vector<std::string>{"db-0", "db-1", "db-2"}));
  m.Advance(1000);
  const std::string old_rev = Str(m.Get(kStatefulSets, "serving", "db"), {"status", "updateRevision"});
  SetImage(m, kStatefulSets, "serving", "db", "v2");
  json sts = m.Get(kStatefulSets, "serving", "db");
  EXPECT_NE(Str(sts, {"status", "updateRevision"}), old_rev);
  EXPECT_EQ(Str(sts, {"status", "currentRevision"}), old_rev);
  // Replaced one at a time, highest first: each waits for the old pod to be
  // gone (1 s grace) and the new one to be Ready (1 s start).
  std::vector<std::string> order;
  for (int step = 0; step < 100 && order.size() < 3; ++step) {
    int not_ready = 0;
    for (const char* p : {"db-0", "db-1", "db-2"}) {
      json pod = m.Get(kPods, "serving", p);
      if (pod.is_null() || !IsPodReady(pod)) ++not_ready;
      if (Image(m, p) == "v2" && std::find(order.begin(), order.end(), p) == order.end()) order.push_back(p);
    }
    EXPECT_LE(not_ready, 1);
    m.Advance(100);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"db-2", "db-1", "db-0"}));
  m.Advance(1000);
  sts = m.Get(kStatefulSets, "serving", "db");
  EXPECT_EQ(sts["status"]["updatedReplicas"], 3);
  EXPECT_EQ(sts["status"]["readyReplicas"], 3);
  EXPECT_EQ(sts["status"]["currentRevision"], sts["status"]["updateRevision"]);
  EXPECT_EQ(sts["status"]["currentReplicas"], 3);
  for (const char* p : {"db-0", "db-1", "db-2"}) {
    EXPECT_EQ(Str(m.Get(kPods, "serving", p), {"metadata", "labels", "controller-revision-hash"}),
              Str(sts, {"status", "updateRevision"}));
  }
}

TEST(StatefulSetRolloutTest, PartitionKeepsLowerOrdinals) {
  ManualSim m;
  m.Create(kStatefulSets, StatefulSet("db", 3, {{"updateStrategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 2}}}}}}));
  m.Advance(1000);
  SetImage(m, kStatefulSets, "serving", "db", "v2");
  m.Advance(2000);
  EXPECT_EQ(Image(m, "db-2"), "v2");
  EXPECT_EQ(Image(m, "db-1"), "v1");
  EXPECT_EQ(Image(m, "db-0"), "v1");
  json sts = m.Get(kStatefulSets, "serving", "db");
  EXPECT_EQ(sts["status"]["updatedReplicas"], 1);
  EXPECT_EQ(sts["status"]["currentReplicas"], 2);
  EXPECT_NE(sts["status"]["currentRevision"], sts["status"]["updateRevision"]);
  // A deleted pod below the partition comes back at the current revision.
  ASSERT_TRUE(DeletePodForTest(m, "db-0"));
  m.Advance(2000);
  EXPECT_EQ(Image(m, "db-0"), "v1");
  // Lowering the partition continues the rollout.
  m.Mutate(kStatefulSets, "serving", "db", [](json& s) { s["spec"]["updateStrategy"]["rollingUpdate"]["partition"] = 0; });
  AdvanceInSteps(m, 5000);
  EXPECT_EQ(Image(m, "db-1"), "v2");
  EXPECT_EQ(Image(m, "db-0"), "v2");
}

TEST(StatefulSetRolloutTest, OnDeleteReplacesOnlyDeletedPods) {
  ManualSim m;
  m.Create(kStatefulSets, StatefulSet("db", 2, {{"updateStrategy", {{"type", "OnDelete"}}}}));
  SetImage(m, kStatefulSets, "serving", "db", "v2");
  m.Advance(5000);
  EXPECT_EQ(Image(m, "db-0"), "v1");
  EXPECT_EQ(Image(m, "db-1"), "v1");
  ASSERT_TRUE(DeletePodForTest(m, "db-0"));
  EXPECT_EQ(Image(m, "db-0"), "v1");  // Terminating: not replaced before it is gone
  m.Advance(1000);
  EXPECT_EQ(Image(m, "db-0"), "v2");
  EXPECT_EQ(Image(m, "db-1"), "v1");
  EXPECT_EQ(m.Get(kStatefulSets, "serving", "db")["status"]["updatedReplicas"], 1);
}

TEST(StatefulSetRolloutTest, ParallelCreatesAtOnceOrderedScalesDownOneByOne) {
  ManualSim m(SlowStart(1000));
  m.Create(kStatefulSets, StatefulSet("par", 3, {{"podManagementPolicy", "Parallel"}}));
  EXPECT_EQ(PodsOf(m, "par").size(), 3u);
  m.Create(kStatefulSets, StatefulSet("ord", 3));
  AdvanceInSteps(m, 3000);
  ASSERT_EQ(PodsOf(m, "ord").size(), 3u);
  m.Mutate(kStatefulSets, "serving", "ord", [](json& s) { s["spec"]["replicas"] = 1; });
  EXPECT_TRUE(IsPodDeleting(m.Get(kPods, "serving", "ord-2")));
  EXPECT_FALSE(IsPodDeleting(m.Get(kPods, "serving", "ord-1")));
  m.Advance(1000);  // ord-2 is gone, then ord-1 goes
  EXPECT_TRUE(m.Get(kPods, "serving", "ord-2").is_null());
  EXPECT_TRUE(IsPodDeleting(m.Get(kPods, "serving", "ord-1")));
  m.Advance(1000);
  EXPECT_EQ(PodsOf(m, "ord"), std::vector<std::string>{"ord-0"});
  m.Mutate(kStatefulSets, "serving", "par", [](json& s) { s["spec"]["replicas"] = 0; });
  for (const auto& p : PodsOf(m, "par")) EXPECT_TRUE(IsPodDeleting(m.Get(kPods, "serving", p)));
}

}  // namespace
}  // namespace kubeon::kubesim
