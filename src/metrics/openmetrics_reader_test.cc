#include "metrics/openmetrics_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "metrics/history_builder.h"
#include "metrics/history_testutil.h"
#include "metrics/message_text.h"
#include "metrics/synthetic_history.h"
#include "metrics/view_index.h"

namespace kubeon::metrics {
namespace {

using testing::Describe;
using testing::ReadOm;

// dcgm-exporter issue #512 (older release: `Hostname`, MIG slice), verbatim
// from reference/mig-facts.md section 7, with a timestamp appended as
// promtool's backfill format requires.
constexpr const char* kMigLine =
    R"(DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77",pci_bus_id="00000000:1A:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",GPU_I_PROFILE="1g.10gb",GPU_I_ID="7",Hostname="gsrh100-074",DCGM_FI_DRIVER_VERSION="535.129.03",container="kserve-container",namespace="model-playground-stg",pod="text-embedding-predictor-00008-deployment-57946f6c67-vdtjl"} 0.000000 1793527200)";
// dcgm-exporter issue #736 (newer release: lowercase `hostname`), verbatim
// labels; FB_FREE is not a metric the planner uses.
constexpr const char* kNewerFreeLine =
    R"(DCGM_FI_DEV_FB_FREE{gpu="2",UUID="GPU-63bc…",pci_bus_id="00000000:CA:00.0",device="nvidia2",modelName="NVIDIA A30",GPU_I_PROFILE="1g.6gb",GPU_I_ID="3",hostname="dcgm-exporter-wwwjh",container="triton-server",namespace="default",pod="triton-server-f7cb5d77-95xcf"} 2207 1793527200)";
constexpr const char* kNewerUsedLine =
    R"(DCGM_FI_DEV_FB_USED{gpu="2",UUID="GPU-63bc…",pci_bus_id="00000000:CA:00.0",device="nvidia2",modelName="NVIDIA A30",GPU_I_PROFILE="1g.6gb",GPU_I_ID="3",hostname="dcgm-exporter-wwwjh",container="triton-server",namespace="default",pod="triton-server-f7cb5d77-95xcf"} 3712 1793527230)";

const PodUsage& Pod(const History& h, const std::string& ns, const std::string& pod) {
  static const PodUsage kNone;
  auto it = h.pods.find(PodKey{ns, pod});
  EXPECT_NE(it, h.pods.end()) << ns << "/" << pod;
  return it == h.pods.end() ? kNone : it->second;
}

// Feeding `text` with the runs that the read-ahead thread finds
// (Feed(chunk, runs)) gives what Feed(chunk) gives, in chunks of any size,
// with at_line_start right or wrong.  Returns the lines found in runs when
// fed whole.
size_t ExpectRunsChangeNothing(std::string_view text, const IngestOptions& options = IngestOptions()) {
  auto outcome = [](const Result<History>& h) { return h.ok() ? Describe(*h) : "error: " + h.status().message(); };
  const std::string want = outcome(ReadOm(text, 0, options));
  size_t found = 0;
  for (size_t chunk : {0, 1, 7, 64, 150, 333, 4096}) {
    for (bool wrong_line_starts : {false, true}) {
      size_t lines = 0;
      EXPECT_EQ(outcome(testing::ReadOmWithRuns(text, chunk, options, wrong_line_starts, &lines)), want)
          << "chunk " << chunk << (wrong_line_starts ? ", wrong line starts" : "");
      if (chunk == 0 && !wrong_line_starts) found = lines;
    }
  }
  return found;
}

TEST(OpenMetricsReaderTest, ParsesRealDcgmExporterLines) {
  std::string text = "# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.\n"
                     "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n" +
                     std::string(kMigLine) + "\n" + kNewerFreeLine + "\n" + kNewerUsedLine +
                     "\n# EOF\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.lines, 6u);
  EXPECT_EQ(h->stats.data_lines, 3u);
  EXPECT_EQ(h->stats.samples, 2u);
  EXPECT_EQ(h->stats.ignored_metric_lines, 1u);
  EXPECT_EQ(h->stats.bad_lines, 0u);
  EXPECT_EQ(h->stats.metrics_seen,
            (std::set<std::string>{"DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED",
                                   "DCGM_FI_PROF_GR_ENGINE_ACTIVE"}));
  ASSERT_EQ(h->pods.size(), 2u);

  const PodUsage& mig = Pod(*h, "model-playground-stg",
                            "text-embedding-predictor-00008-deployment-57946f6c67-vdtjl");
  EXPECT_EQ(mig.hostname, "gsrh100-074");
  EXPECT_EQ(mig.gpu_uuid, "GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77");
  EXPECT_EQ(mig.model_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(mig.mig_profile, "1g.10gb");
  EXPECT_EQ(mig.container, "kserve-container");
  EXPECT_EQ(mig.gpus, (std::set<std::string>{"GPU-58e8f5ea-13cc-013a-d88f-2bcf5ae8bc77/GI7"}));
  EXPECT_EQ(mig.compute.count(), 1u);
  EXPECT_EQ(mig.compute.max(), 0.0);
  EXPECT_EQ(mig.peak_memory_mib, -1);
  EXPECT_EQ(mig.first_ts_ms, 1793527200000);

  const PodUsage& triton = Pod(*h, "default", "triton-server-f7cb5d77-95xcf");
  EXPECT_EQ(triton.hostname, "dcgm-exporter-wwwjh");
  EXPECT_EQ(triton.model_name, "NVIDIA A30");
  EXPECT_EQ(triton.mig_profile, "1g.6gb");
  EXPECT_EQ(triton.peak_memory_mib, 3712);
  EXPECT_EQ(triton.samples, 1u);  // FB_FREE is not a sample of the pod
  EXPECT_EQ(triton.first_ts_ms, 1793527230000);
}

TEST(OpenMetricsReaderTest, ExportedLabelsNameTheWorkloadPod) {
  std::string text =
      R"(DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1",Hostname="n1",container="nvidia-dcgm-exporter",namespace="gpu-operator",pod="nvidia-dcgm-exporter-x7k2p",exported_container="main",exported_namespace="ml",exported_pod="trainer-0"} 1000 1793527200)"
      "\n"
      R"(DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-2",Hostname="n1",container="nvidia-dcgm-exporter",namespace="gpu-operator",pod="nvidia-dcgm-exporter-x7k2p"} 5 1793527200)"
      "\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  // The idle GPU carries only the exporter's own target labels, so it is
  // attributed to the exporter pod (documented in history.h).
  ASSERT_EQ(h->pods.size(), 2u);
  const PodUsage& u = Pod(*h, "ml", "trainer-0");
  EXPECT_EQ(u.peak_memory_mib, 1000);
  EXPECT_EQ(u.container, "main");
  EXPECT_EQ(Pod(*h, "gpu-operator", "nvidia-dcgm-exporter-x7k2p").peak_memory_mib, 5);
}

