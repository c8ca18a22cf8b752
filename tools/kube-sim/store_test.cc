// Tests for store.h: resourceVersion bookkeeping, optimistic concurrency,
// watches (history replay, selector transitions, 410 Expired).
#include "store.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

TimePoint Fixed() { return TimePoint(std::chrono::seconds(1714521600)); }

json Cm(const std::string& name, const std::string& value, json labels = json::object()) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "ns"}, {"labels", labels}}},
          {"data", {{"k", value}}}};
}

uint64_t Rv(const json& o) { return std::stoull(o["metadata"]["resourceVersion"].get<std::string>()); }

std::vector<WatchEvent> Drain(Watcher& w) {
  std::deque<WatchEvent> q;
  w.Pop(&q, std::chrono::milliseconds(0));
  return {q.begin(), q.end()};
}

class StoreTest : public ::testing::Test {
 protected:
  Store store{100, Fixed, 7};
};

TEST_F(StoreTest, CreateStampsMetadataAndBumpsVersion) {
  auto a = store.Create("configmaps", Cm("a", "1"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Rv(a.value()), 1u);
  EXPECT_EQ(a.value()["metadata"]["uid"].get<std::string>().size(), 36u);
  EXPECT_EQ(a.value()["metadata"]["creationTimestamp"], "2024-05-01T00:00:00Z");
  EXPECT_FALSE(a.value()["metadata"].contains("generation"));  // no spec
  json d = {{"metadata", {{"name", "d"}, {"namespace", "ns"}}}, {"spec", {{"replicas", 1}}}};
  auto dep = store.Create("apps/deployments", d);
  EXPECT_EQ(dep.value()["metadata"]["generation"], 1);
  EXPECT_EQ(store.ResourceVersion(), 2u);
  EXPECT_EQ(store.Create("configmaps", Cm("a", "2")).error().reason, "AlreadyExists");
  EXPECT_EQ(store.Create("configmaps", Cm("a", "2")).error().code, 409);
}

TEST_F(StoreTest, UpdateChecksResourceVersion) {
  json a = store.Create("configmaps", Cm("a", "1")).value();
  json stale = a;
  a["data"]["k"] = "2";
  auto u = store.Update("configmaps", a);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Rv(u.value()), 2u);
  EXPECT_EQ(u.value()["metadata"]["uid"], stale["metadata"]["uid"]);
  stale["data"]["k"] = "3";
  auto c = store.Update("configmaps", stale);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, 409);
  EXPECT_EQ(c.error().reason, "Conflict");
  EXPECT_NE(c.error().message.find("the object has been modified"), std::string::npos);
  stale["metadata"].erase("resourceVersion");  // unconditional update
  EXPECT_TRUE(store.Update("configmaps", stale).ok());
  EXPECT_EQ(store.Update("configmaps", Cm("missing", "x")).error().code, 404);
}

TEST_F(StoreTest, NoOpUpdateKeepsVersion) {
  json a = store.Create("configmaps", Cm("a", "1")).value();
  auto u = store.Update("configmaps", a);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Rv(u.value()), 1u);
  EXPECT_EQ(store.ResourceVersion(), 1u);
}

TEST_F(StoreTest, GenerationMovesOnlyWithSpec) {
  json d = {{"metadata", {{"name", "d"}, {"namespace", "ns"}}}, {"spec", {{"replicas", 1}}}};
  json o = store.Create("apps/deployments", d).value();
  o["metadata"]["labels"] = {{"a", "b"}};
  o["status"] = {{"replicas", 1}};
  o = store.Update("apps/deployments", o).value();
  EXPECT_EQ(o["metadata"]["generation"], 1);
  o["spec"]["replicas"] = 3;
  o = store.Update("apps/deployments", o).value();
  EXPECT_EQ(o["metadata"]["generation"], 2);
}

TEST_F(StoreTest, DeleteReturnsObjectAtNewVersion) {
  json a = store.Create("configmaps", Cm("a", "1")).value();
  EXPECT_EQ(store.Delete("configmaps", "ns", "a", "wrong-uid").error().code, 409);
  auto d = store.Delete("configmaps", "ns", "a", a["metadata"]["uid"]);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(Rv(d.value()), 2u);
  EXPECT_EQ(store.Get("configmaps", "ns", "a"), nullptr);
  EXPECT_EQ(store.Delete("configmaps", "ns", "a").error().code, 404);
}

TEST_F(StoreTest, ListOrderAndNamespaces) {
  for (const char* ns : {"b", "a", "a-b"}) {
    json c = Cm("x", "1");
    c["metadata"]["namespace"] = ns;
    ASSERT_TRUE(store.Create("configmaps", c).ok());
  }
  std::vector<std::string> keys;
  store.ForEach("configmaps", "", "", [&](const std::string& k, const json&) { keys.push_back(k); return true; });
  EXPECT_EQ(keys, (std::vector<std::string>{"a-b/x", "a/x", "b/x"}));
  EXPECT_EQ(store.List("configmaps", "a").size(), 1u);
  keys.clear();
  store.ForEach("configmaps", "", "a-b/x", [&](const std::string& k, const json&) { keys.push_back(k); return true; });
  EXPECT_EQ(keys, (std::vector<std::string>{"a/x", "b/x"}));
}

