#include "metrics/csv_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "metrics/history_testutil.h"
#include "metrics/message_text.h"
#include "metrics/synthetic_history.h"

namespace kubeon::metrics {
namespace {

using testing::Describe;
using testing::ReadCsv;
using testing::ReadOm;

const PodUsage& Pod(const History& h, const std::string& ns, const std::string& pod) {
  static const PodUsage kNone;
  auto it = h.pods.find(PodKey{ns, pod});
  EXPECT_NE(it, h.pods.end()) << ns << "/" << pod;
  return it == h.pods.end() ? kNone : it->second;
}

constexpr const char* kWideHeader =
    "timestamp,namespace,pod,container,hostname,gpu,UUID,modelName,GPU_I_PROFILE,GPU_I_ID,"
    "DCGM_FI_DEV_FB_USED,DCGM_FI_DEV_FB_FREE,DCGM_FI_PROF_GR_ENGINE_ACTIVE,DCGM_FI_DEV_GPU_UTIL\n";

TEST(CsvReaderTest, WideFormWithRfc3339AndUnixSeconds) {
  std::string text = std::string(kWideHeader) +
      "2026-11-01T10:00:00Z,ml,trainer-0,main,node-1,0,GPU-1,NVIDIA A100-SXM4-40GB,,,9216,31294,0.41,55\n"
      "1793527230.5,ml,trainer-0,main,node-1,0,GPU-1,NVIDIA A100-SXM4-40GB,,,9300,,0.5,\n"
      "2026-11-01T10:01:00Z,ml,trainer-0,main,node-1,0,GPU-1,NVIDIA A100-SXM4-40GB,,,,,,\n"
      "2026-11-01T10:01:00Z,,,,node-1,1,GPU-2,NVIDIA A100-SXM4-40GB,,,3,40000,0,0\n"
      "2026-11-01T10:01:00Z,ml,mig-pod,main,node-2,0,GPU-3,NVIDIA A100-SXM4-40GB,1g.5gb,7,4000,800,0.9,\n";
  auto h = ReadCsv(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.lines, 6u);
  EXPECT_EQ(h->stats.data_lines, 5u);
  EXPECT_EQ(h->stats.bad_lines, 0u) << Describe(*h);
  EXPECT_EQ(h->stats.samples, 3u + 2u + 2u);
  EXPECT_EQ(h->stats.unattributed_lines, 1u);
  ASSERT_EQ(h->pods.size(), 2u);
  const PodUsage& t = Pod(*h, "ml", "trainer-0");
  EXPECT_EQ(t.peak_memory_mib, 9300);
  EXPECT_EQ(t.compute.count(), 2u);
  EXPECT_DOUBLE_EQ(t.compute.max(), 0.5);
  EXPECT_EQ(t.gpu_util.count(), 1u);
  EXPECT_DOUBLE_EQ(t.gpu_util.max(), 0.55);
  EXPECT_EQ(t.first_ts_ms, 1793527200000);
  EXPECT_EQ(t.last_ts_ms, 1793527230500);
  EXPECT_EQ(t.hostname, "node-1");
  EXPECT_EQ(t.model_name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(t.container, "main");
  const PodUsage& m = Pod(*h, "ml", "mig-pod");
  EXPECT_EQ(m.mig_profile, "1g.5gb");
  EXPECT_EQ(m.gpus, (std::set<std::string>{"GPU-3/GI7"}));
  EXPECT_TRUE(h->stats.metrics_seen.count("DCGM_FI_DEV_FB_FREE"));
}

TEST(CsvReaderTest, LongForm) {
  std::string text =
      "timestamp,metric,value,namespace,pod,Hostname,gpu,UUID,modelName\n"
      "1793527200,DCGM_FI_DEV_FB_USED,9216,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "1793527200,DCGM_FI_PROF_GR_ENGINE_ACTIVE,0.25,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "1793527230,DCGM_FI_DEV_FB_FREE,100,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "1793527230,DCGM_FI_DEV_FB_USED,NaN,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "1793527230,DCGM_FI_DEV_FB_USED,,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "yesterday,DCGM_FI_DEV_FB_USED,1,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "2026-11-01T10:02:00Z,DCGM_FI_DEV_GPU_UTIL,30,ml,trainer-0,node-1,0,GPU-1,NVIDIA A30\n"
      "1793527230,DCGM_FI_DEV_FB_USED,5,,,node-1,1,GPU-2,NVIDIA A30\n";
  auto h = ReadCsv(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.samples, 3u);
  EXPECT_EQ(h->stats.ignored_metric_lines, 1u);
  EXPECT_EQ(h->stats.unattributed_lines, 1u);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{5, 6, 7}));
  EXPECT_EQ(h->stats.first_bad_reasons[0], "column value: value is NaN: \"NaN\"");
  EXPECT_EQ(h->stats.first_bad_reasons[1], "column value: value is empty");
  EXPECT_EQ(h->stats.first_bad_reasons[2].rfind("column timestamp: ", 0), 0u);
  const PodUsage& t = Pod(*h, "ml", "trainer-0");
  EXPECT_EQ(t.peak_memory_mib, 9216);
  EXPECT_EQ(t.bad_samples, 3u);
  EXPECT_EQ(t.last_ts_ms, 1793527320000);
  EXPECT_EQ(t.hostname, "node-1");
}

TEST(CsvReaderTest, QuotedFieldsWithEscapesAndCommasOnOneLine) {
  std::string text =
      "\xEF\xBB\xBF\"timestamp\",namespace,pod,modelName,DCGM_FI_DEV_FB_USED\r\n"  // 1
      "1793527200,ml,\"pod \"\"q\"\", with comma\",\"NVIDIA A100-SXM4-40GB\",\" 42 \"\r\n"  // 2
      "1793527230,ml,\"multi\n"  // 3: a quoted field cannot span lines
      "line\",\"x\",43\n"        // 4
      "1793527260,ml,\"bad\"x,m,1\n"  // 5
      "1793527260,ml,short\n"          // 6
      "1793527290,ml,after,m,44\n"     // 7
      "1793527290,ml,after2,m,45\n"    // 8
      "1793527290,ml,after3,m,46\n";   // 9
  auto h = ReadCsv(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.lines, 9u);
  EXPECT_EQ(Pod(*h, "ml", "pod \"q\", with comma").peak_memory_mib, 42);
  EXPECT_EQ(Pod(*h, "ml", "pod \"q\", with comma").model_name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(Pod(*h, "ml", "after").peak_memory_mib, 44);
  EXPECT_EQ(h->pods.count(PodKey{"ml", "multi\nline"}), 0u);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{3, 4, 5, 6}));
  EXPECT_EQ(h->stats.first_bad_reasons[0].rfind("unterminated quoted field", 0), 0u);
  EXPECT_EQ(h->stats.first_bad_reasons[2].rfind("unexpected character after a closing quote", 0), 0u);
  EXPECT_EQ(h->stats.first_bad_reasons[3].rfind("expected 5 fields as in the header, found 3", 0), 0u);
}

