// Tests for graceful pod deletion (pod_deletion.h) and the pod terminator
// (pod_terminator.h), through the REST layer and a Simulator on a manual
// clock: deletionTimestamp and grace periods, Terminating pods that are not
// Ready, removal after the shutdown time, shortened grace, the watch events,
// and how the scheduler, the ReplicaSet controller and PDBs see them.
#include <gtest/gtest.h>

#include "api.h"
#include "pod_deletion.h"
#include "pod_terminator.h"
#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using testing::ManualSim;

constexpr const char* kTrainer = "trainer-6d4cf56db6-x7k2p";

class PodTerminationTest : public ::testing::Test {
 protected:
  explicit PodTerminationTest(Settings s = Settings()) : m(s) {}
  ApiResponse Delete(const std::string& ns, const std::string& name, const std::string& query = "",
                     const std::string& body = "") {
    ApiRequest req;
    req.method = "DELETE";
    req.path = "/api/v1/namespaces/" + ns + "/pods/" + name;
    if (!query.empty()) req.query.emplace(query.substr(0, query.find('=')), query.substr(query.find('=') + 1));
    req.headers["authorization"] = "Bearer t";
    if (!body.empty()) req.headers["content-type"] = "application/json";
    req.body = body;
    return api.Handle(req);
  }
  json Pod(const std::string& ns, const std::string& name) { return m.Get(kPods, ns, name); }

  ManualSim m;
  Api api{m.sim(), "t", "127.0.0.1:6443"};
};

TEST_F(PodTerminationTest, DeleteMarksTerminatingAndRemovesAfterTheGracePeriod) {
  const uint64_t from = m.store().ResourceVersion();
  ApiResponse r = Delete("ml", kTrainer);
  ASSERT_EQ(r.status, 200) << r.body;
  json served = json::parse(r.body);
  EXPECT_EQ(served["metadata"]["deletionGracePeriodSeconds"], 30);  // the pod's terminationGracePeriodSeconds
  EXPECT_EQ(served["metadata"]["deletionTimestamp"], Rfc3339(m.now() + std::chrono::seconds(30)));
  json pod = Pod("ml", kTrainer);
  ASSERT_FALSE(pod.is_null());
  EXPECT_TRUE(IsPodDeleting(pod));
  EXPECT_FALSE(IsPodReady(pod));
  EXPECT_EQ(PodPhase(pod), "Running");  // the phase is kept
  m.Advance(29999);
  EXPECT_FALSE(Pod("ml", kTrainer).is_null());
  m.Advance(1);
  EXPECT_TRUE(Pod("ml", kTrainer).is_null());
  // Watchers saw MODIFIED with the deletionTimestamp first and DELETED last.
  std::vector<std::string> types;
  ASSERT_TRUE(m.store().ChangesSince(from, [&](const std::string& id, const std::string& type, const json& obj,
                                               const json*) {
    if (id == kPods && Name(obj) == kTrainer) types.push_back(type + (IsPodDeleting(obj) ? "+deleting" : ""));
  }));
  ASSERT_GE(types.size(), 2u);
  EXPECT_EQ(types.front(), "MODIFIED+deleting");
  EXPECT_EQ(types.back(), "DELETED+deleting");
}

TEST_F(PodTerminationTest, GraceFromTheRequestAndImmediateCases) {
  ASSERT_EQ(Delete("ml", kTrainer, "", R"({"gracePeriodSeconds": 2})").status, 200);
  EXPECT_EQ(Pod("ml", kTrainer)["metadata"]["deletionGracePeriodSeconds"], 2);
  m.Advance(2000);
  EXPECT_TRUE(Pod("ml", kTrainer).is_null());
  // Query parameter; 0 removes at once.
  ASSERT_EQ(Delete("ml", "trainer-6d4cf56db6-m9q4z", "gracePeriodSeconds=0").status, 200);
  EXPECT_TRUE(Pod("ml", "trainer-6d4cf56db6-m9q4z").is_null());
  // An unscheduled pod goes at once whatever its grace period.
  m.Create(kPods, {{"metadata", {{"name", "stuck"}, {"namespace", "ml"}}},
                   {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"},
                                                          {"resources", {{"limits", {{"nvidia.com/gpu", "99"}}}}}}})}}}});
  ASSERT_TRUE(Str(Pod("ml", "stuck"), {"spec", "nodeName"}).empty());
  ASSERT_EQ(Delete("ml", "stuck").status, 200);
  EXPECT_TRUE(Pod("ml", "stuck").is_null());
  EXPECT_EQ(Delete("ml", "stuck").status, 404);
}

