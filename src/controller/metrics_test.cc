// Tests for metrics.h: the text exposition format 0.0.4 (HELP/TYPE lines,
// label escaping, cumulative histogram buckets ending at +Inf, _sum, _count).
#include "controller/metrics.h"

#include <gtest/gtest.h>

namespace kubeon::controller {
namespace {

TEST(Metrics, CountersAndGaugesRenderWithSortedLabels) {
  Metrics m;
  m.Declare("t_total", "Things.", Metrics::Type::kCounter, {"policy", "outcome"});
  m.Declare("t_gauge", "A level.", Metrics::Type::kGauge, {});
  m.Add("t_total", {"b", "done"});
  m.Add("t_total", {"a", "done"}, 2);
  m.Add("t_total", {"a", "done"});
  m.Set("t_gauge", {}, 1.5);
  EXPECT_EQ(m.Render(),
            "# HELP t_gauge A level.\n"
            "# TYPE t_gauge gauge\n"
            "t_gauge 1.5\n"
            "# HELP t_total Things.\n"
            "# TYPE t_total counter\n"
            "t_total{policy=\"a\",outcome=\"done\"} 3\n"
            "t_total{policy=\"b\",outcome=\"done\"} 1\n");
  EXPECT_EQ(m.Value("t_total", {"a", "done"}), 3);
  EXPECT_EQ(m.Value("t_total", {"c", "done"}), 0);
}

TEST(Metrics, LabelValuesAreEscaped) {
  Metrics m;
  m.Declare("e", "E.", Metrics::Type::kGauge, {"v"});
  m.Set("e", {"a\"b\\c\nd"}, 1);
  EXPECT_NE(m.Render().find("e{v=\"a\\\"b\\\\c\\nd\"} 1\n"), std::string::npos) << m.Render();
}

TEST(Metrics, HistogramBucketsAreCumulative) {
  Metrics m;
  m.Declare("d_seconds", "Durations.", Metrics::Type::kHistogram, {"policy"}, {1, 10});
  m.Observe("d_seconds", {"p"}, 0.5);
  m.Observe("d_seconds", {"p"}, 5);
  m.Observe("d_seconds", {"p"}, 50);
  EXPECT_EQ(m.Render(),
            "# HELP d_seconds Durations.\n"
            "# TYPE d_seconds histogram\n"
            "d_seconds_bucket{policy=\"p\",le=\"1\"} 1\n"
            "d_seconds_bucket{policy=\"p\",le=\"10\"} 2\n"
            "d_seconds_bucket{policy=\"p\",le=\"+Inf\"} 3\n"
            "d_seconds_sum{policy=\"p\"} 55.5\n"
            "d_seconds_count{policy=\"p\"} 3\n");
}

TEST(Metrics, ForgetDropsAPolicysSeries) {
  Metrics m;
  DeclareControllerMetrics(m);
  m.Set("kubeon_gpu_gpus_freed", {"a"}, 4);
  m.Set("kubeon_gpu_gpus_freed", {"b"}, 2);
  m.Forget("kubeon_gpu_gpus_freed", "policy", "a");
  const std::string text = m.Render();
  EXPECT_EQ(text.find("kubeon_gpu_gpus_freed{policy=\"a\"}"), std::string::npos);
  EXPECT_NE(text.find("kubeon_gpu_gpus_freed{policy=\"b\"} 2"), std::string::npos);
  EXPECT_NE(text.find("kubeon_gpu_leader 0\n"), std::string::npos) << "an unlabelled gauge exists from the start";
  EXPECT_NE(text.find("# TYPE kubeon_gpu_step_duration_seconds histogram"), std::string::npos);
}

}  // namespace
}  // namespace kubeon::controller
