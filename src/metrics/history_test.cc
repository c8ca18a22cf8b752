#include "metrics/history.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "metrics/history_testutil.h"
#include "metrics/synthetic_history.h"

namespace kubeon::metrics {
namespace {

using testing::Describe;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/kubeon-metrics-test-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::string path_;
};

PodUsage UsageWithCompute(const std::vector<double>& gr, const std::vector<double>& util) {
  PodUsage u;
  for (double x : gr) u.compute.Add(x);
  for (double x : util) u.gpu_util.Add(x);
  u.samples = gr.size() + util.size();
  return u;
}

TEST(AggregateTest, PercentileWithinOneBinOfExactSortOverPods) {
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> dist(-1.5, 0.6);
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<PodUsage> pods(1 + trial % 4);
    std::vector<double> all;
    for (PodUsage& p : pods) {
      int n = 50 + static_cast<int>(rng() % 3000);
      for (int i = 0; i < n; ++i) {
        double x = std::min(1.0, dist(rng));
        p.compute.Add(x);
        all.push_back(x);
      }
      p.samples = n;
    }
    std::sort(all.begin(), all.end());
    std::vector<const PodUsage*> ptrs;
    for (const PodUsage& p : pods) ptrs.push_back(&p);
    // 0.99 = 99/100: exact rank ceil(99 n / 100), computed in integers.
    uint64_t rank = (99 * all.size() + 99) / 100;
    double exact = all[rank - 1];
    WorkloadUsage w = Aggregate(ptrs, 0.99);
    EXPECT_TRUE(w.has_compute);
    EXPECT_EQ(w.compute_metric, kGrEngineActiveMetric);
    EXPECT_GE(w.peak_compute, exact);
    EXPECT_LE(w.peak_compute, exact + ComputeHistogram::kBinWidth + 1e-12);
    EXPECT_EQ(w.samples, all.size());
  }
}

TEST(AggregateTest, GpuUtilIsTheFallbackOnlyWhenNoPodHasGrEngineActive) {
  PodUsage util_only = UsageWithCompute({}, {0.3, 0.8});
  PodUsage util_only2 = UsageWithCompute({}, {0.6});
  WorkloadUsage w = Aggregate({&util_only, &util_only2}, 1.0);
  EXPECT_TRUE(w.has_compute);
  EXPECT_EQ(w.compute_metric, kGpuUtilMetric);
  EXPECT_DOUBLE_EQ(w.peak_compute, 0.8);

  PodUsage gr = UsageWithCompute({0.2}, {0.9});
  w = Aggregate({&util_only, &gr}, 1.0);
  EXPECT_EQ(w.compute_metric, kGrEngineActiveMetric);
  EXPECT_DOUBLE_EQ(w.peak_compute, 0.2);

  PodUsage none;
  none.peak_memory_mib = 100;
  w = Aggregate({&none}, 0.99);
  EXPECT_FALSE(w.has_compute);
  EXPECT_EQ(w.compute_metric, "");
  EXPECT_TRUE(w.has_memory);
}

TEST(AggregateTest, MemorySpanCountsAndMigProfile) {
  PodUsage a, b, c;
  a.peak_memory_mib = 4000;
  a.first_ts_ms = 1000;
  a.last_ts_ms = 3600000 + 1000;
  a.gaps.AddSpan(a.last_ts_ms - a.first_ts_ms);
  a.samples = 10;
  a.bad_samples = 1;
  a.mig_profile = "1g.5gb";
  b.peak_memory_mib = 9000;
  b.first_ts_ms = 1800000;
  b.last_ts_ms = 3 * 3600000;
  b.gaps.AddSpan(b.last_ts_ms - b.first_ts_ms);
  b.samples = 5;
  b.mig_profile = "1g.5gb";
  c.bad_samples = 4;  // only bad samples: no span, no memory
  WorkloadUsage w = Aggregate({&a, &b, &c}, 0.99);
  EXPECT_TRUE(w.has_memory);
  EXPECT_EQ(w.peak_memory_mib, 9000);
  EXPECT_DOUBLE_EQ(w.history_hours, (3 * 3600000 - 1000) / 3.6e6);  // the union of the pods' coverage
  EXPECT_EQ(w.samples, 15u);
  EXPECT_EQ(w.bad_samples, 5u);
  EXPECT_EQ(w.mig_profile, "1g.5gb");
  b.mig_profile = "2g.10gb";
  EXPECT_EQ(Aggregate({&a, &b}, 0.99).mig_profile, "1g.5gb,2g.10gb");
  WorkloadUsage empty = Aggregate({&c}, 0.99);
  EXPECT_FALSE(empty.has_memory);
  EXPECT_EQ(empty.peak_memory_mib, -1);
  EXPECT_EQ(empty.history_hours, 0);
}

