#include "metrics/byte_scan.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace kubeon::metrics::internal {
namespace {

const char* Naive(const char* p, const char* end, char a, char b) {
  while (p < end && *p != a && *p != b) ++p;
  return p;
}

TEST(ByteScanTest, ByteMaskIsExact) {
  // '-' (0x2D) right after ',' (0x2C) is where the classic has-zero trick
  // reports a false match.
  const char bytes[8] = {',', '-', 'a', ',', ',', '\x80', '\xAC', '-'};
  uint64_t w;
  std::memcpy(&w, bytes, 8);
  uint64_t m = ByteMask(w, ',');
  for (int i = 0; i < 8; ++i) {
    bool set = (m >> (i * 8 + 7)) & 1;
    EXPECT_EQ(set, bytes[i] == ',') << i;
  }
  EXPECT_EQ(m & ~0x8080808080808080ULL, 0u);
}

TEST(ByteScanTest, FindAny2MatchesAPlainLoop) {
  std::mt19937 rng(5);
  const std::string alphabet = "ab\",}\\-\x80\xAC";
  for (int trial = 0; trial < 2000; ++trial) {
    std::string s(rng() % 40, 'x');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    for (size_t from = 0; from <= s.size(); ++from) {
      const char* b = s.data() + from;
      const char* e = s.data() + s.size();
      ASSERT_EQ(FindAny2(b, e, '"', '}'), Naive(b, e, '"', '}')) << s << " from " << from;
      ASSERT_EQ(FindAny2(b, e, ',', ','), Naive(b, e, ',', ',')) << s << " from " << from;
    }
  }
}

}  // namespace
}  // namespace kubeon::metrics::internal
