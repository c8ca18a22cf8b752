#include "metrics/memory_series.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace kubeon::metrics {
namespace {

TEST(DownsampleMax, KeepsEveryPeakAndAtMostMaxPoints) {
  std::vector<MemoryPoint> s;
  for (int i = 0; i < 1000; ++i) s.push_back({i * 1000LL, static_cast<double>(i % 10)});
  s[537].mib = 999;  // a single spike
  std::vector<MemoryPoint> d = DownsampleMax(s, 50);
  EXPECT_LE(d.size(), 50u);
  EXPECT_GE(d.size(), 45u);
  double max = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    max = std::max(max, d[i].mib);
    if (i) {
      EXPECT_LT(d[i - 1].unix_ms, d[i].unix_ms);
    }
  }
  EXPECT_EQ(max, 999);
  bool spike_at_its_time = false;
  for (const auto& p : d) spike_at_its_time |= p.unix_ms == 537000 && p.mib == 999;
  EXPECT_TRUE(spike_at_its_time);
  // Every other bucket of ten samples 0..9 keeps its 9.
  EXPECT_EQ(d.front().mib, 9);
}

TEST(DownsampleMax, ShortSeriesUnchanged) {
  std::vector<MemoryPoint> s = {{1, 5}, {2, 7}};
  EXPECT_EQ(DownsampleMax(s, 200), s);
  EXPECT_EQ(DownsampleMax(s, 1).size(), 1u);
  EXPECT_EQ(DownsampleMax(s, 1)[0].mib, 7);
  EXPECT_TRUE(DownsampleMax({}, 10).empty());
}

TEST(ReadMemorySamples, SelectedPodsMaxPerTimestampExportedLabelsWin) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("memory_series_test_" + std::to_string(::getpid()) + ".om")).string();
  {
    std::ofstream f(path);
    f << "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a-1\"} 100 1000\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a-2\"} 300 1000\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"b-1\"} 5000 1000\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"gpu-operator\",pod=\"dcgm\",exported_namespace=\"ml\",exported_pod=\"a-1\"} 250 1060\n"
         "DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"ml\",pod=\"a-1\"} 0.5 1120\n"
         "# EOF\n";
  }
  auto s = ReadMemorySamples({path}, {{"ml", "a-1"}, {"ml", "a-2"}});
  std::filesystem::remove(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0], (MemoryPoint{1000000, 300}));
  EXPECT_EQ((*s)[1], (MemoryPoint{1060000, 250}));
}

TEST(ReadMemorySamples, MissingFileNamesIt) {
  auto s = ReadMemorySamples({"/nonexistent/history.om"}, {{"ml", "a"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/nonexistent/history.om"), std::string::npos);
}

}  // namespace
}  // namespace kubeon::metrics