TEST(OpenMetricsReaderTest, PodWithoutNamespaceIsBadAndSeriesWithoutPodIsUnattributed) {
  std::string text =
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-1\",pod=\"p\"} 1 1793527200\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-1\",exported_pod=\"p\",namespace=\"x\"} 1 1793527200\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"1\",UUID=\"GPU-2\",Hostname=\"n\"} 0 1793527200\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-2\",pod=\"\",namespace=\"\"} 0 1793527200\n"
      "DCGM_FI_DEV_GPU_UTIL 0 1793527200\n"
      "DCGM_FI_DEV_GPU_UTIL{namespace=\"a\",pod=\"b\"} 10 1793527200\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.bad_lines, 2u);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(h->stats.first_bad_reasons[0].rfind("label pod without namespace", 0), 0u);
  EXPECT_EQ(h->stats.first_bad_reasons[1].rfind("label exported_pod without exported_namespace", 0), 0u);
  EXPECT_EQ(h->stats.unattributed_lines, 3u);
  EXPECT_EQ(h->stats.samples, 1u);
  EXPECT_EQ(h->pods.size(), 1u);
}

TEST(OpenMetricsReaderTest, EscapedLabelValuesAreUnescaped) {
  std::string text =
      R"(DCGM_FI_DEV_FB_USED{modelName="NVIDIA A100-SXM4-40GB",namespace="ns, with comma",pod="p\"q\\r}s\nt",container="c\\d",Hostname="h\"1",UUID="GPU-\x"} 2.5e3 1793527200.5)"
      "\n"
      // The same series again (its cached labels, escaped values included).
      R"(DCGM_FI_DEV_FB_USED{modelName="NVIDIA A100-SXM4-40GB",namespace="ns, with comma",pod="p\"q\\r}s\nt",container="c\\d",Hostname="h\"1",UUID="GPU-\x"} 100 1793527230)"
      "\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->pods.size(), 1u);
  const auto& [key, u] = *h->pods.begin();
  EXPECT_EQ(key.namespace_, "ns, with comma");
  EXPECT_EQ(key.pod, "p\"q\\r}s\nt");
  EXPECT_EQ(u.model_name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(u.gpu_uuid, "GPU-\\x");  // unknown escapes stay as written
  EXPECT_EQ(u.container, "c\\d");
  EXPECT_EQ(u.hostname, "h\"1");
  EXPECT_EQ(u.gpus, std::set<std::string>({"GPU-\\x"}));
  EXPECT_EQ(u.peak_memory_mib, 2500);
  EXPECT_EQ(u.first_ts_ms, 1793527200500);
  EXPECT_EQ(u.samples, 2u);
}

TEST(OpenMetricsReaderTest, WhitespaceTrailingCommaAndExemplarsAreAccepted) {
  std::string text =
      "DCGM_FI_DEV_FB_USED{ namespace = \"a\" , pod=\"b\", }  10.4   1793527200  # {trace_id=\"x\"} 1\n"
      "  DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"}\t11\t1793527260\r\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.bad_lines, 0u) << Describe(*h);
  const PodUsage& u = Pod(*h, "a", "b");
  EXPECT_EQ(u.peak_memory_mib, 11);
  EXPECT_EQ(u.samples, 2u);
}