TEST_F(PodTerminationTest, ASecondDeleteMayShortenTheGraceButNotLengthenIt) {
  ASSERT_EQ(Delete("ml", kTrainer, "", R"({"gracePeriodSeconds": 10})").status, 200);
  const json first = Pod("ml", kTrainer);
  m.Advance(1000);
  ASSERT_EQ(Delete("ml", kTrainer, "", R"({"gracePeriodSeconds": 60})").status, 200);
  EXPECT_EQ(Pod("ml", kTrainer)["metadata"], first["metadata"]);  // unchanged
  ASSERT_EQ(Delete("ml", kTrainer, "", R"({"gracePeriodSeconds": 3})").status, 200);
  json shortened = Pod("ml", kTrainer);
  EXPECT_EQ(shortened["metadata"]["deletionGracePeriodSeconds"], 3);
  // The deadline counts from the first deletion.
  EXPECT_EQ(shortened["metadata"]["deletionTimestamp"], Rfc3339(m.now() - std::chrono::seconds(1) + std::chrono::seconds(3)));
  m.Advance(1999);
  EXPECT_FALSE(Pod("ml", kTrainer).is_null());
  m.Advance(1);
  EXPECT_TRUE(Pod("ml", kTrainer).is_null());
}

TEST_F(PodTerminationTest, ShortenedToZeroRemovesAtOnce) {
  ASSERT_EQ(Delete("ml", kTrainer).status, 200);
  ASSERT_FALSE(Pod("ml", kTrainer).is_null());
  ASSERT_EQ(Delete("ml", kTrainer, "gracePeriodSeconds=0").status, 200);
  EXPECT_TRUE(Pod("ml", kTrainer).is_null());
}

TEST_F(PodTerminationTest, ReplicaSetReplacesATerminatingPodAtOnce) {
  ASSERT_EQ(Delete("ml", kTrainer).status, 200);
  int active = 0, terminating = 0;
  for (const auto& p : m.Pods("ml")) (IsPodDeleting(p) ? terminating : active)++;
  EXPECT_EQ(active, 2);
  EXPECT_EQ(terminating, 1);
  EXPECT_EQ(m.Get(kReplicaSets, "ml", "trainer-6d4cf56db6")["status"]["replicas"], 2);
  // The PDB counts only healthy pods that are not terminating.
  EXPECT_EQ(m.Get(kPdbs, "ml", "trainer-pdb")["status"]["currentHealthy"], 2);
}

TEST_F(PodTerminationTest, ATerminatingPodKeepsItsResources) {
  // gpu-b has 8 GPUs, infer-0 holds 1.  A 7-GPU pod fits only once infer-0 is gone.
  m.Mutate(kStatefulSets, "serving", "infer", [](json& s) { s["spec"]["replicas"] = 0; });
  ASSERT_TRUE(IsPodDeleting(Pod("serving", "infer-0")));
  m.Create(kPods, {{"metadata", {{"name", "big"}, {"namespace", "ml"}}},
                   {"spec", {{"nodeSelector", {{"kubernetes.io/hostname", "gpu-b"}}},
                             {"containers", json::array({{{"name", "c"}, {"image", "i"},
                                                          {"resources", {{"limits", {{"nvidia.com/gpu", "8"}}}}}}})}}}});
  EXPECT_TRUE(Str(Pod("ml", "big"), {"spec", "nodeName"}).empty());
  m.Advance(30000);
  EXPECT_TRUE(Pod("serving", "infer-0").is_null());
  EXPECT_EQ(Str(Pod("ml", "big"), {"spec", "nodeName"}), "gpu-b");
}

class ShortShutdownTest : public PodTerminationTest {
 protected:
  static Settings WithShutdown() {
    Settings s;
    s.pod_shutdown_ms = 500;
    return s;
  }
  ShortShutdownTest() : PodTerminationTest(WithShutdown()) {}
};

TEST_F(ShortShutdownTest, ContainersThatExitEarlyEndTheWait) {
  ASSERT_EQ(Delete("ml", kTrainer).status, 200);
  EXPECT_EQ(Pod("ml", kTrainer)["metadata"]["deletionGracePeriodSeconds"], 30);
  m.Advance(499);
  EXPECT_FALSE(Pod("ml", kTrainer).is_null());
  m.Advance(1);
  EXPECT_TRUE(Pod("ml", kTrainer).is_null());
}

TEST(PodTerminatorSettingsTest, ShutdownIsTheSmallerOfGraceAndSetting) {
  Settings s;
  auto merged = s.Merge(json::parse(R"({"podShutdownMs": 1500})"));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged.value().pod_shutdown_ms, 1500);
  EXPECT_EQ(merged.value().ToJson()["podShutdownMs"], 1500);
  auto reset = merged.value().Merge(json::parse(R"({"podShutdownMs": null})"));
  ASSERT_TRUE(reset.ok());
  EXPECT_EQ(reset.value().pod_shutdown_ms, -1);
  EXPECT_TRUE(reset.value().ToJson()["podShutdownMs"].is_null());
  EXPECT_FALSE(s.Merge(json::parse(R"({"podShutdownMs": -5})")).ok());
  EXPECT_EQ(PodShutdownMs(30, merged.value()), 1500);
  EXPECT_EQ(PodShutdownMs(1, merged.value()), 1000);
  EXPECT_EQ(PodShutdownMs(30, reset.value()), 30000);
}

}  // namespace
}  // namespace kubeon::kubesim