// Issue 14: one unterminated quote swallowed the rest of the file (50,000
// rows reported as "1 bad line").  It now spoils its own line only.
TEST(CsvReaderTest, UnterminatedQuoteSpoilsOnlyItsLine) {
  std::string text = "timestamp,namespace,pod,DCGM_FI_DEV_FB_USED\n1793527200,a,\"b,1\n";
  for (int i = 0; i < 1000; ++i) text += std::to_string(1793527230 + 30 * i) + ",a,b," + std::to_string(i) + "\n";
  auto h = ReadCsv(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.bad_lines, 1u);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{2}));
  EXPECT_EQ(h->stats.first_bad_reasons[0].rfind("unterminated quoted field", 0), 0u);
  EXPECT_EQ(Pod(*h, "a", "b").samples, 1000u);
  EXPECT_EQ(Pod(*h, "a", "b").peak_memory_mib, 999);
}

TEST(CsvReaderTest, OverlongLineIsBadAndTheRestIsRead) {
  std::string text = "timestamp,namespace,pod,DCGM_FI_DEV_FB_USED\n1793527200,a,b,";
  text.append(kMaxCsvLineBytes, '7');
  text += "\n1793527230,a,b,5\n";
  auto h = ReadCsv(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{2}));
  EXPECT_EQ(h->stats.first_bad_reasons[0], "line longer than 1048576 bytes");
  EXPECT_EQ(Pod(*h, "a", "b").peak_memory_mib, 5);
  auto header = ReadCsv("timestamp," + std::string(kMaxCsvLineBytes, 'x') + "\n1,2\n");
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.status().message().find("test.csv:1: CSV header longer than 1048576 bytes"), std::string::npos)
      << header.status().message();
}

