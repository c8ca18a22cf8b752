#include "metrics/memory_series.h"

#include <httplib.h>

#include <gtest/gtest.h>

#include <thread>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace kubeon::metrics {
namespace {

TEST(DownsampleMax, KeepsEveryPeakAndAtMostMaxPoints) {
  std::vector<MemoryPoint> s;
  for (int i = 0; i < 1000; ++i) s.push_back({i * 1000LL, static_cast<double>(i % 10)});
  s[537].mib = 999;  // a single spike
  std::vector<MemoryPoint> d = DownsampleMax(s, 50);
  EXPECT_LE(d.size(), 50u);
  EXPECT_GE(d.size(), 45u);
  double max = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    max = std::max(max, d[i].mib);
    if (i) {
      EXPECT_LT(d[i - 1].unix_ms, d[i].unix_ms);
    }
  }
  EXPECT_EQ(max, 999);
  bool spike_at_its_time = false;
  for (const auto& p : d) spike_at_its_time |= p.unix_ms == 537000 && p.mib == 999;
  EXPECT_TRUE(spike_at_its_time);
  // Every other bucket of ten samples 0..9 keeps its 9.
  EXPECT_EQ(d.front().mib, 9);
}

TEST(DownsampleMax, ShortSeriesUnchanged) {
  std::vector<MemoryPoint> s = {{1, 5}, {2, 7}};
  EXPECT_EQ(DownsampleMax(s, 200), s);
  EXPECT_EQ(DownsampleMax(s, 1).size(), 1u);
  EXPECT_EQ(DownsampleMax(s, 1)[0].mib, 7);
  EXPECT_TRUE(DownsampleMax({}, 10).empty());
}

TEST(ReadMemorySamples, SelectedPodsMaxPerTimestampExportedLabelsWin) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("memory_series_test_" + std::to_string(::getpid()) + ".om")).string();
  {
    std::ofstream f(path);
    f << "# TYPE DCGM_FI_DEV_FB_USED gauge\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a-1\"} 100 1000\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"a-2\"} 300 1000\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"b-1\"} 5000 1000\n"
         "DCGM_FI_DEV_FB_USED{namespace=\"gpu-operator\",pod=\"dcgm\",exported_namespace=\"ml\",exported_pod=\"a-1\"} 250 1060\n"
         "DCGM_FI_PROF_GR_ENGINE_ACTIVE{namespace=\"ml\",pod=\"a-1\"} 0.5 1120\n"
         "# EOF\n";
  }
  auto s = ReadMemorySamples({path}, {{"ml", "a-1"}, {"ml", "a-2"}});
  std::filesystem::remove(path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0], (MemoryPoint{1000000, 300}));
  EXPECT_EQ((*s)[1], (MemoryPoint{1060000, 250}));
}

