#include "metrics/synthetic_history.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace kubeon::metrics {
namespace {

size_t CountLines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

TEST(SyntheticHistoryTest, DeterministicPerSeed) {
  SyntheticOptions o;
  o.series = 25;
  o.samples_per_series = 9;
  auto a = SyntheticHistoryText(o);
  auto b = SyntheticHistoryText(o);
  o.seed = 2;
  auto c = SyntheticHistoryText(o);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(*a, *c);
}

TEST(SyntheticHistoryTest, OpenMetricsHasOneLinePerSampleAndFamilyHeaders) {
  SyntheticOptions o;
  o.series = 23;  // 6 devices, device 1 a MIG slice: all five families present
  o.samples_per_series = 4;
  std::string text = *SyntheticHistoryText(o);
  size_t comments = 0;
  for (size_t pos = 0; (pos = text.find("\n#", pos)) != std::string::npos; ++pos) ++comments;
  EXPECT_EQ(text.rfind("# HELP ", 0), 0u);
  EXPECT_EQ(CountLines(text), 23u * 4 + 2 * 5 + 1);
  EXPECT_EQ(comments + 1, 2u * 5 + 1);  // + the first line
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  EXPECT_NE(text.find("GPU_I_PROFILE=\"1g.5gb\""), std::string::npos);
  EXPECT_NE(text.find("DCGM_FI_PROF_DRAM_ACTIVE{"), std::string::npos);
}

TEST(SyntheticHistoryTest, CsvHasOneRowPerDeviceAndTime) {
  SyntheticOptions o;
  o.series = 10;  // devices 0, 1, 2 (the last with two series)
  o.samples_per_series = 5;
  o.format = SyntheticOptions::Format::kCsv;
  std::string text = *SyntheticHistoryText(o);
  EXPECT_EQ(CountLines(text), 1u + 3 * 5);
  EXPECT_EQ(text.rfind("timestamp,", 0), 0u);
}

TEST(SyntheticHistoryTest, ExpectedCountsCoverEverySample) {
  SyntheticOptions o;
  o.series = 101;
  o.samples_per_series = 3;
  SyntheticCounts c = ExpectedCounts(o);
  EXPECT_EQ(c.samples + c.unattributed + c.ignored, 303u);
  EXPECT_GT(c.unattributed, 0u);
  EXPECT_GT(c.ignored, 0u);
}

TEST(SyntheticHistoryTest, RejectsEmptyShapesAndReportsSinkFailure) {
  SyntheticOptions o;
  o.series = 0;
  EXPECT_FALSE(SyntheticHistoryText(o).ok());
  o.series = 1;
  o.interval_seconds = 0;
  EXPECT_FALSE(SyntheticHistoryText(o).ok());
  o.interval_seconds = 30;
  Status s = WriteSyntheticHistory(o, [](std::string_view) { return false; });
  EXPECT_FALSE(s.ok());
}

}  // namespace
}  // namespace kubeon::metrics
