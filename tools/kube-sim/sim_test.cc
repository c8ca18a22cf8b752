// Tests for the Simulator's simulated clock, for what --state-dir keeps
// besides the store (the devices pods hold), and for the stable uid of
// namespace kube-system (the cluster's identity).
#include "sim.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include "test_util.h"

namespace kubeon::kubesim {
namespace {

using namespace std::chrono_literals;

TEST(SimIdentityTest, KubeSystemUidIsStablePerCluster) {
  auto uid_of = [](const json& list, Settings settings = Settings()) {
    Simulator sim(settings);
    std::lock_guard<std::mutex> lock(sim.mutex());
    EXPECT_TRUE(sim.LoadSnapshot(list, "test").ok());
    const json* ns = sim.store().Get(kNamespaces, "", "kube-system");
    return ns != nullptr ? Uid(*ns) : std::string();
  };
  const json small = testing::TestdataJson("small.json");
  const std::string uid = uid_of(small);
  EXPECT_EQ(uid, KubeSystemUid(small.dump()));
  EXPECT_EQ(uid.size(), 36u);
  EXPECT_EQ(uid[14], '5');
  EXPECT_EQ(uid_of(small), uid);  // the same cluster again
  const json empty = {{"kind", "List"}, {"items", json::array()}};
  EXPECT_NE(uid_of(empty), uid);  // another cluster
  Settings fixed;
  fixed.kube_system_uid = "cluster-a";
  EXPECT_EQ(uid_of(small, fixed), "cluster-a");
  json with_ns = empty;
  with_ns["items"].push_back({{"apiVersion", "v1"}, {"kind", "Namespace"},
                              {"metadata", {{"name", "kube-system"}, {"uid", "from-snapshot"}}}});
  EXPECT_EQ(uid_of(with_ns, fixed), "from-snapshot");  // a real cluster's uid is kept
}

TEST(SimClockTest, ScaledAndAdvanced) {
  TimePoint real(std::chrono::seconds(1000000));
  Settings s;
  s.time_scale = 100;
  Simulator sim(s, [&] { return real; });
  const TimePoint start = sim.Now();
  EXPECT_EQ(start, real);
  real += 1s;
  EXPECT_EQ(sim.Now() - start, 100s);
  {
    std::lock_guard<std::mutex> lock(sim.mutex());
    sim.AdvanceClock(3600s);
    EXPECT_EQ(sim.ClockState()["advancedSeconds"], 3600.0);
    // A new scale continues from the current simulated time.
    ASSERT_TRUE(sim.UpdateSettings(json::parse(R"({"timeScale": 1})")).ok());
  }
  EXPECT_EQ(sim.Now() - start, 3700s);
  real += 1s;
  EXPECT_EQ(sim.Now() - start, 3701s);
  std::lock_guard<std::mutex> lock(sim.mutex());
  EXPECT_FALSE(sim.UpdateSettings(json::parse(R"({"timeScale": 0})")).ok());
  EXPECT_FALSE(sim.UpdateSettings(json::parse(R"({"devicePluginMissingConfig": "ignore"})")).ok());
}

TEST(SimClockTest, ObjectsAreStampedWithSimulatedTime) {
  TimePoint real(std::chrono::seconds(1714521600));
  Simulator sim(Settings(), [&] { return real; });
  std::lock_guard<std::mutex> lock(sim.mutex());
  sim.AdvanceClock(std::chrono::hours(24));
  auto created = sim.store().Create(kNamespaces, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "x"}}}});
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(Str(created.value(), {"metadata", "creationTimestamp"}), "2024-05-02T00:00:00Z");
}

TEST(SimStateTest, DeviceAssignmentsSurviveARestart) {
  char tmpl[] = "/tmp/kubesim-state-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  json before;
  {
    Simulator sim{Settings()};
    std::lock_guard<std::mutex> lock(sim.mutex());
    ASSERT_TRUE(sim.UsePersistence(dir).ok());
    ASSERT_TRUE(sim.LoadSnapshot(testing::TestdataJson("small.json"), "small.json").ok());
    before = sim.gpus().View();
    ASSERT_EQ(before["nodes"]["gpu-b"]["gpus"][0]["pods"], json::array({"serving/infer-0"}));
  }
  {
    Simulator sim{Settings()};
    std::lock_guard<std::mutex> lock(sim.mutex());
    auto loaded = sim.UsePersistence(dir);
    ASSERT_TRUE(loaded.ok());
    EXPECT_TRUE(loaded.value());
    EXPECT_EQ(sim.gpus().View(), before);
  }
  unlink((dir + "/state.json").c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace kubeon::kubesim
