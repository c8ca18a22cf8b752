#include "metrics/line_splitter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace kubeon::metrics::internal {
namespace {

struct Got {
  std::string text;
  uint64_t number;
  bool too_long;
  bool operator==(const Got& o) const {
    return text == o.text && number == o.number && too_long == o.too_long;
  }
};

std::vector<Got> Split(std::string_view input, size_t chunk, size_t max = 1 << 20) {
  LineSplitter s(max);
  std::vector<Got> got;
  auto fn = [&got](std::string_view line, uint64_t n, bool too_long) {
    got.push_back({std::string(line), n, too_long});
  };
  if (chunk == 0) chunk = input.size() + 1;
  for (size_t i = 0; i < input.size(); i += chunk) s.Feed(input.substr(i, chunk), fn);
  s.Finish(fn);
  return got;
}

TEST(LineSplitterTest, SplitsAndNumbersPhysicalLines) {
  auto got = Split("a\n\nbc\r\nlast", 0);
  std::vector<Got> want = {{"a", 1, false}, {"", 2, false}, {"bc", 3, false}, {"last", 4, false}};
  EXPECT_EQ(got, want);
}

TEST(LineSplitterTest, TrailingNewlineMakesNoExtraLine) {
  EXPECT_EQ(Split("x\ny\n", 0).size(), 2u);
  EXPECT_TRUE(Split("", 0).empty());
}

TEST(LineSplitterTest, AnyChunkSizeGivesTheSameLines) {
  std::string input = "first line\nsecond, longer line\r\n\n\nfifth\nno newline at end";
  auto whole = Split(input, 0);
  for (size_t chunk = 1; chunk <= input.size(); ++chunk) {
    EXPECT_EQ(Split(input, chunk), whole) << "chunk " << chunk;
  }
}

TEST(LineSplitterTest, OverlongLinesAreTruncatedAndFlagged) {
  std::string input = "short\n" + std::string(50, 'x') + "\nafter\n" + std::string(30, 'y');
  for (size_t chunk : {0, 1, 7}) {
    auto got = Split(input, chunk, 20);
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0], (Got{"short", 1, false}));
    EXPECT_EQ(got[1], (Got{std::string(20, 'x'), 2, true}));
    EXPECT_EQ(got[2], (Got{"after", 3, false}));
    EXPECT_EQ(got[3], (Got{std::string(20, 'y'), 4, true}));
  }
}

// The fast path: a handler that takes the lines starting with 'x' (and
// ending inside the chunk) leaves the others to fn; together they receive
// every line with its number, whatever the chunk size, as Feed(chunk, fn)
// gives them.
TEST(LineSplitterTest, FastHandlerTakesTheLinesItKnowsWithTheirNumbers) {
  const std::string input = "x1\nplain\nx2 longer\r\n\nxx\n" + std::string(30, 'y') + "\nx3 last";
  const std::vector<Got> want = Split(input, 0, 20);
  for (size_t chunk = 1; chunk <= input.size() + 1; ++chunk) {
    LineSplitter s(20);
    std::vector<Got> got;
    size_t fast = 0;
    auto handler = [&](const char* p, const char* end, uint64_t n) -> const char* {
      if (*p != 'x') return nullptr;
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) return nullptr;
      std::string_view line(p, static_cast<size_t>(nl - p));
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      got.push_back({std::string(line), n, false});
      ++fast;
      return nl;
    };
    auto fn = [&got](std::string_view line, uint64_t n, bool too_long) {
      got.push_back({std::string(line), n, too_long});
    };
    for (size_t i = 0; i < input.size(); i += chunk) s.Feed(std::string_view(input).substr(i, chunk), handler, fn);
    s.Finish(fn);
    EXPECT_EQ(got, want) << "chunk " << chunk;
    // Whole lines inside one chunk go to the handler: the three with an
    // 'x' and a '\n' when the input comes at once ("x3 last" has no '\n':
    // Finish delivers it to fn).
    if (chunk > input.size()) {
      EXPECT_EQ(fast, 3u);
    }
  }
}

}  // namespace
}  // namespace kubeon::metrics::internal
