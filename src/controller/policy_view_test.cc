#include "controller/policy_view.h"

#include <thread>

#include <gtest/gtest.h>

namespace kubeon::controller {
namespace {

TEST(PolicyViews, PutReplacesGetCopiesAllSorts) {
  PolicyViews views;
  PolicyView b;
  b.name = "b";
  b.error = "invalid";
  views.Put(b);
  PolicyView a;
  a.name = "a";
  a.planned_at = "2026-12-03T00:00:00Z";
  views.Put(a);
  b.error = "overlaps a";
  views.Put(b);
  std::vector<PolicyView> all = views.All();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "a");
  EXPECT_EQ(all[1].error, "overlaps a");
  views.Remove("a");
  EXPECT_FALSE(views.Get("a").has_value());
  EXPECT_TRUE(views.Get("b").has_value());
}

TEST(PolicyViews, ConcurrentReadersSeeWholeViews) {
  PolicyViews views;
  std::thread writer([&] {
    for (int i = 0; i < 2000; ++i) {
      PolicyView v;
      v.name = "p";
      v.planned_at = std::to_string(i);
      v.conflicts.assign(static_cast<size_t>(i % 7), std::to_string(i));
      views.Put(v);
    }
  });
  for (int i = 0; i < 2000; ++i) {
    if (auto v = views.Get("p")) {
      for (const auto& c : v->conflicts) ASSERT_EQ(c, v->planned_at);
    }
  }
  writer.join();
  EXPECT_FALSE(views.planned_once());
  views.set_planned_once(true);
  EXPECT_TRUE(views.planned_once());
}

}  // namespace
}  // namespace kubeon::controller