TEST(OpenMetricsReaderTest, BadValuesAreCountedWithLineNumbersAndNotUsed) {
  std::string labels = "{namespace=\"ns\",pod=\"p\",UUID=\"GPU-1\"}";
  std::string text = "# TYPE DCGM_FI_DEV_FB_USED gauge\n"                          // 1
                     "DCGM_FI_DEV_FB_USED" + labels + " 100 1793527200\n"          // 2
                     "DCGM_FI_DEV_FB_USED" + labels + " NaN 1793527230\n"          // 3
                     "DCGM_FI_DEV_FB_USED" + labels + " abc 1793527260\n"          // 4
                     "DCGM_FI_DEV_FB_USED" + labels + " +Inf 1793527290\n"         // 5
                     "DCGM_FI_DEV_FB_USED" + labels + " 99999\n"                   // 6
                     "DCGM_FI_DEV_FB_USED" + labels + " 99999 1793527320000\n"     // 7
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " -0.1 1793527320\n"  // 8
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 0.4 1793527320 x\n"  // 9
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"ns\",pod=\"p\" 0.4 1793527320\n"  // 10
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 0.25 1793527350\n"  // 11
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 0.5 1793527380\n"   // 12
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 0.75 1793527410\n"  // 13
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 1.0 1793527440\n"   // 14
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 1.0 1793527470\n"   // 15
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 1.0 1793527500\n"   // 16
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 1.0 1793527530\n"   // 17
                     "DCGM_FI_PROF_GR_ENGINE_ACTIVE" + labels + " 1.0 1793527560\n";  // 18
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.data_lines, 17u);
  EXPECT_EQ(h->stats.bad_lines, 8u);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{3, 4, 5, 6, 7, 8, 9, 10}));
  const auto& r = h->stats.first_bad_reasons;
  EXPECT_EQ(r[0], "value is NaN: \"NaN\"");
  EXPECT_EQ(r[1], "value is not a number: \"abc\"");
  EXPECT_EQ(r[2], "value is infinite: \"+Inf\"");
  EXPECT_EQ(r[3], "missing timestamp");
  EXPECT_NE(r[4].find("milliseconds"), std::string::npos);
  EXPECT_EQ(r[5], "value is negative: \"-0.1\"");
  EXPECT_EQ(r[6].rfind("unexpected text after the timestamp", 0), 0u);
  EXPECT_EQ(r[7].rfind("unterminated label set", 0), 0u);
  const PodUsage& u = Pod(*h, "ns", "p");
  EXPECT_EQ(u.peak_memory_mib, 100);  // the unparsed 99999 values are not used
  EXPECT_EQ(u.bad_samples, 7u);       // line 10's labels could not be read
  EXPECT_EQ(u.samples, 9u);
  EXPECT_EQ(u.compute.count(), 8u);
  EXPECT_EQ(u.first_ts_ms, 1793527200000);
  EXPECT_EQ(u.last_ts_ms, 1793527560000);
}

// Lines whose series is the predicted one are read to their end by the
// reader itself (PredictedLine), the common " value seconds" ending at once.
// Every other ending of such a line, good or bad, must come out exactly as
// the general reading has it: fed byte by byte no line is whole in a chunk,
// so every line takes the general path there.
TEST(OpenMetricsReaderTest, PredictedLinesOfEveryEndingReadAsTheGeneralPath) {
  const std::string used = "DCGM_FI_DEV_FB_USED{namespace=\"ns\",pod=\"p\",UUID=\"GPU-1\"}";
  const std::string gr = "DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"ns\",pod=\"p\",UUID=\"GPU-1\"}";
  const std::string idle = "DCGM_FI_DEV_FB_USED{UUID=\"GPU-9\"}";
  const std::string text = used + " 100 1793527200\n" +            // 1: general (nothing predicted yet)
                           used + " 101 1793527230\n" +            // 2: predicted, simple
                           used + " 102 1793527260\r\n" +          // 3: predicted, CRLF
                           used + " 103.5 1793527290 # {} 1\n" +   // 4: exemplar after the time
                           used + "  104 1793527320\n" +           // 5: two blanks
                           used + "\t105\t1793527350\n" +          // 6: tabs
                           used + " 106 1793527380 \n" +           // 7: trailing blank
                           used + " 1e2 1793527410\n" +            // 8: exponent
                           used + " 99999999999999 1793527440\n" + // 9: beyond 1e12 MiB: bad
                           used + " 107 4000000000\n" +            // 10: in 2096, the future: bad
                           used + " 108 1793527470.5\n" +          // 11: fractional seconds
                           used + " abc 1793527500\n" +            // 12: bad value
                           used + " 109\n" +                       // 13: no time: bad
                           used + "x 110 1793527530\n" +           // 14: no blank after the labels: bad
                           used + " -1 1793527560\n" +             // 15: negative: bad
                           used + " 111 1793527590" +               // 16: last line, no '\n'
                           "\n" + gr + " 0.25 1793527200\n" +      // 17: another metric, same series
                           gr + " 0.5 1793527230\n" +              // 18
                           idle + " 5 1793527200\n" +              // 19: a series without pod
                           idle + " 6 1793527230\n" +              // 20: predicted, unattributed
                           idle + " x 1793527260\n" +              // 21: predicted, unattributed, bad value not judged
                           used + " 112 1793527620";                // 22: no '\n' at the end
  auto whole = ReadOm(text);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  auto bytewise = ReadOm(text, 1);
  ASSERT_TRUE(bytewise.ok()) << bytewise.status().message();
  EXPECT_EQ(Describe(*whole), Describe(*bytewise));
  for (size_t chunk : {7, 64, 150, 333}) {
    auto h = ReadOm(text, chunk);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(Describe(*h), Describe(*whole)) << "chunk " << chunk;
  }
  EXPECT_EQ(whole->stats.first_bad_line_numbers, (std::vector<uint64_t>{9, 10, 12, 13, 14, 15}));
  EXPECT_EQ(whole->stats.unattributed_lines, 3u);
  EXPECT_GT(ExpectRunsChangeNothing(text), 0u);
  const PodUsage& u = Pod(*whole, "ns", "p");
  EXPECT_EQ(u.samples, 13u);  // 11 of memory, 2 of compute
  EXPECT_EQ(u.bad_samples, 5u);  // line 14's is a bad line, not yet a sample of the pod
  EXPECT_EQ(u.peak_memory_mib, 112);
  EXPECT_EQ(u.compute.count(), 2u);
}

