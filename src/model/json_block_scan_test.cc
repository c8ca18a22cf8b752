#include "model/json_block_scan.h"

#include <gtest/gtest.h>

#include <ostream>
#include <random>
#include <string>
#include <string_view>

namespace kubeon::model {
namespace {

constexpr size_t npos = std::string_view::npos;

// Where a container value starting at text[0] ends, byte by byte, with the
// snapshot reader's rules (brackets of any kind count, strings skipped,
// backslashes escape inside strings only); npos when it does not end.
struct Outcome {
  size_t end = npos;
  size_t too_deep_at = npos;
  bool operator==(const Outcome&) const = default;
};

// One step of the byte scan at text[*pos] (a string or one byte); true when
// the scan is over (the value closed, or a string does not end).
bool ByteStep(std::string_view text, size_t* pos, size_t* depth, size_t max_depth, Outcome* out) {
  size_t& i = *pos;
  const char c = text[i];
  if (c == '"') {
    for (++i; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') ++i;
    }
    if (i >= text.size()) return true;
  } else if (c == '{' || c == '[') {
    if (++*depth > max_depth && out->too_deep_at == npos) out->too_deep_at = i;
  } else if ((c == '}' || c == ']') && --*depth == 0) {
    out->end = ++i;
    return true;
  }
  ++i;
  return false;
}

Outcome ByteScan(std::string_view text, size_t max_depth) {
  Outcome out;
  size_t depth = 0;
  for (size_t pos = 0; pos < text.size();) {
    if (ByteStep(text, &pos, &depth, max_depth, &out)) break;
  }
  return out;
}

// ScanJsonBlocks or one of the two scans it chooses from.
using ScanFn = JsonBlockScan (*)(const char*, size_t, size_t*, size_t, size_t*);

// The reader's loop: blocks where `scan_blocks` may take them, one byte
// scan step otherwise.
Outcome MixedScan(ScanFn scan_blocks, std::string_view text, size_t max_depth) {
  Outcome out;
  size_t depth = 0, pos = 0, scalar_until = 0;
  while (pos < text.size()) {
    if (depth > 0 && pos >= scalar_until && text.size() - pos >= kJsonBlock) {
      size_t deep = npos;
      const JsonBlockScan scan = scan_blocks(text.data() + pos, text.size() - pos, &depth, max_depth,
                                             out.too_deep_at == npos ? &deep : nullptr);
      if (deep != npos) out.too_deep_at = pos + deep;
      if (scan.stop == JsonBlockScan::kBackslash) scalar_until = pos + scan.scalar_until;
      pos += scan.offset;
      if (scan.stop == JsonBlockScan::kClosed) {
        out.end = pos;
        return out;
      }
      if (pos >= text.size()) break;
    }
    if (ByteStep(text, &pos, &depth, max_depth, &out)) break;
  }
  return out;
}

// Every test runs on the portable scan, on the AVX2 one (skipped on a CPU or
// build without it) and on ScanJsonBlocks, which chooses one of the two.
struct Scan {
  const char* name;
  ScanFn fn;
};
void PrintTo(const Scan& scan, std::ostream* os) { *os << scan.name; }

class JsonBlockScanTest : public ::testing::TestWithParam<Scan> {
 protected:
  void SetUp() override {
    if (GetParam().fn == &ScanJsonBlocksAvx2 && !Avx2BlockScanAvailable()) {
      GTEST_SKIP() << "no AVX2 scan on this CPU or build";
    }
  }
  JsonBlockScan ScanJsonBlocks(const char* text, size_t size, size_t* depth, size_t max_depth, size_t* too_deep_at) {
    return GetParam().fn(text, size, depth, max_depth, too_deep_at);
  }
  Outcome MixedScan(std::string_view text, size_t max_depth) { return model::MixedScan(GetParam().fn, text, max_depth); }
};

INSTANTIATE_TEST_SUITE_P(Isa, JsonBlockScanTest,
                         ::testing::Values(Scan{"portable", &ScanJsonBlocksPortable}, Scan{"avx2", &ScanJsonBlocksAvx2},
                                           Scan{"chosen", &model::ScanJsonBlocks}),
                         [](const ::testing::TestParamInfo<Scan>& info) { return std::string(info.param.name); });

TEST_P(JsonBlockScanTest, ClosesWhereTheBracketsBalance) {
  // The value closes at byte 99 of 200; brackets and quotes inside strings do not count.
  std::string text = "{\"a\": \"}]}]\", \"b\": [1, {\"c\": \"{{{\"}]";
  text += std::string(99 - text.size(), ' ') + "}" + std::string(100, ' ');
  size_t depth = 1;
  const JsonBlockScan scan = ScanJsonBlocks(text.data() + 1, text.size() - 1, &depth, 0, nullptr);
  EXPECT_EQ(scan.stop, JsonBlockScan::kClosed);
  EXPECT_EQ(scan.offset, 99u);
  EXPECT_EQ(depth, 0u);
}

TEST_P(JsonBlockScanTest, StopsShortOfAPartialBlockOutsideStrings) {
  const std::string text = std::string(64, ' ') + "[[" + std::string(62, ' ') + "]]";  // 130 bytes
  size_t depth = 1;
  const JsonBlockScan scan = ScanJsonBlocks(text.data(), text.size(), &depth, 0, nullptr);
  EXPECT_EQ(scan.stop, JsonBlockScan::kShort);
  EXPECT_EQ(scan.offset, 128u);
  EXPECT_EQ(depth, 3u);
}

TEST_P(JsonBlockScanTest, ResumesAtTheOpeningQuoteOfAStringAcrossTheEnd) {
  // A string opens at byte 100 and is still open after the second block.
  const std::string text = std::string(100, ' ') + "\"" + std::string(40, 'x');
  size_t depth = 2;
  const JsonBlockScan scan = ScanJsonBlocks(text.data(), text.size(), &depth, 0, nullptr);
  EXPECT_EQ(scan.stop, JsonBlockScan::kShort);
  EXPECT_EQ(scan.offset, 100u);
  EXPECT_EQ(depth, 2u);
}

TEST_P(JsonBlockScanTest, LeavesABlockWithABackslashToTheByteScan) {
  // A string opens at 60; its block (64..127) holds an escape.
  const std::string text = std::string(60, ' ') + "\"abcd" + std::string(30, 'y') + "\\\"" + std::string(100, ' ');
  size_t depth = 1;
  const JsonBlockScan scan = ScanJsonBlocks(text.data(), text.size(), &depth, 0, nullptr);
  EXPECT_EQ(scan.stop, JsonBlockScan::kBackslash);
  EXPECT_EQ(scan.offset, 60u);
  EXPECT_EQ(scan.scalar_until, 128u);
}

TEST_P(JsonBlockScanTest, NamesTheFirstBracketPastTheCap) {
  std::string text = std::string(70, ' ') + "[[[[" + std::string(60, ' ') + "]]]]";
  size_t depth = 1, deep = npos;
  ScanJsonBlocks(text.data(), text.size(), &depth, 3, &deep);
  EXPECT_EQ(deep, 72u);  // the third '[' makes depth 4
  size_t depth2 = 1, already = 5;
  ScanJsonBlocks(text.data(), text.size(), &depth2, 3, &already);
  EXPECT_EQ(already, 5u) << "an earlier finding is kept";
}

// Random texts of brackets, quotes, backslashes and fillers: the reader's
// mixed scan ends where the byte scan ends and finds the same deep bracket.
TEST_P(JsonBlockScanTest, MixedScanIsTheByteScan) {
  std::mt19937 rng(20261205);
  const std::string alphabets[] = {"{}[]\" a:,", "{{[[]]}}\"  abcdefgh", "{}\"\\ ab", std::string("{}[]\" ") + '\0' + "\xc3\xa9"};
  for (int round = 0; round < 20000; ++round) {
    const std::string& alphabet = alphabets[round % 4];
    const size_t length = 1 + rng() % 600;
    std::string text = "{";
    for (size_t i = 1; i < length; ++i) {
      // Mostly filler, so values run over several blocks.
      const bool filler = rng() % 4 != 0;
      text += filler ? alphabet[alphabet.size() - 1 - rng() % 3] : alphabet[rng() % alphabet.size()];
    }
    const size_t max_depth = rng() % 8;
    ASSERT_EQ(MixedScan(text, max_depth), ByteScan(text, max_depth)) << "round " << round << ": " << text;
  }
}

TEST_P(JsonBlockScanTest, MixedScanOnIndentedJson) {
  std::string text = "{\n  \"items\": [\n";
  for (int i = 0; i < 300; ++i) {
    text += "    {\"metadata\": {\"name\": \"pod-" + std::to_string(i) + "\", \"labels\": {\"app\": \"a[{\"}},\n";
    text += "     \"note\": \"escaped \\\" quote and \\\\\"}" + std::string(i % 7 == 0 ? "" : ",") + "\n";
    if (i % 7 == 0 && i < 299) text += "   ,";
  }
  text += "  ]\n}\n";
  for (size_t cap : {2u, 3u, 4u, 64u}) {
    const Outcome byte = ByteScan(text, cap);
    ASSERT_EQ(byte.end, text.size() - 1);
    EXPECT_EQ(MixedScan(text, cap), byte) << "cap " << cap;
  }
}

}  // namespace
}  // namespace kubeon::model
