// Tests for promql.h: durations, numbers, times and the exact query texts
// (the queries are a contract with the server: a change here changes what
// Prometheus computes, and prometheus_history_test checks the results).
#include "metrics/promql.h"

#include <gtest/gtest.h>

#include <string>

namespace kubeon::metrics::promql {
namespace {

TEST(PromqlTest, DurationUsesTheLargestExactUnit) {
  EXPECT_EQ(Duration(86400000), "1d");
  EXPECT_EQ(Duration(14 * 86400000LL), "14d");
  EXPECT_EQ(Duration(3600000), "1h");
  EXPECT_EQ(Duration(90 * 60000), "90m");
  EXPECT_EQ(Duration(30000), "30s");
  EXPECT_EQ(Duration(86400000 - 1), "86399999ms");
  EXPECT_EQ(Duration(1), "1ms");
}

TEST(PromqlTest, NumberIsTheShortestRoundTrip) {
  EXPECT_EQ(Number(0.99), "0.99");
  EXPECT_EQ(Number(0.5), "0.5");
  EXPECT_EQ(Number(1), "1");
  EXPECT_EQ(Number(0.999), "0.999");
  EXPECT_EQ(std::stod(Number(0.1 + 0.2)), 0.1 + 0.2);
}

TEST(PromqlTest, UnixSecondsKeepsMilliseconds) {
  EXPECT_EQ(UnixSeconds(1790000000000), "1790000000");
  EXPECT_EQ(UnixSeconds(1790000000123), "1790000000.123");
  EXPECT_EQ(UnixSeconds(1790000000005), "1790000000.005");
  EXPECT_EQ(UnixSeconds(0), "0");
  EXPECT_EQ(UnixSeconds(-1500), "-2.500");
}

TEST(PromqlTest, SelectorAddsMatchersInBraces) {
  EXPECT_EQ(Selector("DCGM_FI_DEV_FB_USED", ""), "DCGM_FI_DEV_FB_USED");
  EXPECT_EQ(Selector("DCGM_FI_DEV_FB_USED", "cluster=\"prod\""), "DCGM_FI_DEV_FB_USED{cluster=\"prod\"}");
}

TEST(PromqlTest, PeakQueriesGroupByThePodLabels) {
  EXPECT_EQ(MaxOverTime("DCGM_FI_DEV_FB_USED", "", 86400000 - 1),
            "max by (namespace, pod, exported_namespace, exported_pod) "
            "(max_over_time(DCGM_FI_DEV_FB_USED[86399999ms]))");
  EXPECT_EQ(QuantileOverTime("DCGM_FI_PROF_GR_ENGINE_ACTIVE", 0.99, "cluster=\"a\"", 3600000),
            "max by (namespace, pod, exported_namespace, exported_pod) "
            "(quantile_over_time(0.99, DCGM_FI_PROF_GR_ENGINE_ACTIVE{cluster=\"a\"}[1h]))");
}

TEST(PromqlTest, SampleCountKeepsTheThreeMetricsApartUntilTheSum) {
  EXPECT_EQ(SampleCount("", 60000),
            "sum by (namespace, pod, exported_namespace, exported_pod) ("
            "count_over_time(DCGM_FI_DEV_FB_USED[1m]) or "
            "label_replace(count_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[1m]), \"kubeon_metric\", \"gr\", \"\", "
            "\"\") or "
            "label_replace(count_over_time(DCGM_FI_DEV_GPU_UTIL[1m]), \"kubeon_metric\", \"util\", \"\", \"\"))");
}

TEST(PromqlTest, BadSeriesCountFindsNaNInfAndNegativeSamplesOfEachMetric) {
  const std::string sum = "sum_over_time(DCGM_FI_DEV_FB_USED{x=\"y\"}[1h])";
  EXPECT_EQ(BadSeriesCount("x=\"y\"", 3600000).substr(0, 200),
            ("count by (namespace, pod, exported_namespace, exported_pod) (label_replace((" + sum + " != " + sum +
             ") or (abs(" + sum + ") == Inf) or (min_over_time(DCGM_FI_DEV_FB_USED{x=\"y\"}[1h]) < 0), "
             "\"kubeon_metric\", \"fb\", \"\", \"\")")
                .substr(0, 200));
  const std::string q = BadSeriesCount("", 60000);
  for (const char* m : {"DCGM_FI_DEV_FB_USED", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_GPU_UTIL"}) {
    EXPECT_NE(q.find(std::string("sum_over_time(") + m + "[1m]) != sum_over_time(" + m + "[1m])"), std::string::npos) << m;
  }
}

TEST(PromqlTest, TimestampSubqueriesKeepEverySeriesLabel) {
  const std::string labels =
      "namespace, pod, container, exported_namespace, exported_pod, exported_container, Hostname, hostname, "
      "gpu, UUID, modelName, GPU_I_PROFILE, GPU_I_ID";
  EXPECT_EQ(FirstTimestamp("DCGM_FI_DEV_FB_USED", "", 86400000 - 1, 60000),
            "min by (" + labels + ") (min_over_time(timestamp(count_over_time(DCGM_FI_DEV_FB_USED[1m]))"
            "[86399999ms:1m]))");
  EXPECT_EQ(LastTimestamp("DCGM_FI_DEV_FB_USED", "x=\"y\"", 7200000, 30000),
            "max by (" + labels + ") ((max_over_time(timestamp(count_over_time(DCGM_FI_DEV_FB_USED{x=\"y\"}[30s]))"
            "[2h:30s]) - 30) or label_replace(timestamp(DCGM_FI_DEV_FB_USED{x=\"y\"}), \"kubeon_instant\", \"1\", "
            "\"\", \"\"))");
}

}  // namespace
}  // namespace kubeon::metrics::promql