TEST(CsvReaderTest, UnterminatedQuoteAtEndIsBad) {
  auto h = ReadCsv("timestamp,namespace,pod,DCGM_FI_DEV_FB_USED\n1793527200,a,b,1\n1793527200,a,\"b,2\n");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{3}));
  EXPECT_EQ(h->stats.first_bad_reasons[0],
            "unterminated quoted field (a quoted field cannot span lines): \"1793527200,a,\\\"b,2\"");
}

TEST(CsvReaderTest, WideRowWithSeveralBadCellsIsOneBadLine) {
  std::string text = std::string(kWideHeader) +
      "1793527200,ml,p,c,n,0,GPU-1,A30,,,abc,1,NaN,-5\n"
      "1793527200,ml,p,c,n,0,GPU-1,A30,,,100,1,0.5,50\n"
      "1793527200,ml,p,c,n,0,GPU-1,A30,,,100,1,0.5,50\n"
      "nope,ml,p,c,n,0,GPU-1,A30,,,100,1,0.5,50\n";
  auto h = ReadCsv(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.bad_lines, 2u);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{2, 5}));
  EXPECT_EQ(h->stats.first_bad_reasons[0],
            "column DCGM_FI_DEV_FB_USED: value is not a number: \"abc\"");
  EXPECT_EQ(h->stats.first_bad_reasons[1].rfind("column timestamp: ", 0), 0u);
  const PodUsage& p = Pod(*h, "ml", "p");
  EXPECT_EQ(p.bad_samples, 6u);  // 3 bad cells + 3 cells of the row with a bad time
  EXPECT_EQ(p.samples, 6u);
}

TEST(CsvReaderTest, HeaderErrorsAreFatalAndNameTheLine) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {"\nnamespace,pod,DCGM_FI_DEV_FB_USED\n", "test.csv:2: CSV header has no \"timestamp\" column"},
      {"timestamp,metric,pod\n", "\"metric\" without \"value\""},
      {"timestamp,pod,pod,DCGM_FI_DEV_FB_USED\n", "duplicate column \"pod\""},
      {"timestamp,namespace,pod\n", "neither metric columns"},
      {"timestamp,metric,value,DCGM_FI_DEV_FB_USED\n", "mixes the long form"},
      {"", "test.csv: empty CSV (no header row)"},
  };
  for (const Case& c : cases) {
    auto h = ReadCsv(c.text);
    ASSERT_FALSE(h.ok()) << c.text;
    EXPECT_NE(h.status().message().find(c.message), std::string::npos) << h.status().message();
  }
  auto header_only = ReadCsv(kWideHeader);
  ASSERT_FALSE(header_only.ok());
  EXPECT_NE(header_only.status().message().find("no samples"), std::string::npos);
}

TEST(CsvReaderTest, ExportedColumnsNameTheWorkload) {
  auto h = ReadCsv(
      "timestamp,namespace,pod,exported_namespace,exported_pod,exported_container,DCGM_FI_DEV_FB_USED\n"
      "1793527200,gpu-operator,dcgm-x,ml,trainer,main,77\n");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(Pod(*h, "ml", "trainer").peak_memory_mib, 77);
  EXPECT_EQ(Pod(*h, "ml", "trainer").container, "main");
}