// Issue 14: one stray sample (timestamp 1, the year 2030) stretched a
// workload's history to years and defeated --min-history; far-future
// timestamps were accepted.  Both readers now refuse samples after the time
// of reading (+ kMaxClockSkewMs) and measure coverage.
TEST(AggregateTest, StrayTimestampsNeitherStretchHistoryNorPassInTheFuture) {
  const int64_t base = 1790000000;  // 2026-09-21
  IngestOptions options;
  options.now_ms = (base + 10 * 3600) * 1000;
  std::string om, csv = "timestamp,namespace,pod,DCGM_FI_DEV_FB_USED\n";
  auto sample = [&](int64_t ts, int mib) {
    om += "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a\"} " + std::to_string(mib) + " " + std::to_string(ts) + "\n";
    csv += std::to_string(ts) + ",ml,a," + std::to_string(mib) + "\n";
  };
  sample(1, 100);                          // 1970
  for (int i = 0; i < 6; ++i) sample(base + i * 3600, 1000 + i);  // 5 hours of real data
  sample(base - 30 * 86400, 100);          // a month-old leftover
  sample(base + 10 * 3600 + 299, 1500);    // within the clock skew allowance
  sample(1893456000, 9000);                // 2030: in the future
  for (bool is_csv : {false, true}) {
    auto h = is_csv ? testing::ReadCsv(csv, 0, options) : testing::ReadOm(om, 0, options);
    ASSERT_TRUE(h.ok()) << h.status().message();
    ASSERT_EQ(h->stats.bad_lines, 1u) << is_csv;
    EXPECT_EQ(h->stats.first_bad_line_numbers[0], is_csv ? 11u : 10u);
    EXPECT_NE(h->stats.first_bad_reasons[0].find("timestamp is in the future"), std::string::npos)
        << h->stats.first_bad_reasons[0];
    const PodUsage& u = h->pods.at(PodKey{"ml", "a"});
    EXPECT_EQ(u.bad_samples, 1u);  // the planner does not size the pod on it
    EXPECT_EQ(u.peak_memory_mib, 1500);
    WorkloadUsage w = Aggregate({&u}, 0.99);
    // Five hours of data, the sample 5 h later is a hole, nothing from 1970.
    EXPECT_DOUBLE_EQ(w.history_hours, 5.0) << is_csv;
    EXPECT_EQ(u.first_ts_ms, 1000);  // the span is still reported as read
  }
}

// Issue 14: GR_ENGINE_ACTIVE exported in percent was clamped to 1.0, so
// every workload looked busy, without a word.  The scale is now detected per
// pod (a sample above kRatioPercentThreshold), converted, and warned about.
TEST(AggregateTest, GrEngineActiveInPercentIsDetectedConvertedAndWarned) {
  std::string om;
  auto sample = [&](const char* pod, const char* value, int i) {
    om += std::string("DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"ml\",pod=\"") + pod + "\"} " + value + " " +
          std::to_string(1790000000 + 30 * i) + "\n";
  };
  // Percent: the first samples look like ratios until 20 comes.
  const char* percent[] = {"0.5", "1", "20", "35", "10", "0"};
  const char* ratio[] = {"0.5", "0.9", "1.0000001", "0.2", "0.35", "0"};
  for (int i = 0; i < 6; ++i) {
    sample("pct", percent[i], i);
    sample("ratio", ratio[i], i);
  }
  auto h = testing::ReadOm(om);
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PodUsage& pct = h->pods.at(PodKey{"ml", "pct"});
  const PodUsage& rat = h->pods.at(PodKey{"ml", "ratio"});
  EXPECT_TRUE(pct.compute_in_percent);
  EXPECT_FALSE(rat.compute_in_percent);
  const double p100 = Aggregate({&pct}, 1.0).peak_compute;
  EXPECT_GE(p100, 0.35);
  EXPECT_LE(p100, 0.35 + ComputeHistogram::kBinWidth);
  EXPECT_DOUBLE_EQ(Aggregate({&rat}, 1.0).peak_compute, 1.0);
  std::vector<std::string> warnings = HistoryWarnings(*h);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "1 pod exports DCGM_FI_PROF_GR_ENGINE_ACTIVE in percent (values above 1.5, where a ratio 0..1 is "
            "expected): read as percent / 100 (ml/pct)");
  // The same pod in two files, one of which saw only ratio-looking values:
  // merged as percent, same peak.
  std::string first, second;
  for (size_t i = 0, n = 0; i < om.size(); ++n) {
    size_t nl = om.find('\n', i);
    (n < 4 ? first : second) += om.substr(i, nl + 1 - i);
    i = nl + 1;
  }
  auto a = testing::ReadOm(first);
  auto b = testing::ReadOm(second);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->pods.at(PodKey{"ml", "pct"}).compute_in_percent);  // saw 0.5 and 1 only
  MergeInto(*b, std::move(*a));
  const PodUsage& merged = b->pods.at(PodKey{"ml", "pct"});
  EXPECT_TRUE(merged.compute_in_percent);
  EXPECT_DOUBLE_EQ(Aggregate({&merged}, 1.0).peak_compute, p100);
  EXPECT_TRUE(HistoryWarnings(History{}).empty());
}