TEST(OpenMetricsReaderTest, LinesReadFromRunsAsTheGeneralPath) {
  const std::string used = "DCGM_FI_DEV_FB_USED{namespace=\"ns\",pod=\"p\",UUID=\"GPU-1\"}";
  const std::string no_ns = "DCGM_FI_DEV_FB_USED{pod=\"q\"}";
  // As long as `used`: a head of the same length as the line before's.
  const std::string not_utf8 = "DCGM_FI_DEV_FB_USED{namespace=\"ns\",pod=\"p\",UUID=\"GPU-\xFF\"}";
  const std::string tail = "DCGM_FI_DEV_FB_USED{namespace=\"ns\",pod=\"s\"} 5 6}";
  const std::string free = "DCGM_FI_DEV_FB_FREE{namespace=\"ns\",pod=\"p\"}";
  const std::string escaped = "DCGM_FI_DEV_FB_USED{namespace=\"ns\",pod=\"e\\\"x\"}";
  const std::string text = "\xEF\xBB\xBF" + used + " 1 1793527200\n" +  // 1: byte order mark: head 3 bytes longer
                           used + " 2 1793527230\n" +                    // 2-3: a run the reader cannot use
                           used + " 3 1793527260\n" +                    //
                           not_utf8 + " 4 1793527200\n" +                // 4-5: not UTF-8: bad
                           not_utf8 + " 4 1793527230\n" +                //
                           no_ns + " 4 1793527200\n" +                   // 6-8: pod without namespace: bad
                           no_ns + " 4 1793527230\n" + no_ns + " 4 1793527260\n" +
                           tail + " 7 1793527200\n" +                    // 9-10: text after the time: bad;
                           tail + " 7 1793527230\n" +                    //   its head looks 5 bytes longer
                           used + " 10 1793527290\n" +                   // 11-15: a run with
                           used + " 11 4000000000\n" +                   //   a time in the future: bad
                           used + " 12 1793527320\n" +                   //
                           used + " 99999999999999 1793527350\n" +       //   beyond 1e12 MiB: bad
                           used + " 13 1793527380\n" +                   //
                           "# a comment\n" +                             // 16
                           used + " 14 1793527410\n" +                   // 17-18
                           used + " 15 1793527440\n" +                   //
                           free + " 100 1793527200\n" +                  // 19-21: a metric not used
                           free + " 101 1793527230\n" + free + " x 1793527260\n" +
                           "DCGM_FI_DEV_FB_FREE 5 1793527200\n" +        // 22-23: no label set
                           "DCGM_FI_DEV_FB_FREE 6 1793527230\n" +        //
                           "DCGM_FI_DEV_GPU_UTIL 50 1793527200\n" +      // 24-25: used, no pod
                           "DCGM_FI_DEV_GPU_UTIL 51 1793527230\n" +      //
                           "  " + used + " 16 1793527470\n" +            // 26-27: leading blanks
                           "  " + used + " 17 1793527500\n" +            //
                           used + " 18 1793527530\r\n" +                 // 28-29: CRLF
                           used + " 19 1793527560\r\n" +                 //
                           escaped + " 20 1793527200\n" +                // 30-31: an escaped quote
                           escaped + " 21 1793527230\n" +                //
                           used + " 22 1793527590 # {} 1\n" +            // 32: exemplar
                           used + " 23 1793527620\n" +                   // 33
                           used + " 24 1793527650\n" +                   // 34
                           "# EOF\n" +                                   // 35
                           used + " 25 1793527680\n" +                   // 36-37: after # EOF: bad
                           used + " 26 1793527710\n";
  IngestOptions lenient;
  lenient.max_bad_fraction = 0.9;
  EXPECT_GE(ExpectRunsChangeNothing(text, lenient), 15u);
  auto h = ReadOm(text, 0, lenient);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{4, 5, 6, 7, 8, 9, 10, 12, 14, 36}));
  EXPECT_EQ(h->stats.bad_lines, 11u);
  EXPECT_EQ(h->stats.ignored_metric_lines, 5u);
  EXPECT_EQ(h->stats.unattributed_lines, 2u);
  EXPECT_EQ(Pod(*h, "ns", "p").samples, 15u);
  EXPECT_EQ(Pod(*h, "ns", "e\"x").samples, 2u);
  // Series past the cache (every line resolved again) and a pod's lines
  // spread over series: same again.
  for (size_t cap : {0, 1}) {
    IngestOptions small = lenient;
    small.max_cached_series = cap;
    ExpectRunsChangeNothing(text, small);
  }
  // A byte order mark is skipped on line 1 only: a metric not used, its line
  // repeated with the mark, is bad from line 2 on.
  const std::string bom_free = "\xEF\xBB\xBF" + free + " 1 1793527200\n";
  auto marked = ReadOm(bom_free + bom_free + bom_free + used + " 1 1793527200\n", 0, lenient);
  ASSERT_TRUE(marked.ok()) << marked.status().message();
  EXPECT_EQ(marked->stats.first_bad_line_numbers, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(ExpectRunsChangeNothing(bom_free + bom_free + bom_free + used + " 1 1793527200\n", lenient), 2u);
  // A line longer than 1 MiB repeated: never a run.
  const std::string long_line = "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"" + std::string(1 << 20, 'x') + "\"} 1 1793527200\n";
  EXPECT_EQ(ExpectRunsChangeNothing(long_line + long_line + used + " 1 1793527200\n" + used + " 2 1793527230\n", lenient),
            1u);
}