TEST(CsvReaderTest, MostlyBadIsAnError) {
  auto h = ReadCsv("timestamp,namespace,pod,DCGM_FI_DEV_FB_USED\n1,a,b,x\n1,a,b,y\n1,a,b,3\n");
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("test.csv: 2 of 3 data lines are bad"), std::string::npos)
      << h.status().message();
  EXPECT_NE(h.status().message().find("test.csv:2: column DCGM_FI_DEV_FB_USED"), std::string::npos);
}

TEST(CsvReaderTest, SyntheticCsvMatchesSyntheticOpenMetrics) {
  for (auto order : {SyntheticOptions::Order::kSeries, SyntheticOptions::Order::kTime}) {
    SyntheticOptions o;
    o.series = 77;
    o.samples_per_series = 13;
    o.order = order;
    o.exported_labels = order == SyntheticOptions::Order::kTime;
    auto om = ReadOm(*SyntheticHistoryText(o));
    o.format = SyntheticOptions::Format::kCsv;
    auto csv_text = SyntheticHistoryText(o);
    ASSERT_TRUE(csv_text.ok());
    auto csv = ReadCsv(*csv_text);
    ASSERT_TRUE(om.ok() && csv.ok()) << csv.status().message();
    EXPECT_EQ(testing::DescribePods(*csv), testing::DescribePods(*om));
    EXPECT_EQ(csv->stats.samples, ExpectedCounts(o).samples);
    EXPECT_EQ(csv->stats.bad_lines, 0u);
    EXPECT_EQ(csv->stats.metrics_seen, om->stats.metrics_seen);
    // Byte by byte, or with (almost) no series cache, gives the same History.
    auto bytewise = ReadCsv(*csv_text, 1);
    ASSERT_TRUE(bytewise.ok());
    EXPECT_EQ(Describe(*bytewise), Describe(*csv));
    for (size_t cap : {0, 1, 3}) {
      IngestOptions limited;
      limited.max_cached_series = cap;
      auto h = ReadCsv(*csv_text, 0, limited);
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(Describe(*h), Describe(*csv)) << "cap " << cap;
    }
  }
}

TEST(CsvReaderTest, ChunkBoundariesInsideQuotedRecords) {
  std::string text =
      "timestamp,namespace,pod,DCGM_FI_DEV_FB_USED\r\n"
      "1793527200,ml,\"a\"\"b, c\",5\r\n"
      "1793527215,ml,\"open\r\n"
      "1793527230,ml,\"x\",NaN\r\n"
      "1793527260,ml,\"x\",6\r\n"
      "1793527290,ml,\"x\",7";
  auto whole = ReadCsv(text);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  for (size_t chunk = 1; chunk < text.size(); ++chunk) {
    auto h = ReadCsv(text, chunk);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(Describe(*h), Describe(*whole)) << "chunk " << chunk;
  }
  EXPECT_EQ(Pod(*whole, "ml", "a\"b, c").peak_memory_mib, 5);
  EXPECT_EQ(Pod(*whole, "ml", "x").peak_memory_mib, 7);
  EXPECT_EQ(whole->stats.first_bad_line_numbers, (std::vector<uint64_t>{3, 4}));
}

// Fuzz finding F6: column names with CR/LF were quoted raw into the error.
TEST(CsvReaderTest, HeaderErrorsAreOneLine) {
  for (const char* header : {"timestamp,\"x\ry\",\"x\ry\",DCGM_FI_DEV_FB_USED\n",
                             "timestamp,metric,value,\"DCGM_\r\x1b[31m\xFF\"\n"}) {
    auto h = ReadCsv(header);
    ASSERT_FALSE(h.ok());
    const std::string& m = h.status().message();
    EXPECT_EQ(m.find_first_of("\r\n\x1b"), std::string::npos) << m;
    EXPECT_TRUE(IsValidUtf8(m)) << m;
  }
}

}  // namespace
}  // namespace kubeon::metrics
