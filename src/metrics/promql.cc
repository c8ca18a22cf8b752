// See promql.h for the contract.
#include "metrics/promql.h"

#include <charconv>
#include <cstdio>

#include "metrics/history.h"

namespace kubeon::metrics::promql {
namespace {

std::string Range(int64_t range_ms) { return "[" + Duration(range_ms) + "]"; }

std::string CountTerm(std::string_view metric, std::string_view matchers, int64_t range_ms,
                      std::string_view tag) {
  std::string count = "count_over_time(" + Selector(metric, matchers) + Range(range_ms) + ")";
  if (tag.empty()) return count;
  return "label_replace(" + count + ", \"kubeon_metric\", \"" + std::string(tag) + "\", \"\", \"\")";
}

// timestamp(count_over_time(M[step])) inside a subquery is the step time t
// whenever a sample lies in [t - step, t].  (timestamp(M) of the samples
// themselves takes a path of Prometheus 2.x that re-seeks at every step:
// 30x slower on a day of 1-minute steps.)
std::string StepsWithSamples(std::string_view fn, std::string_view metric, std::string_view matchers,
                             int64_t range_ms, int64_t step_ms) {
  return std::string(fn) + "_over_time(timestamp(count_over_time(" + Selector(metric, matchers) +
         Range(step_ms) + "))[" + Duration(range_ms) + ":" + Duration(step_ms) + "])";
}

}  // namespace

std::string Duration(int64_t ms) {
  struct Unit {
    int64_t ms;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}};
  for (const Unit& u : kUnits) {
    if (ms % u.ms == 0) return std::to_string(ms / u.ms) + u.name;
  }
  return std::to_string(ms) + "ms";  // unreachable: every ms is a whole number of ms
}

std::string Number(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  if (ec != std::errc()) return std::to_string(value);
  return std::string(buf, end);
}

std::string UnixSeconds(int64_t ms) {
  int64_t secs = ms / 1000;
  int64_t frac = ms % 1000;
  if (frac < 0) {  // before 1970: keep the fraction positive
    frac += 1000;
    --secs;
  }
  if (frac == 0) return std::to_string(secs);
  char buf[8];
  std::snprintf(buf, sizeof(buf), ".%03d", static_cast<int>(frac));
  return std::to_string(secs) + buf;
}

std::string Selector(std::string_view metric, std::string_view matchers) {
  std::string out(metric);
  if (!matchers.empty()) out += "{" + std::string(matchers) + "}";
  return out;
}

std::string MaxOverTime(std::string_view metric, std::string_view matchers, int64_t range_ms) {
  return std::string("max by (") + kPodLabels + ") (max_over_time(" + Selector(metric, matchers) +
         Range(range_ms) + "))";
}

std::string QuantileOverTime(std::string_view metric, double q, std::string_view matchers,
                             int64_t range_ms) {
  return std::string("max by (") + kPodLabels + ") (quantile_over_time(" + Number(q) + ", " +
         Selector(metric, matchers) + Range(range_ms) + "))";
}

std::string SampleCount(std::string_view matchers, int64_t range_ms) {
  return std::string("sum by (") + kPodLabels + ") (" + CountTerm(kFbUsedMetric, matchers, range_ms, "") +
         " or " + CountTerm(kGrEngineActiveMetric, matchers, range_ms, "gr") + " or " +
         CountTerm(kGpuUtilMetric, matchers, range_ms, "util") + ")";
}

std::string BadSeriesCount(std::string_view matchers, int64_t range_ms) {
  auto term = [&](std::string_view metric, std::string_view tag) {
    const std::string sum = "sum_over_time(" + Selector(metric, matchers) + Range(range_ms) + ")";
    const std::string bad = "(" + sum + " != " + sum + ") or (abs(" + sum + ") == Inf) or (min_over_time(" +
                            Selector(metric, matchers) + Range(range_ms) + ") < 0)";
    return "label_replace(" + bad + ", \"kubeon_metric\", \"" + std::string(tag) + "\", \"\", \"\")";
  };
  return std::string("count by (") + kPodLabels + ") (" + term(kFbUsedMetric, "fb") + " or " +
         term(kGrEngineActiveMetric, "gr") + " or " + term(kGpuUtilMetric, "util") + ")";
}

std::string FirstTimestamp(std::string_view metric, std::string_view matchers, int64_t range_ms,
                           int64_t step_ms) {
  return "min by (" + std::string(kSeriesLabels) + ") (" +
         StepsWithSamples("min", metric, matchers, range_ms, step_ms) + ")";
}

std::string LastTimestamp(std::string_view metric, std::string_view matchers, int64_t range_ms,
                          int64_t step_ms) {
  return "max by (" + std::string(kSeriesLabels) + ") ((" +
         StepsWithSamples("max", metric, matchers, range_ms, step_ms) + " - " + Number(step_ms / 1000.0) +
         ") or label_replace(timestamp(" + Selector(metric, matchers) +
         "), \"kubeon_instant\", \"1\", \"\", \"\"))";
}

}  // namespace kubeon::metrics::promql
