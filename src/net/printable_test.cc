// Tests for printable.h: control characters, ANSI escapes, C1 controls and
// invalid UTF-8 are escaped, printable UTF-8 is kept.
#include "net/printable.h"

#include <gtest/gtest.h>

namespace kubeon::net {
namespace {

TEST(EscapeControl, AnsiEscapesAndControlsBecomeHex) {
  EXPECT_EQ(EscapeControl("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(EscapeControl(std::string("a\0b\r\t\x7f", 6)), "a\\x00b\\x0d\\x09\\x7f");
  EXPECT_EQ(EscapeControl("two\nlines"), "two\\x0alines");
  EXPECT_EQ(EscapeControl("two\nlines", /*keep_newlines=*/true), "two\nlines");
}

TEST(EscapeControl, PrintableUtf8IsKeptC1AndInvalidBytesAreEscaped) {
  EXPECT_EQ(EscapeControl("gpu-pool → node-ü 日本 😀"), "gpu-pool → node-ü 日本 😀");
  EXPECT_EQ(EscapeControl("\xc2\x9b" "31m"), "\\xc2\\x9b31m");  // C1 CSI in UTF-8
  EXPECT_EQ(EscapeControl("\x9b" "31m"), "\\x9b31m");           // raw 8-bit CSI
  EXPECT_EQ(EscapeControl("\xff\xc3"), "\\xff\\xc3");           // invalid, truncated
  EXPECT_EQ(EscapeControl("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");  // overlong
  EXPECT_EQ(EscapeControl("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
}

TEST(EscapeControl, ResultHasNoControlsAndIsStable) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  const std::string once = EscapeControl(all);
  for (unsigned char c : once) EXPECT_TRUE(c >= 0x20 && c != 0x7f && c < 0x80) << int(c);
  EXPECT_EQ(EscapeControl(once), once);
}

}  // namespace
}  // namespace kubeon::net