// The first pass reads a label set the first time it meets one, as Line()
// would (its end, its labels, UTF-8), and leaves the rest to Line(): label
// sets met before (in any chunk), escaped values, other spellings.
TEST(OpenMetricsReaderTest, FirstPassReadsLabelSetsMetForTheFirstTime) {
  const std::string a = "namespace=\"ns\",pod=\"a\",Hostname=\"h1\",UUID=\"GPU-1\"";
  const std::string b = "namespace=\"ns\",pod=\"b\",container=\"c\"";
  const std::string text = "DCGM_FI_DEV_FB_USED{" + a + "} 1 1793527200\n" +           // 0: new
                           "DCGM_FI_DEV_FB_USED{" + a + "} 2 1793527230\n" +           // a run
                           "DCGM_FI_DEV_FB_USED{" + b + "} 3 1793527200\n" +           // new
                           "DCGM_FI_DEV_GPU_UTIL{" + a + "} 4 1793527200\n" +          // met: another metric
                           "DCGM_FI_DEV_FB_USED{pod=\"e\\\"\"} 5 1793527200\n" +      // escaped: Line()'s
                           "DCGM_FI_DEV_FB_USED{pod=\"\xFF\"} 6 1793527200\n" +         // not UTF-8: Line()'s
                           "DCGM_FI_DEV_FB_USED{pod=\"x\",pod=\"y\"} 7 1793527200\n" + // duplicate: Line()'s
                           "DCGM_FI_DEV_FB_USED{pod=\"f\"} 8 1793527200 # {} 1\n" +     // exemplar: no head
                           "DCGM_FI_DEV_FB_USED{pod=\"g\"} 9 6} 7 1793527200\n";        // '}' after the set
  OpenMetricsReader::FirstPass pass;
  internal::RepeatRuns runs;
  pass.Run(text, true, &runs);
  ASSERT_EQ(runs.new_series.size(), 2u);
  const internal::RepeatRuns::NewSeries& first = runs.new_series[0];
  EXPECT_EQ(text.substr(first.key_at, first.key_size), a);
  EXPECT_EQ(first.hash, internal::ViewIndex<internal::Series>::Hash(a));
  EXPECT_EQ(first.labels.pod, "a");
  EXPECT_EQ(first.labels.hostname, "h1");
  EXPECT_EQ(first.labels.uuid, "GPU-1");
  EXPECT_TRUE(first.labels.utf8_checked);
  EXPECT_EQ(text.substr(runs.new_series[1].key_at, runs.new_series[1].key_size), b);
  EXPECT_EQ(runs.new_series[1].labels.container, "c");
  // A next chunk of lines of `a` (met already): no new label set, so the
  // pass looks for none in the next 15 chunks, then again; runs are still
  // found meanwhile.
  std::string more_a;
  for (int k = 0; k < 20; ++k) more_a += "DCGM_FI_DEV_FB_USED{" + a + "} 3 1793527260\n";
  pass.Run(more_a, true, &runs);
  EXPECT_TRUE(runs.new_series.empty());
  ASSERT_EQ(runs.runs.size(), 1u);
  const std::string c = "namespace=\"ns\",pod=\"c\"";
  const std::string other = "DCGM_FI_DEV_FB_USED{" + c + "} 1 1793527200\nDCGM_FI_DEV_FB_USED{" + c +
                            "} 2 1793527230\n";
  for (int k = 0; k < 15; ++k) {
    pass.Run(other, true, &runs);
    EXPECT_TRUE(runs.new_series.empty()) << k;
    EXPECT_EQ(runs.runs.size(), 1u) << k;  // runs are still found
  }
  pass.Run(other, true, &runs);
  ASSERT_EQ(runs.new_series.size(), 1u);
  EXPECT_EQ(runs.new_series[0].labels.pod, "c");
  // And the reader reads it all as Feed(chunk) does.
  IngestOptions lenient;
  lenient.max_bad_fraction = 0.9;
  ExpectRunsChangeNothing(text, lenient);
}

