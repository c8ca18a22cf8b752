#include "metrics/repeat_runs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "metrics/sample_parse.h"

namespace kubeon::metrics::internal {
namespace {

constexpr size_t kMax = 1 << 20;

std::string Describe(std::string_view chunk, const RepeatRuns& r) {
  std::string out = "region " + std::to_string(r.region_begin) + ".." + std::to_string(r.region_end);
  for (const RepeatRuns::Run& run : r.runs) {
    out += "; run " + std::to_string(run.begin) + ".." + std::to_string(run.end) + " head " +
           std::to_string(run.head) + " [";
    for (uint32_t k = 0; k < run.count; ++k) {
      const RepeatRuns::Sample& s = r.samples[run.first + k];
      out += (k ? " " : "") + std::to_string(s.value) + "@" + std::to_string(s.ts_ms);
    }
    out += "]";
  }
  (void)chunk;
  return out;
}

RepeatRuns Find(std::string_view chunk, bool at_line_start = true, size_t max_line = kMax) {
  RepeatRuns r;
  r.runs.push_back({});  // overwritten
  FindRepeatRuns(chunk, at_line_start, max_line, &r);
  return r;
}

TEST(RepeatRunsTest, RegionIsTheChunksWholeLines) {
  EXPECT_EQ(Describe("", Find("")), "region 0..0");
  EXPECT_EQ(Describe("", Find("no newline")), "region 0..0");
  EXPECT_EQ(Describe("", Find("no newline", false)), "region 0..0");
  EXPECT_EQ(Describe("", Find("a 1 2\nb 1 2\npartial")), "region 0..12");
  EXPECT_EQ(Describe("", Find("tail\na 1 2\nb", false)), "region 5..11");
  EXPECT_EQ(Describe("", Find("tail\n", false)), "region 0..0");
  RepeatRuns r = Find("m{a=\"1\"} 1 2\nm{a=\"1\"} 3 4\n");
  EXPECT_EQ(r.runs.size(), 1u);
  r.Clear();
  EXPECT_EQ(Describe("", r), "region 0..0");
  EXPECT_TRUE(r.samples.empty());
}

TEST(RepeatRunsTest, LinesRepeatingTheLineBeforeUpToTheValueAreRuns) {
  const std::string a = "m{a=\"1\"}";  // head 8
  const std::string b = "m{a=\"2\"}";
  const std::string text = a + " 1 1793527200\n" +  // 0..22: the line repeated
                           a + " 2 1793527230\n" +  // 22..68: a run of two
                           a + " 3.5 1793527260\n" +
                           b + " 4 1793527200\n" +  // another series: not a run, a new head
                           b + " 5 1793527230\n" +  // run
                           b + " 1e3 1793527260\n" +  // exponent: not in a run, no head
                           b + " 6 1793527290\n" +    // so not a run either
                           b + " 7 1793527320\n";     // run again
  EXPECT_EQ(Describe(text, Find(text)),
            "region 0.." + std::to_string(text.size()) +
                "; run 22..68 head 8 [2.000000@1793527230000 3.500000@1793527260000]"
                "; run 90..112 head 8 [5.000000@1793527230000]"
                "; run 158..180 head 8 [7.000000@1793527320000]");
}

TEST(RepeatRunsTest, OtherEndingsBreakRuns) {
  const std::string a = "m{a=\"1\"}";
  // Each line after the first breaks the run, and what it repeats.
  for (const std::string& other : {a + "  2 1793527230\n",              // two blanks
                                   a + " 2 1793527230 # {} 1\n",        // exemplar
                                   a + " 2 1793527230 \n",              // trailing blank
                                   a + "\t2 1793527230\n",              // tab
                                   a + " -2 1793527230\n",              // sign
                                   a + " 2 99999999999999\n",           // time beyond 11 digits
                                   std::string("m{a=\"2\"} 2 1793527230\n"),  // other labels
                                   std::string("n{a=\"1\"} 2 1793527230\n"),  // other metric
                                   a + "x 2 1793527230\n",              // no blank after the head
                                   std::string("# comment\n"), std::string("\n")}) {
    const std::string text = a + " 1 1793527200\n" + other + a + " 3 1793527260\n";
    RepeatRuns r = Find(text);
    for (const RepeatRuns::Run& run : r.runs) {
      EXPECT_GE(run.begin, text.size() - (a.size() + 15)) << other;  // only the last line may repeat `other`
    }
  }
}

TEST(RepeatRunsTest, CrlfNoLabelsAndLongLines) {
  // CRLF: ReadSimpleSampleEnd reads "\r\n" endings, and the head of a CRLF line is found.
  RepeatRuns r = Find("m{a=\"1\"} 1 1793527200\r\nm{a=\"1\"} 2 1793527230\r\nm{a=\"1\"} 3 1793527260\n");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].count, 2u);
  // No label set: the head is the name.
  r = Find("name 1 1793527200\nname 2 1793527230\n");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].head, 4u);
  // A line that is only " value time" gives no head.
  EXPECT_TRUE(Find(" 1 1793527200\n 1 1793527200\n").runs.empty());
  // Lines longer than max_line_bytes are never in a run, nor repeated.
  const std::string line = "m{a=\"1\"} 1 1793527200\n";
  EXPECT_EQ(Find(line + line + line, true, line.size() - 1).runs.size(), 1u);
  EXPECT_TRUE(Find(line + line + line, true, line.size() - 2).runs.empty());
}

