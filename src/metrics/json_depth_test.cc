#include "metrics/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace kubeon::metrics {
namespace {

TEST(JsonDepthTest, CountsNestingOutsideStrings) {
  EXPECT_EQ(JsonNestingDepth("", 10), 0u);
  EXPECT_EQ(JsonNestingDepth("42", 10), 0u);
  EXPECT_EQ(JsonNestingDepth(R"({"data":{"result":[{"metric":{},"value":[1,"2"]}]}})", 10), 5u);
  EXPECT_EQ(JsonNestingDepth(R"(["[[[[{{{", "\"[[[", {}])", 10), 2u);  // brackets in strings, escaped quote
  EXPECT_EQ(JsonNestingDepth("[[],[],[[]]]", 10), 3u);
}

TEST(JsonDepthTest, StopsPastTheLimit) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_EQ(JsonNestingDepth(deep, kMaxJsonDepth), kMaxJsonDepth + 1);
  EXPECT_EQ(JsonNestingDepth(std::string(64, '{'), 64), 64u);
  EXPECT_EQ(JsonNestingDepth(std::string(65, '{'), 64), 65u);
}

}  // namespace
}  // namespace kubeon::metrics