// A file written time by time: after its first lines no runs and no new
// label sets; the first pass then leaves chunks to the parser, looking again
// every kSkip + 1 chunks.
TEST(OpenMetricsReaderTest, FirstPassLeavesChunksItCannotHelpWith) {
  std::string chunk;
  for (int s = 0; s < 50; ++s) {
    chunk += "DCGM_FI_DEV_FB_USED{namespace=\"ns\",pod=\"p" + std::to_string(s) + "\"} 1 1793527200\n";
  }
  OpenMetricsReader::FirstPass pass;
  internal::RepeatRuns runs;
  pass.Run(chunk, true, &runs);  // every label set new: worth it
  EXPECT_EQ(runs.new_series.size(), 50u);
  EXPECT_EQ(runs.region_end, chunk.size());
  pass.Run(chunk, true, &runs);  // nothing to read for the parser
  EXPECT_TRUE(runs.new_series.empty() && runs.runs.empty());
  EXPECT_EQ(runs.region_end, chunk.size());
  std::string repeated;  // a chunk the pass would read whole
  for (int k = 0; k < 50; ++k) repeated += "DCGM_FI_DEV_FB_USED{pod=\"q\"} 1 1793527200\n";
  for (int k = 0; k < 15; ++k) {
    pass.Run(repeated, true, &runs);
    EXPECT_EQ(runs.region_end, 0u) << k;  // left to the parser
  }
  pass.Run(repeated, true, &runs);
  ASSERT_EQ(runs.runs.size(), 1u);
  EXPECT_EQ(runs.runs[0].count, 49u);
}

TEST(OpenMetricsReaderTest, MostlyBadInputIsAnErrorListingLines) {
  std::string text = "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
                     "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 1 1793527200\n";
  for (int i = 0; i < 12; ++i) text += "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} x 1793527200\n";
  auto h = ReadOm(text);
  ASSERT_FALSE(h.ok());
  const std::string& m = h.status().message();
  EXPECT_NE(m.find("test.om: 12 of 13 data lines are bad"), std::string::npos) << m;
  EXPECT_NE(m.find("test.om:3: value is not a number"), std::string::npos) << m;
  EXPECT_NE(m.find("test.om:12:"), std::string::npos) << m;
  EXPECT_EQ(m.find("test.om:13:"), std::string::npos) << "only the first 10 are listed: " << m;

  IngestOptions lenient;
  lenient.max_bad_fraction = 0.95;
  auto ok = ReadOm(text, 0, lenient);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->stats.bad_lines, 12u);
  EXPECT_EQ(ok->stats.first_bad_line_numbers.size(), kMaxBadExamples);
}

TEST(OpenMetricsReaderTest, GarbageAndEmptyInputs) {
  auto json = ReadOm("{\"status\":\"success\"}\n");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("does not start with a metric name"), std::string::npos);
  auto empty = ReadOm("# just a comment\n\n# EOF\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("test.om: no samples"), std::string::npos);
}

TEST(OpenMetricsReaderTest, IgnoredMetricsAreNotValidatedBeyondTheirName) {
  std::string text =
      "DCGM_FI_DEV_MEM_COPY_UTIL{broken 1\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 7 1793527200\n"
      "DCGM_FI_DEV_FB_FREE= 3\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.ignored_metric_lines, 1u);
  EXPECT_EQ(h->stats.bad_lines, 1u);  // '=' right after a name is not a sample line
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{3}));
}

// A line's metric name is compared with the previous line's before it is
// scanned: a name that extends the previous one, or that is followed by
// something else than '{' or a blank, is read for what it is, and a name
// first met on a bad line is classified and recorded when it is next met.
TEST(OpenMetricsReaderTest, NamesExtendingThePreviousOneAreOtherMetrics) {
  std::string text =
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 7 1793527200\n"
      "DCGM_FI_DEV_FB_USED_X{namespace=\"a\",pod=\"b\"} 99 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 8 1793527230\n"
      "DCGM_FI_DEV_FB_USED:{namespace=\"a\",pod=\"b\"} 98 1793527230\n"
      "DCGM_FI_DEV_FB_USED 9 1793527260\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"}\n"
      "DCGM_FI_DEV_FB_USED=\n"
      "DCGM_FI_DEV_GPU_UTIL(x) 5 1793527260\n"
      "DCGM_FI_DEV_GPU_UTIL{namespace=\"a\",pod=\"b\"} 50 1793527260\n"
      "DCGM_FI_DEV_GPU_UTIL\t{namespace=\"a\",pod=\"b\"} 60 1793527290\n"
      "DCGM_FI_DEV_GPU_UTI{namespace=\"a\",pod=\"b\"} 97 1793527290\n"
      "DCGM_FI_DEV_GPU_UTIL{namespace=\"a\",pod=\"b\"} 70 1793527320\n";
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}}) {
    auto h = ReadOm(text, chunk);
    ASSERT_TRUE(h.ok()) << h.status().message();
    const PodUsage& b = Pod(*h, "a", "b");
    EXPECT_EQ(b.peak_memory_mib, 8) << chunk;
    EXPECT_EQ(b.gpu_util.count(), 2u);
    EXPECT_DOUBLE_EQ(b.gpu_util.max(), 0.7);
    EXPECT_EQ(h->stats.ignored_metric_lines, 3u);  // _X, USED: and UTI
    // USED without labels, and UTIL followed by a tab: no label set there.
    EXPECT_EQ(h->stats.unattributed_lines, 2u);
    EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{6, 7, 8}));
    EXPECT_EQ(h->stats.metrics_seen,
              (std::set<std::string>{"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_USED:", "DCGM_FI_DEV_FB_USED_X",
                                     "DCGM_FI_DEV_GPU_UTI", "DCGM_FI_DEV_GPU_UTIL"}));
  }
}

TEST(OpenMetricsReaderTest, DataAfterEofIsBad) {
  std::string text =
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 7 1793527200\n# EOF\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 9 1793527260\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{3}));
  EXPECT_EQ(h->stats.first_bad_reasons[0], "data after # EOF");
  EXPECT_EQ(Pod(*h, "a", "b").peak_memory_mib, 7);
}