TEST_F(StoreTest, WatchFromVersionReplaysHistory) {
  json a = store.Create("configmaps", Cm("a", "1")).value();  // rv 1
  a["data"]["k"] = "2";
  store.Update("configmaps", a);                               // rv 2
  store.Create("configmaps", Cm("b", "1"));                    // rv 3
  auto w = store.Watch({"configmaps", "", {}, {}}, 1, 100);
  ASSERT_TRUE(w.ok());
  store.Delete("configmaps", "ns", "a");                       // rv 4
  auto events = Drain(*w.value());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "MODIFIED");
  EXPECT_EQ(events[0].rv, 2u);
  EXPECT_EQ(events[1].type, "ADDED");
  EXPECT_EQ(events[2].type, "DELETED");
  EXPECT_EQ(Rv(events[2].object), 4u);
}

TEST_F(StoreTest, WatchWithoutVersionStartsWithSyntheticAdds) {
  store.Create("configmaps", Cm("a", "1"));
  store.Create("configmaps", Cm("b", "1"));
  auto w = store.Watch({"configmaps", "ns", {}, {}}, std::nullopt, 100);
  ASSERT_TRUE(w.ok());
  auto events = Drain(*w.value());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "ADDED");
  EXPECT_EQ(events[0].object["metadata"]["name"], "a");
}

TEST_F(StoreTest, SelectorTransitionsBecomeAddedAndDeleted) {
  json a = store.Create("configmaps", Cm("a", "1", {{"app", "x"}})).value();
  WatchSpec spec{"configmaps", "", LabelSelector::Parse("app=x").value(), {}};
  auto w = store.Watch(spec, store.ResourceVersion(), 100);
  ASSERT_TRUE(w.ok());
  a["metadata"]["labels"]["app"] = "y";
  a = store.Update("configmaps", a).value();
  a["metadata"]["labels"]["app"] = "x";
  a = store.Update("configmaps", a).value();
  a["data"]["k"] = "9";
  store.Update("configmaps", a);
  store.Create("configmaps", Cm("other", "1", {{"app", "z"}}));
  auto events = Drain(*w.value());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "DELETED");
  EXPECT_EQ(events[1].type, "ADDED");
  EXPECT_EQ(events[2].type, "MODIFIED");
}

TEST(StoreHistoryTest, TooOldVersionIsExpired) {
  Store store(3, Fixed, 1);
  for (int i = 0; i < 6; ++i) store.Create("configmaps", Cm("c" + std::to_string(i), "v"));
  EXPECT_EQ(store.CompactedRevision(), 3u);
  auto old = store.Watch({"configmaps", "", {}, {}}, 2, 100);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.error().code, 410);
  EXPECT_EQ(old.error().reason, "Expired");
  auto ok = store.Watch({"configmaps", "", {}, {}}, 3, 100);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(Drain(*ok.value()).size(), 3u);
}

TEST(StoreHistoryTest, CompactForgetsEverything) {
  Store store(100, Fixed, 1);
  store.Restore("configmaps", Cm("a", "1"));
  store.Restore("configmaps", Cm("b", "1"));
  store.Compact();
  EXPECT_FALSE(store.Watch({"configmaps", "", {}, {}}, 1, 100).ok());
  EXPECT_TRUE(store.Watch({"configmaps", "", {}, {}}, 2, 100).ok());
}

TEST(StoreRestoreTest, KeepsIdentityAndOptionallyVersions) {
  Store store(100, Fixed, 1);
  json c = Cm("a", "1");
  c["metadata"]["uid"] = "given-uid";
  c["metadata"]["resourceVersion"] = "42";
  store.Restore("configmaps", c, /*keep_version=*/true);
  EXPECT_EQ(store.ResourceVersion(), 42u);
  EXPECT_EQ((*store.Get("configmaps", "ns", "a"))["metadata"]["uid"], "given-uid");
  store.Restore("configmaps", Cm("b", "1"));
  EXPECT_EQ(Rv(*store.Get("configmaps", "ns", "b")), 43u);
}

TEST(WatcherTest, OverflowClosesTheWatcher) {
  Store store(100, Fixed, 1);
  auto w = store.Watch({"configmaps", "", {}, {}}, 0, 2);
  ASSERT_TRUE(w.ok());
  for (int i = 0; i < 3; ++i) store.Create("configmaps", Cm("c" + std::to_string(i), "v"));
  EXPECT_TRUE(w.value()->overflowed());
  std::deque<WatchEvent> q;
  EXPECT_TRUE(w.value()->Pop(&q, std::chrono::milliseconds(0)));  // the queued two
  EXPECT_EQ(q.size(), 2u);
  q.clear();
  EXPECT_FALSE(w.value()->Pop(&q, std::chrono::milliseconds(0)));
}

}  // namespace
}  // namespace kubeon::kubesim