TEST(MergeIntoTest, MergingFilesEqualsReadingThemAsOne) {
  SyntheticOptions o;
  o.series = 50;
  o.samples_per_series = 40;
  std::string text = *SyntheticHistoryText(o);
  // Split after a sample line in the middle: two files with the same pods.
  size_t cut = text.find('\n', text.size() / 2) + 1;
  std::string first = text.substr(0, cut), second = text.substr(cut);
  auto whole = testing::ReadOm(text);
  auto a = testing::ReadText<OpenMetricsReader>(first, 0, IngestOptions(), "a.om");
  auto b = testing::ReadText<OpenMetricsReader>(second, 0, IngestOptions(), "b.om");
  ASSERT_TRUE(whole.ok() && a.ok() && b.ok());
  History merged = std::move(*a);
  MergeInto(merged, std::move(*b));
  EXPECT_EQ(testing::DescribePods(merged), testing::DescribePods(*whole));
  EXPECT_EQ(merged.stats.samples, whole->stats.samples);
  EXPECT_EQ(merged.source, "a.om, b.om");
}

TEST(MergeIntoTest, BadExamplesKeepTheirFile) {
  auto a = testing::ReadText<OpenMetricsReader>(
      "DCGM_FI_DEV_FB_USED{namespace=\"n\",pod=\"p\"} 5 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"n\",pod=\"p\"} 6 1793527260\n",
      0, IngestOptions(), "a.om");
  auto b = testing::ReadText<OpenMetricsReader>(
      "DCGM_FI_DEV_FB_USED{namespace=\"n\",pod=\"p\"} 9 1793527000\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"n\",pod=\"p\"} x 1793527000\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"n\",pod=\"q\"} 1 1793527000\n",
      0, IngestOptions(), "b.om");
  ASSERT_TRUE(a.ok() && b.ok());
  History h = std::move(*a);
  MergeInto(h, std::move(*b));
  ASSERT_EQ(h.pods.size(), 2u);
  const PodUsage& p = h.pods.at(PodKey{"n", "p"});
  EXPECT_EQ(p.peak_memory_mib, 9);
  EXPECT_EQ(p.first_ts_ms, 1793527000000);
  EXPECT_EQ(p.last_ts_ms, 1793527260000);
  EXPECT_EQ(p.samples, 3u);
  EXPECT_EQ(p.bad_samples, 1u);
  EXPECT_EQ(h.stats.first_bad_line_numbers, (std::vector<uint64_t>{2}));
  EXPECT_EQ(h.stats.first_bad_reasons[0], "b.om: value is not a number: \"x\"");
}

