#include "model/json_nesting.h"

#include <gtest/gtest.h>

#include <string>

namespace kubeon::model {
namespace {

constexpr size_t npos = std::string_view::npos;

TEST(JsonNestingTest, WithinTheCapIsNpos) {
  EXPECT_EQ(FindNestingBeyond("", 0), npos);
  EXPECT_EQ(FindNestingBeyond("42", 0), npos);
  EXPECT_EQ(FindNestingBeyond(R"({"data":{"result":[{"metric":{},"value":[1,"2"]}]}})", 5), npos);
  EXPECT_EQ(FindNestingBeyond("[[],[],[[]]]", 3), npos);
}

TEST(JsonNestingTest, NamesTheFirstBracketPastTheCap) {
  EXPECT_EQ(FindNestingBeyond(R"({"data":{"result":[{"metric":{},"value":[1,"2"]}]}})", 4), 29u);  // "metric":{
  EXPECT_EQ(FindNestingBeyond("[[],[],[[]]]", 2), 8u);
  EXPECT_EQ(FindNestingBeyond(std::string(64, '{'), 64), npos);
  EXPECT_EQ(FindNestingBeyond(std::string(65, '{'), 64), 64u);
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_EQ(FindNestingBeyond(deep, 64), 64u);
}

TEST(JsonNestingTest, SkipsStringsAndHonoursEscapes) {
  // Brackets inside strings, an escaped quote, an escaped backslash before a closing quote.
  EXPECT_EQ(FindNestingBeyond(R"(["[[[[{{{", "\"[[[", "\\", {}])", 2), npos);
  EXPECT_EQ(FindNestingBeyond(R"(["\\", [[]]])", 2), 8u);
  // An unterminated string ends the scan: the parser reports it.
  EXPECT_EQ(FindNestingBeyond(R"(["[[[[[[)", 1), npos);
}

TEST(JsonNestingTest, CountsTheLevelsTheTextSitsIn) {
  EXPECT_EQ(FindNestingBeyond("{}", 2, 2), 0u);
  EXPECT_EQ(FindNestingBeyond("{}", 3, 2), npos);
}

}  // namespace
}  // namespace kubeon::model