TEST(OpenMetricsReaderTest, LabelSetExtendingThePreviousOneIsAnotherSeries) {
  std::string text =
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 7 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\",pod2=\"x\"} 8 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"bc\"} 9 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"}x 9 1793527200\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(Pod(*h, "a", "b").peak_memory_mib, 8);
  EXPECT_EQ(Pod(*h, "a", "bc").peak_memory_mib, 9);
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{4}));
}

TEST(OpenMetricsReaderTest, PodOnTwoGpusHasTwoDevicesAndLastSeenLabels) {
  std::string text =
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\",UUID=\"GPU-1\",hostname=\"n1\"} 7 1793527260\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\",UUID=\"GPU-2\",hostname=\"n1\"} 9 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\",UUID=\"GPU-1\",hostname=\"n1\"} 8 1793527230\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"c\",gpu=\"3\",Hostname=\"n2\"} 8 1793527230\n";
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok());
  const PodUsage& b = Pod(*h, "a", "b");
  EXPECT_EQ(b.gpus, (std::set<std::string>{"GPU-1", "GPU-2"}));
  EXPECT_EQ(b.gpu_uuid, "GPU-1");  // last seen
  EXPECT_EQ(b.peak_memory_mib, 9);
  EXPECT_EQ(b.first_ts_ms, 1793527200000);  // min, although not first in the file
  EXPECT_EQ(b.last_ts_ms, 1793527260000);
  EXPECT_EQ(Pod(*h, "a", "c").gpus, (std::set<std::string>{"n2/3"}));
}

// A pod's devices are kept once each however often its lines switch
// between them (time order revisits every series), past the few that are
// looked up one by one.
TEST(OpenMetricsReaderTest, PodOnManyGpusKeepsEachDeviceOnce) {
  std::string text;
  for (int t = 0; t < 3; ++t) {
    for (int g = 0; g < 12; ++g) {
      text += "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"big\",gpu=\"" + std::to_string(g) +
              "\",Hostname=\"n1\"} " + std::to_string(10 + g) + " " + std::to_string(1793527200 + 30 * t) + "\n";
    }
  }
  auto h = ReadOm(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  const PodUsage& u = Pod(*h, "ml", "big");
  EXPECT_EQ(u.gpus.size(), 12u);
  EXPECT_EQ(u.gpus.count("n1/0"), 1u);
  EXPECT_EQ(u.gpus.count("n1/11"), 1u);
  EXPECT_EQ(u.samples, 36u);
  EXPECT_EQ(u.peak_memory_mib, 21);
}

TEST(OpenMetricsReaderTest, ChunkBoundariesDoNotMatter) {
  SyntheticOptions o;
  o.series = 41;
  o.samples_per_series = 7;
  o.order = SyntheticOptions::Order::kTime;
  auto text = SyntheticHistoryText(o);
  ASSERT_TRUE(text.ok());
  // Some bad lines and a final line without newline, to cover every path.
  std::string input = *text;
  input.insert(input.find('\n', input.size() / 2) + 1,
               "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} NaN 1793527200\r\n");
  input.resize(input.size() - std::string("# EOF\n").size());
  input += "DCGM_FI_DEV_GPU_UTIL{namespace=\"a\",pod=\"b\"} 50 1793527200";
  auto whole = ReadOm(input);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  std::string want = Describe(*whole);
  EXPECT_EQ(whole->stats.bad_lines, 1u);
  auto bytewise = ReadOm(input, 1);
  ASSERT_TRUE(bytewise.ok());
  EXPECT_EQ(Describe(*bytewise), want);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 5; ++trial) {
    size_t chunk = 1 + rng() % 700;
    auto h = ReadOm(input, chunk);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(Describe(*h), want) << "chunk " << chunk;
  }
  ExpectRunsChangeNothing(input);
}

TEST(OpenMetricsReaderTest, SyntheticHistoryGivesTheExpectedCounts) {
  for (auto order : {SyntheticOptions::Order::kSeries, SyntheticOptions::Order::kTime}) {
    for (bool exported : {false, true}) {
      SyntheticOptions o;
      o.series = 83;
      o.samples_per_series = 11;
      o.order = order;
      o.exported_labels = exported;
      auto text = SyntheticHistoryText(o);
      ASSERT_TRUE(text.ok());
      auto h = ReadOm(*text);
      ASSERT_TRUE(h.ok()) << h.status().message();
      SyntheticCounts want = ExpectedCounts(o);
      EXPECT_EQ(h->stats.samples, want.samples);
      EXPECT_EQ(h->stats.unattributed_lines, want.unattributed);
      EXPECT_EQ(h->stats.ignored_metric_lines, want.ignored);
      EXPECT_EQ(h->stats.bad_lines, 0u) << Describe(*h);
      EXPECT_EQ(h->pods.size(), want.pods);
      EXPECT_EQ(h->stats.data_lines, static_cast<uint64_t>(o.series * o.samples_per_series));
      for (const auto& [key, u] : h->pods) {
        if (exported && key.namespace_ == "gpu-operator") continue;  // idle devices
        EXPECT_EQ(key.namespace_.rfind("team-", 0), 0u) << key.namespace_;
        EXPECT_EQ(u.gpus.size(), 1u);
        EXPECT_EQ(u.container, "server");
      }
    }
  }
}