TEST(ReadHistoryFileTest, PicksTheFormatByContentThenExtension) {
  TempDir dir;
  SyntheticOptions o;
  o.series = 30;
  o.samples_per_series = 10;
  std::string om = *SyntheticHistoryText(o);
  o.format = SyntheticOptions::Format::kCsv;
  std::string csv = *SyntheticHistoryText(o);
  auto want = testing::ReadOm(om);
  ASSERT_TRUE(want.ok());
  std::string want_pods = testing::DescribePods(*want);
  // Content decides, whatever the name.
  for (const auto& [name, content] :
       std::vector<std::pair<std::string, std::string>>{{"h.om", om},
                                                        {"h.dat", om},
                                                        {"h.csv.bak", csv},
                                                        {"h.txt", csv},
                                                        {"no-comment.prom", om.substr(om.find("\nDCGM") + 1)}}) {
    auto h = ReadHistoryFile(dir.Write(name, content), IngestOptions());
    ASSERT_TRUE(h.ok()) << name << ": " << h.status().message();
    EXPECT_EQ(testing::DescribePods(*h), want_pods) << name;
    EXPECT_EQ(h->source, dir.Write(name, content));
  }
  // Undecidable content: the extension decides (and the reader reports).
  auto empty_om = ReadHistoryFile(dir.Write("empty.om", ""), IngestOptions());
  ASSERT_FALSE(empty_om.ok());
  EXPECT_NE(empty_om.status().message().find("empty.om: no samples"), std::string::npos);
  auto empty_csv = ReadHistoryFile(dir.Write("empty.csv", "\n"), IngestOptions());
  ASSERT_FALSE(empty_csv.ok());
  EXPECT_NE(empty_csv.status().message().find("empty.csv: empty CSV"), std::string::npos);
  auto unknown = ReadHistoryFile(dir.Write("x.dat", "hello\n"), IngestOptions());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("x.dat: unknown format"), std::string::npos);
  auto garbage_om = ReadHistoryFile(dir.Write("g.om", "hello\n{}\n{}\n"), IngestOptions());
  ASSERT_FALSE(garbage_om.ok());
  EXPECT_NE(garbage_om.status().message().find("g.om:2: line does not start with a metric name"),
            std::string::npos)
      << garbage_om.status().message();
}

TEST(ReadHistoryFileTest, MissingFileIsNamed) {
  auto h = ReadHistoryFile("/nonexistent/dir/h.om", IngestOptions());
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message().rfind("/nonexistent/dir/h.om: cannot open: ", 0), 0u);
}

// One piece, read a chunk ahead on a second thread or by the parsing
// thread alone.
IngestOptions OnePiece(bool read_ahead) {
  IngestOptions o;
  o.threads = 1;
  o.read_ahead = read_ahead;
  return o;
}

// Files of more than one 1 MiB read, OpenMetrics (written time by time, and
// series by series: the reading thread then finds runs of repeated lines)
// and CSV, read a chunk ahead on a second thread and by the parsing thread
// alone: what the reader makes of the whole text at once, bad lines and
// their numbers included.
TEST(ReadHistoryFileTest, FilesLargerThanTheBufferStream) {
  TempDir dir;
  for (auto [format, order] : {std::pair{SyntheticOptions::Format::kOpenMetrics, SyntheticOptions::Order::kTime},
                               std::pair{SyntheticOptions::Format::kOpenMetrics, SyntheticOptions::Order::kSeries},
                               std::pair{SyntheticOptions::Format::kCsv, SyntheticOptions::Order::kTime}}) {
    SyntheticOptions o;
    o.series = 97;
    const bool csv = format == SyntheticOptions::Format::kCsv;
    o.samples_per_series = csv ? 700 : 70;  // about 2.5 MiB: three buffer fills
    o.order = order;
    o.format = format;
    std::string text = *SyntheticHistoryText(o);
    ASSERT_GT(text.size(), 2u << 20);
    if (order == SyntheticOptions::Order::kSeries) {
      // In the middle of runs, past the first read: a line the runs cannot
      // take (a time in the future) and one they do not find (a bad value).
      for (size_t at : {size_t{1} << 20, (size_t{3} << 20) / 2}) {
        size_t line = text.size();  // the first line of a used metric after `at`
        for (const char* used : {kFbUsedMetric, kGrEngineActiveMetric, kGpuUtilMetric}) {
          const size_t nl = text.find("\n" + std::string(used) + "{", at);
          if (nl != std::string::npos) line = std::min(line, nl + 1);
        }
        ASSERT_LT(line, text.size());
        const size_t labels_end = text.find("} ", line) + 1;
        const std::string head = text.substr(line, labels_end - line);
        text.insert(text.find('\n', line) + 1, head + " 1 4000000000\n" + head + " x 1793527200\n");
      }
    }
    auto want = csv ? testing::ReadText<CsvReader>(text, 0, IngestOptions(), "big")
                    : testing::ReadText<OpenMetricsReader>(text, 0, IngestOptions(), "big");
    ASSERT_TRUE(want.ok()) << want.status().message();
    EXPECT_EQ(want->stats.samples, ExpectedCounts(o).samples);
    EXPECT_EQ(want->stats.bad_lines, order == SyntheticOptions::Order::kSeries ? 4u : 0u);
    const std::string path = dir.Write(csv ? "big.csv" : "big.om", text);
    using FirstPass = IngestOptions::FirstPass;
    for (bool read_ahead : {true, false}) {
      for (FirstPass first_pass : {FirstPass::kWhenParserBusy, FirstPass::kAlways, FirstPass::kNever}) {
        IngestOptions options = OnePiece(read_ahead);
        options.first_pass = first_pass;
        auto h = ReadHistoryFile(path, options);
        ASSERT_TRUE(h.ok()) << h.status().message();
        EXPECT_EQ(testing::DescribePods(*h), testing::DescribePods(*want))
            << path << " read_ahead " << read_ahead << " first pass " << static_cast<int>(first_pass);
        EXPECT_EQ(testing::DescribeStats(h->stats), testing::DescribeStats(want->stats))
            << path << " read_ahead " << read_ahead << " first pass " << static_cast<int>(first_pass);
      }
    }
  }
}