// On random lines built from a few heads and endings, every run keeps the
// contract: the line before has the same head bytes, then ' ', and the
// sample is what ReadSimpleSampleEnd reads; runs are ordered, disjoint,
// inside the region and not at its start.
TEST(RepeatRunsTest, RandomLinesKeepTheContract) {
  const char* heads[] = {"m{a=\"1\"}", "m{a=\"1\"} ", "m{a=\"12\"}", "m", "m{a=\"1 2\"}", "", "  m{a=\"1\"}"};
  const char* ends[] = {" 1 1793527200", " 1.25 1793527200", " 1 1793527200.5", " 1e2 1793527200", " x 1",
                        " 1 1793527200 # {} 1", " 1", " 12345678901234567 1793527200", "", " 1 1793527200\r"};
  std::mt19937 rng(7);
  size_t lines_in_runs = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string text;
    const int lines = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < lines; ++i) {
      text += heads[rng() % (rng() % 3 == 0 ? std::size(heads) : 2)];
      text += ends[rng() % (rng() % 3 == 0 ? std::size(ends) : 2)];
      text += '\n';
    }
    const size_t cut = rng() % (text.size() + 1);
    const std::string_view chunk = std::string_view(text).substr(cut);
    const bool at_line_start = cut == 0 || text[cut - 1] == '\n';
    RepeatRuns r = Find(chunk, at_line_start);
    size_t last_end = r.region_begin;
    for (const RepeatRuns::Run& run : r.runs) {
      ASSERT_GT(run.begin, last_end) << text;  // a line not in a run comes before
      ASSERT_GE(run.count, 1u);
      ASSERT_LE(run.end, r.region_end);
      size_t p = run.begin;
      for (uint32_t k = 0; k < run.count; ++k) {
        const size_t prev = chunk.rfind('\n', p - 2) == std::string_view::npos ? 0 : chunk.rfind('\n', p - 2) + 1;
        ASSERT_EQ(chunk.substr(prev, run.head), chunk.substr(p, run.head)) << text;
        ASSERT_EQ(chunk[p + run.head], ' ');
        double value = 0;
        int64_t ts = 0;
        const char* nl = ReadSimpleSampleEnd(chunk.data() + p + run.head, chunk.data() + chunk.size(), &value, &ts);
        ASSERT_NE(nl, nullptr) << text;
        EXPECT_EQ(value, r.samples[run.first + k].value);
        EXPECT_EQ(ts, r.samples[run.first + k].ts_ms);
        p = static_cast<size_t>(nl - chunk.data()) + 1;
        ++lines_in_runs;
      }
      ASSERT_EQ(p, run.end);
      last_end = run.end;
    }
  }
  EXPECT_GT(lines_in_runs, 300u);
}

}  // namespace
}  // namespace kubeon::metrics::internal
