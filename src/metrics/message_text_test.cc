#include "metrics/message_text.h"

#include <gtest/gtest.h>

#include <string>

namespace kubeon::metrics {
namespace {

TEST(MessageTextTest, ValidUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_FALSE(IsValidUtf8("\xFF"));
  EXPECT_FALSE(IsValidUtf8("\xC3"));              // truncated
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("ok\x80"));            // stray continuation byte
}

// ASCII is checked eight bytes at a time: a character or a bad byte at any
// offset of a long text, and a character split across an eight-byte step.
TEST(MessageTextTest, ValidUtf8AtEveryOffsetOfALongText) {
  for (size_t at = 0; at <= 20; ++at) {
    std::string ascii(24, 'a');
    EXPECT_TRUE(IsValidUtf8(ascii));
    std::string good = ascii;
    good.insert(at, "\xE2\x82\xAC");  // €
    EXPECT_TRUE(IsValidUtf8(good)) << at;
    std::string stray = ascii;
    stray[at] = '\x80';
    EXPECT_FALSE(IsValidUtf8(stray)) << at;
    std::string truncated = ascii.substr(0, at) + "\xE2\x82";
    EXPECT_FALSE(IsValidUtf8(truncated)) << at;
  }
}

TEST(MessageTextTest, EscapesInvalidBytesAndControlCharacters) {
  EXPECT_EQ(MessageText("a\xFF" "b\xC3", 100), "a\\xFFb\\xC3");
  EXPECT_EQ(MessageText("tab\there\nnl\x7F", 100), "tab?here?nl?");
  EXPECT_EQ(MessageText("caf\xC3\xA9", 100), "caf\xC3\xA9");
  EXPECT_EQ(MessageText("a\\xFF", 100), "a\\\\xFF");  // a literal backslash is doubled
  EXPECT_TRUE(IsValidUtf8(MessageText("\xED\xA0\x80\xF8\x88\x80\x80\x80", 100)));
}

TEST(MessageTextTest, CutsAtACharacterBoundary) {
  // "é" is two bytes: a cut after 4 bytes would split it.
  EXPECT_EQ(MessageText("abc\xC3\xA9xyz", 4), "abc...");
  EXPECT_EQ(MessageText("abc\xC3\xA9xyz", 5), "abc\xC3\xA9...");
  EXPECT_EQ(MessageText("abc", 3), "abc");
  EXPECT_EQ(MessageText("", 3), "");
  // Every cut of a mixed string is valid UTF-8.
  const std::string mixed = "\xE2\x82\xAC\xFF\xC3\xA9\x80z\xF0\x9F\x98\x80";
  for (size_t n = 0; n <= mixed.size(); ++n) EXPECT_TRUE(IsValidUtf8(MessageText(mixed, n))) << n;
}

}  // namespace
}  // namespace kubeon::metrics