// A file of exactly two 1 MiB reads: the last read finds nothing, and the
// stream ends there, with nothing lost or read twice.
TEST(ReadHistoryFileTest, FileOfWholeBuffersEndsAfterTheLastOne) {
  TempDir dir;
  SyntheticOptions o;
  o.series = 40;
  o.samples_per_series = 70;
  std::string text = *SyntheticHistoryText(o);
  const size_t want_size = size_t{2} << 20;
  ASSERT_LT(text.size() + 2, want_size);
  ASSERT_EQ(text.back(), '\n');
  text += "# " + std::string(want_size - text.size() - 3, 'p') + "\n";
  ASSERT_EQ(text.size(), want_size);
  const std::string path = dir.Write("whole.om", text);
  for (bool read_ahead : {true, false}) {
    auto h = ReadHistoryFile(path, OnePiece(read_ahead));
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->stats.samples, ExpectedCounts(o).samples) << "read_ahead " << read_ahead;
    EXPECT_EQ(h->stats.bad_lines, 0u);
  }
}

// IngestOptions::stop: once set, the read ends with kStoppedMessage (one
// thread and pieces); unset, the same file reads whole.
TEST(ReadHistoryFileTest, StopEndsTheReadWithItsOwnError) {
  TempDir dir;
  SyntheticOptions o;
  o.series = 97;
  o.samples_per_series = 70;  // about 2.5 MiB: more than one buffer
  const std::string path = dir.Write("big.om", *SyntheticHistoryText(o));
  std::atomic<bool> stop{false};
  for (unsigned threads : {1u, 2u, 0u}) {
    IngestOptions options;
    options.threads = threads == 0 ? 1 : threads;
    options.read_ahead = threads == 1;  // 0: one thread that reads too
    options.parallel_min_bytes = 0;
    options.stop = &stop;
    stop = false;
    auto whole = ReadHistoryFile(path, options);
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    EXPECT_EQ(whole->stats.samples, ExpectedCounts(o).samples);
    stop = true;
    auto stopped = ReadHistoryFile(path, options);
    ASSERT_FALSE(stopped.ok()) << threads << " threads";
    EXPECT_EQ(stopped.status().message(), path + ": " + kStoppedMessage);
  }
}

// The parallel reader (IngestOptions::threads) against one thread: same pods,
// same stats, same bad-line examples with their file line numbers, whatever
// the number of pieces, with bad lines on both sides of every piece boundary.
IngestOptions Threads(unsigned n) {
  IngestOptions o;
  o.threads = n;
  o.parallel_min_bytes = 0;
  return o;
}

