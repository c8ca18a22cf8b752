// Tests for ConfigMapSync (configmap_sync.h): what a node's mounted
// ConfigMap shows while edits propagate.
#include "configmap_sync.h"

#include <gtest/gtest.h>

#include "resources.h"

namespace kubeon::kubesim {
namespace {

TEST(ConfigMapSyncTest, NodesSeeContentOnlyAfterTheDelay) {
  TimePoint t0(std::chrono::seconds(1000));
  Store store(100, [&] { return t0; }, 1);
  const auto delay = std::chrono::milliseconds(60000);
  ConfigMapSync sync;
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
             {"metadata", {{"name", "c"}, {"namespace", "ns"}}}, {"data", {{"k", "v1"}}}};
  ASSERT_TRUE(store.Create(kConfigMaps, cm).ok());
  sync.Observe(store, "ns", "c", t0, delay);  // present at first sight: synced long ago
  EXPECT_EQ(*ConfigMapKey(sync.View("ns", "c", t0, delay), "k"), "v1");
  EXPECT_FALSE(sync.Pending(t0, delay));
  cm["data"]["k"] = "v2";
  ASSERT_TRUE(store.Update(kConfigMaps, cm).ok());
  TimePoint t1 = t0 + std::chrono::seconds(5);
  sync.Observe(store, "ns", "c", t1, delay);
  EXPECT_TRUE(sync.Pending(t1, delay));
  EXPECT_EQ(*ConfigMapKey(sync.View("ns", "c", t1 + std::chrono::milliseconds(59999), delay), "k"), "v1");
  EXPECT_EQ(*ConfigMapKey(sync.View("ns", "c", t1 + delay, delay), "k"), "v2");
  EXPECT_FALSE(sync.Pending(t1 + delay, delay));
  ASSERT_TRUE(store.Delete(kConfigMaps, "ns", "c").ok());
  TimePoint t2 = t1 + std::chrono::seconds(100);
  sync.Observe(store, "ns", "c", t2, delay);
  EXPECT_EQ(*ConfigMapKey(sync.View("ns", "c", t2, delay), "k"), "v2");
  EXPECT_TRUE(sync.View("ns", "c", t2 + delay, delay).is_null());
  EXPECT_EQ(ConfigMapKey(sync.View("ns", "c", t2 + delay, delay), "k"), nullptr);
}

TEST(ConfigMapSyncTest, ZeroDelayIsImmediate) {
  TimePoint t0(std::chrono::seconds(1000));
  Store store(100, [&] { return t0; }, 1);
  ConfigMapSync sync;
  sync.Observe(store, "ns", "c", t0, std::chrono::milliseconds(0));
  EXPECT_TRUE(sync.View("ns", "c", t0, std::chrono::milliseconds(0)).is_null());
  ASSERT_TRUE(store.Create(kConfigMaps, {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                         {"metadata", {{"name", "c"}, {"namespace", "ns"}}},
                                         {"data", {{"k", "v"}}}}).ok());
  sync.Observe(store, "ns", "c", t0, std::chrono::milliseconds(0));
  EXPECT_EQ(*ConfigMapKey(sync.View("ns", "c", t0, std::chrono::milliseconds(0)), "k"), "v");
}

}  // namespace
}  // namespace kubeon::kubesim