TEST(ReadMemorySamples, MissingFileNamesIt) {
  auto s = ReadMemorySamples({"/nonexistent/history.om"}, {{"ml", "a"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/nonexistent/history.om"), std::string::npos);
}

TEST(MemorySeriesPromql, BothLabelSchemesEscapedPodNames) {
  MemoryQuery q;
  q.namespace_ = "ml";
  q.pods = {"infer-1", "web.a"};
  q.selector = "cluster=\"prod\"";
  const std::string promql = MemorySeriesPromql(q, 60000);
  EXPECT_NE(promql.find("cluster=\"prod\",namespace=\"ml\",pod=~\"infer-1|web\\\\.a\""), std::string::npos) << promql;
  EXPECT_NE(promql.find(" or "), std::string::npos);
  EXPECT_NE(promql.find("exported_namespace=\"ml\",exported_pod=~\"infer-1|web\\\\.a\""), std::string::npos);
  EXPECT_NE(promql.find("[1m]"), std::string::npos);
}

// A fake Prometheus answering /api/v1/query_range.
class FakePrometheus {
 public:
  explicit FakePrometheus(std::string answer) : answer_(std::move(answer)) {
    server_.Post("/api/v1/query_range", [this](const httplib::Request& req, httplib::Response& res) {
      query_ = req.get_param_value("query");
      step_ = req.get_param_value("step");
      res.set_content(answer_, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 5000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~FakePrometheus() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string query_, step_;

 private:
  std::string answer_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(QueryMemorySeries, MaxOverThePodsBothSchemesOthersIgnored) {
  using nlohmann::json;
  json answer = {{"status", "success"},
                 {"data",
                  {{"resultType", "matrix"},
                   {"result",
                    {{{"metric", {{"namespace", "ml"}, {"pod", "a-1"}}}, {"values", {{100, "10"}, {160, "50"}}}},
                     {{"metric", {{"namespace", "gpu-operator"}, {"pod", "dcgm"}, {"exported_namespace", "ml"},
                                  {"exported_pod", "a-2"}}},
                      {"values", {{100, "30"}, {160, "20"}, {220, "NaN"}}}},
                     {{"metric", {{"namespace", "ml"}, {"pod", "b-1"}}}, {"values", {{100, "999"}}}}}}}}};
  FakePrometheus prom(answer.dump());
  PrometheusHttpOptions o;
  o.url = prom.url();
  auto http = PrometheusHttp::Create(o);
  ASSERT_TRUE(http.ok()) << http.status().message();
  MemoryQuery q;
  q.namespace_ = "ml";
  q.pods = {"a-1", "a-2"};
  q.start_ms = 0;
  q.end_ms = 600000;
  auto s = QueryMemorySeries(**http, q, 10);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[0], (MemoryPoint{100000, 30}));
  EXPECT_EQ((*s)[1], (MemoryPoint{160000, 50}));
  EXPECT_EQ(prom.step_, "1m");  // 10 minutes / 10 points
  EXPECT_NE(prom.query_.find("max_over_time"), std::string::npos);
}


// QueryMemorySeries of pod ml/<pod> over [0, end_ms] against a fake server
// giving `answer`.
Result<std::vector<MemoryPoint>> Ask(const std::string& answer, int64_t end_ms, const std::string& pod = "a-1") {
  FakePrometheus prom(answer);
  PrometheusHttpOptions o;
  o.url = prom.url();
  auto http = PrometheusHttp::Create(o);
  if (!http.ok()) return http.status();
  MemoryQuery q;
  q.namespace_ = "ml";
  q.pods = {pod};
  q.end_ms = end_ms;
  return QueryMemorySeries(**http, q, 10);
}

TEST(QueryMemorySeries, ServerErrorNamesIt) {
  const std::string refusal = R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})";
  auto s = Ask(refusal, 1000);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("parse error at char 3"), std::string::npos) << s.status().message();
  EXPECT_FALSE(Ask(refusal, 1000, "Bad Pod").ok());
}

// Issue 14: hostile answers (deep nesting, fields of the wrong type) are
// errors or ignored elements, never a crash or an exception.
TEST(QueryMemorySeries, HostileAnswersAreErrorsNotCrashes) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::pair<std::string, std::string> cases[] = {
      {R"({"status":"success","data":)" + deep + "}", "nested more than 64 levels deep"},
      {R"({"status":5,"error":["x"]})", "no error message"},
      {R"({"status":"success","data":{"resultType":7,"result":[]}})", "without a matrix"},
      {R"({"status":"success","data":{"resultType":"matrix"}})", "without a matrix"},
      {R"({"status":"success","data":[]})", "without a matrix"},
  };
  for (const auto& [answer, expect] : cases) {
    auto s = Ask(answer, 1000);
    ASSERT_FALSE(s.ok()) << expect;
    EXPECT_NE(s.status().message().find(expect), std::string::npos) << s.status().message();
  }
  // Elements of the wrong shape are skipped.
  auto s = Ask(R"({"status":"success","data":{"resultType":"matrix","result":[5,{"metric":[]},)"
                 R"({"metric":{"namespace":3,"pod":"a-1"},"values":[[1,"2"]]},)"
                 R"({"metric":{"namespace":"ml","pod":"a-1"},"values":[[1e300,"2"],["x","3"],[60,"4"]]}]}})",
                 600000);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0], (MemoryPoint{60000, 4}));
}

}  // namespace
}  // namespace kubeon::metrics