// Where SplitAtLines cuts a file of text.size() bytes into `pieces`: after the
// first '\n' at or after size / pieces * k.
std::vector<size_t> Boundaries(const std::string& text, unsigned pieces) {
  std::vector<size_t> out;
  for (unsigned k = 1; k < pieces; ++k) {
    size_t nl = text.find('\n', text.size() / pieces * k);
    if (nl != std::string::npos && nl + 1 < text.size()) out.push_back(nl + 1);
  }
  return out;
}

// Overwrites the line starting at `begin` with digits (same length, so the
// boundaries do not move): "line does not start with a metric name".
void SpoilLine(std::string& text, size_t begin) {
  for (size_t i = begin; i < text.size() && text[i] != '\n' && text[i] != '\r'; ++i) text[i] = '9';
}

void SpoilAround(std::string& text, size_t boundary) {
  SpoilLine(text, boundary);  // the first line of the piece
  size_t prev = text.rfind('\n', boundary - 2);
  SpoilLine(text, prev == std::string::npos ? 0 : prev + 1);  // the last line of the one before
}

TEST(ReadHistoryFileTest, PiecesInParallelEqualOneThread) {
  TempDir dir;
  for (auto order : {SyntheticOptions::Order::kSeries, SyntheticOptions::Order::kTime}) {
    SyntheticOptions o;
    o.series = 41;
    o.samples_per_series = 60;
    o.order = order;
    std::string text = "\xEF\xBB\xBF" + *SyntheticHistoryText(o);
    for (unsigned pieces : {2u, 3u, 5u, 8u}) {
      for (size_t b : Boundaries(text, pieces)) SpoilAround(text, b);
    }
    const std::string path = dir.Write("h.om", text);
    auto serial = ReadHistoryFile(path, Threads(1));
    ASSERT_TRUE(serial.ok()) << serial.status().message();
    ASSERT_GT(serial->stats.bad_lines, 0u);
    ASSERT_EQ(serial->stats.first_bad_line_numbers.size(), kMaxBadExamples);
    for (unsigned threads : {2u, 3u, 5u, 8u}) {
      auto parallel = ReadHistoryFile(path, Threads(threads));
      ASSERT_TRUE(parallel.ok()) << parallel.status().message();
      EXPECT_EQ(Describe(*parallel), Describe(*serial)) << threads << " threads";
      EXPECT_EQ(parallel->source, path);
    }
  }
}

TEST(ReadHistoryFileTest, PiecesReportTheSameBadLinesAsOneThread) {
  TempDir dir;
  SyntheticOptions o;
  o.series = 20;
  o.samples_per_series = 30;
  std::string text = *SyntheticHistoryText(o);
  // Only the lines around the boundaries of 4 pieces are bad, and too many
  // of them: the error quotes the first ten, in every piece, by file line.
  IngestOptions strict = Threads(1);
  strict.max_bad_fraction = 0.001;
  for (size_t b : Boundaries(text, 4)) SpoilAround(text, b);
  const std::string path = dir.Write("bad.om", text);
  auto serial = ReadHistoryFile(path, strict);
  ASSERT_FALSE(serial.ok());
  EXPECT_NE(serial.status().message().find("bad.om:"), std::string::npos);
  strict.threads = 4;
  auto parallel = ReadHistoryFile(path, strict);
  ASSERT_FALSE(parallel.ok());
  EXPECT_EQ(parallel.status().message(), serial.status().message());
}

TEST(ReadHistoryFileTest, EofBeforeTheLastPieceIsReadAsOneStream) {
  TempDir dir;
  SyntheticOptions o;
  o.series = 20;
  o.samples_per_series = 30;
  std::string text = *SyntheticHistoryText(o);
  // "# EOF" early in the file: every later data line is bad, also in the
  // pieces that did not see it.
  size_t cut = text.find('\n', text.size() / 10) + 1;
  text.insert(cut, "# EOF\n");
  const std::string path = dir.Write("eof.om", text);
  IngestOptions lenient = Threads(1);
  lenient.max_bad_fraction = 1.0;
  auto serial = ReadHistoryFile(path, lenient);
  lenient.threads = 3;
  auto parallel = ReadHistoryFile(path, lenient);
  ASSERT_TRUE(serial.ok() && parallel.ok());
  EXPECT_GT(serial->stats.bad_lines, serial->stats.data_lines / 2);
  EXPECT_EQ(Describe(*parallel), Describe(*serial));
}

}  // namespace
}  // namespace kubeon::metrics