TEST(OpenMetricsReaderTest, SeriesOrderAndTimeOrderGiveTheSameHistory) {
  SyntheticOptions o;
  o.series = 60;
  o.samples_per_series = 20;
  auto a = ReadOm(*SyntheticHistoryText(o));
  o.order = SyntheticOptions::Order::kTime;
  auto b = ReadOm(*SyntheticHistoryText(o));
  o.exported_labels = true;
  auto c = ReadOm(*SyntheticHistoryText(o));
  o.order = SyntheticOptions::Order::kSeries;
  auto d = ReadOm(*SyntheticHistoryText(o));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
  EXPECT_EQ(testing::DescribePods(*a), testing::DescribePods(*b));
  EXPECT_EQ(testing::DescribePods(*c), testing::DescribePods(*d));
  // Exported labels name the same workload pods (plus the exporter pods
  // that idle devices are attributed to).
  for (const auto& [key, u] : a->pods) {
    auto it = c->pods.find(key);
    ASSERT_NE(it, c->pods.end()) << key.pod;
    EXPECT_EQ(it->second.peak_memory_mib, u.peak_memory_mib);
  }
}

TEST(OpenMetricsReaderTest, SeriesCacheLimitDoesNotChangeTheResult) {
  SyntheticOptions o;
  o.series = 45;
  o.samples_per_series = 6;
  for (auto order : {SyntheticOptions::Order::kSeries, SyntheticOptions::Order::kTime}) {
    o.order = order;
    std::string text = *SyntheticHistoryText(o);
    text.insert(text.find('\n', text.size() / 3) + 1,
                "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} bad 1793527200\n");
    auto want = ReadOm(text);
    ASSERT_TRUE(want.ok());
    for (size_t cap : {0, 1, 2, 7}) {
      IngestOptions limited;
      limited.max_cached_series = cap;
      auto h = ReadOm(text, 0, limited);
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(Describe(*h), Describe(*want)) << "cap " << cap;
      const size_t in_runs = ExpectRunsChangeNothing(text, limited);
      if (order == SyntheticOptions::Order::kSeries) {
        EXPECT_GT(in_runs, 0u);
      }
    }
  }
}

TEST(OpenMetricsReaderTest, MemoryDependsOnPodsNotSamples) {
  SyntheticOptions o;
  o.series = 40;
  o.samples_per_series = 5;
  auto few = ReadOm(*SyntheticHistoryText(o));
  o.samples_per_series = 2000;
  auto many = ReadOm(*SyntheticHistoryText(o));
  ASSERT_TRUE(few.ok() && many.ok());
  EXPECT_EQ(many->stats.samples, 400 * few->stats.samples);
  ASSERT_EQ(few->pods.size(), many->pods.size());
  EXPECT_EQ(many->pods.size(), ExpectedCounts(o).pods);
  auto it = many->pods.begin();
  for (const auto& [key, u] : few->pods) {
    ASSERT_EQ(key, it->first);
    EXPECT_LE(u.compute.MemoryBytes(), ComputeHistogram::kMaxMemoryBytes);
    EXPECT_LE(u.gpu_util.MemoryBytes(), ComputeHistogram::kMaxMemoryBytes);
    EXPECT_LE(it->second.compute.MemoryBytes(), ComputeHistogram::kMaxMemoryBytes);
    EXPECT_LE(it->second.gpu_util.MemoryBytes(), ComputeHistogram::kMaxMemoryBytes);
    EXPECT_EQ(u.gpus.size(), it->second.gpus.size());
    ++it;
  }
}

TEST(OpenMetricsReaderTest, LinesLongerThanOneMebibyteAreBad) {
  std::string text = "DCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"" + std::string(1 << 20, 'x') +
                     "\"} 1 1793527200\nDCGM_FI_DEV_FB_USED{namespace=\"a\",pod=\"b\"} 2 1793527200\n";
  auto h = ReadOm(text, 4096);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{1}));
  EXPECT_EQ(h->pods.size(), 1u);
}

// Issue 14: a non-UTF-8 byte quoted from a bad line aborted `-o json`.
// Quotes are valid UTF-8 (invalid bytes as \xNN); a label value that is not
// UTF-8 makes its line bad.
TEST(OpenMetricsReaderTest, QuotesAndLabelsAreValidUtf8) {
  auto h = ReadOm(
      "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a\"} 12\xFF\xC3 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"b\xFE\"} 12 1793527200\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a\"} 13 1793527230\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"c\"} 14 1793527230\n"
      "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"caf\xC3\xA9\"} 15 1793527230\n");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->stats.first_bad_line_numbers, (std::vector<uint64_t>{1, 2}));
  for (const std::string& reason : h->stats.first_bad_reasons) EXPECT_TRUE(IsValidUtf8(reason)) << reason;
  EXPECT_NE(h->stats.first_bad_reasons[0].find("\\xFF\\xC3"), std::string::npos) << h->stats.first_bad_reasons[0];
  EXPECT_EQ(h->stats.first_bad_reasons[1].rfind("a label value is not valid UTF-8: ", 0), 0u);
  EXPECT_NE(h->stats.first_bad_reasons[1].find("b\\xFE"), std::string::npos);
  EXPECT_EQ(h->pods.size(), 3u);
  EXPECT_EQ(Pod(*h, "ml", "caf\xC3\xA9").peak_memory_mib, 15);
}

}  // namespace
}  // namespace kubeon::metrics
