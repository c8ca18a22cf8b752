// Tests for durations.h: the units, the bounds and the errors naming the flag.
#include "model/durations.h"

#include <string>

#include <gtest/gtest.h>

namespace kubeon::model {
namespace {

TEST(Durations, ParseDurationHours) {
  double h = 0;
  EXPECT_TRUE(ParseDurationHours("24h", &h));
  EXPECT_DOUBLE_EQ(h, 24);
  EXPECT_TRUE(ParseDurationHours("3d", &h));
  EXPECT_DOUBLE_EQ(h, 72);
  EXPECT_TRUE(ParseDurationHours("90m", &h));
  EXPECT_DOUBLE_EQ(h, 1.5);
  EXPECT_FALSE(ParseDurationHours("3", &h));
  EXPECT_FALSE(ParseDurationHours("h", &h));
  EXPECT_FALSE(ParseDurationHours("-1h", &h));
  for (const char* bad : {"nanh", "infd", "-infd", "NaNs", "1e400d", "99999999999d", "+5h", "0x10h"}) {
    EXPECT_FALSE(ParseDurationHours(bad, &h)) << bad;
  }
  EXPECT_TRUE(ParseDurationHours("3650d", &h));
  EXPECT_DOUBLE_EQ(h, kMaxDurationHours);
  EXPECT_FALSE(ParseDurationHours("3651d", &h));
}

TEST(Durations, FlagErrorsSayWhatIsWrong) {
  double h = 0;
  auto message = [&](const std::string& text, bool positive) {
    return ParseDurationFlag("--lookback", text, "14d, 36h or 2w", positive, &h).message();
  };
  EXPECT_EQ(message("99999999999d", true), "--lookback: \"99999999999d\" is too large (max 3650d)");
  EXPECT_EQ(message("1e400d", true), "--lookback: \"1e400d\" is too large (max 3650d)");
  EXPECT_EQ(message("nand", true), "--lookback: \"nand\" is not a duration like 14d, 36h or 2w");
  EXPECT_EQ(message("1e-400d", true), "--lookback: \"1e-400d\" is not a duration like 14d, 36h or 2w");
  EXPECT_EQ(message("0s", true), "--lookback: \"0s\" must be positive");
  EXPECT_EQ(message("0s", false), "");
  EXPECT_EQ(message("2w", true), "");
  EXPECT_DOUBLE_EQ(h, 336);
}

}  // namespace
}  // namespace kubeon::model
