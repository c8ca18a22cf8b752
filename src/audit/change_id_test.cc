// Tests for change_id.h: exactly 8 lower-case hex digits; everything that
// could reach another path, query or object is refused with the id shown
// escaped.
#include "audit/change_id.h"

#include <gtest/gtest.h>

namespace kubeon::audit {
namespace {

TEST(ChangeId, EightLowerCaseHexDigits) {
  EXPECT_TRUE(IsChangeId("af1c4ed0"));
  EXPECT_TRUE(IsChangeId("00000000"));
  for (const char* bad : {"", "af1c4ed", "af1c4ed00", "AF1C4ED0", "af1c4edg", "af1c4ed0?dryRun=All", "af1c4ed0#x",
                          "af1c4ed0/status", "../../x", "af1c 4ed", "af1c4e\n0"}) {
    EXPECT_FALSE(IsChangeId(bad)) << bad;
    const Status s = CheckChangeId(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalid) << bad;
  }
  EXPECT_TRUE(CheckChangeId("af1c4ed0").ok());
}

TEST(ChangeId, TheMessageShowsTheIdEscaped) {
  EXPECT_EQ(CheckChangeId("af1c4ed0?dryRun=All").message(),
            "change id \"af1c4ed0?dryRun=All\" is not 8 hexadecimal digits (kubeon-gpu changes lists them)");
  EXPECT_EQ(CheckChangeId("a\x1b[2Jb").message().find('\x1b'), std::string::npos);
  EXPECT_LT(CheckChangeId(std::string(10000, 'z')).message().size(), 200u);
}

}  // namespace
}  // namespace kubeon::audit
