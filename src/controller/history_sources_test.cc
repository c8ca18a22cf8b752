#include "controller/history_sources.h"

#include <httplib.h>

#include <gtest/gtest.h>

#include <thread>

#include <filesystem>
#include <fstream>

namespace kubeon::controller {
namespace {

// A plan of policy "p" with Deployment ml/infer (pod infer-1); returns it.
plan::WorkloadDecision PlanInfer(PolicyViews& views) {
  PolicyView v;
  v.name = "p";
  v.plan = plan::Plan();
  plan::WorkloadDecision w;
  w.ref = {"ml", "Deployment", "infer"};
  w.pods = {"infer-1"};
  v.plan->workloads.push_back(w);
  views.Put(v);
  return w;
}

TEST(FileHistorySource, ReadsThePlannedPodsDownsampled) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("history_sources_test_" + std::to_string(::getpid()) + ".om")).string();
  {
    std::ofstream f(path);
    for (int i = 0; i < 100; ++i) {
      f << "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"infer-1\"} " << (i == 42 ? 9000 : 1000 + i) << " "
        << 1000 + i * 60 << "\n";
      f << "DCGM_FI_DEV_FB_USED{namespace=\"ml\",pod=\"other-1\"} 20000 " << 1000 + i * 60 << "\n";
    }
  }
  PolicyViews views;
  const plan::WorkloadDecision w = PlanInfer(views);
  FileHistorySource source(views, {path});
  auto s = source.MemoryMiB(w.ref, 10);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_LE(s->size(), 10u);
  double max = 0;
  for (const auto& p : *s) max = std::max(max, p.value);
  EXPECT_EQ(max, 9000);  // the spike survives; other-1's 20000 is not this workload's
  // Each point sits at its bucket's largest sample: the first bucket's is its last (values rise).
  EXPECT_EQ(s->front().unix_seconds, 1000 + 9 * 60);
  EXPECT_EQ(s->front().value, 1009);
  auto unknown = source.MemoryMiB({"ml", "Deployment", "nope"}, 10);
  EXPECT_FALSE(unknown.ok());
  std::filesystem::remove(path);
}

TEST(PrometheusHistorySource, QueriesThePlannedPodsOverTheLookback) {
  httplib::Server server;
  std::string query, start, end;
  server.Post("/api/v1/query_range", [&](const httplib::Request& req, httplib::Response& res) {
    query = req.get_param_value("query");
    start = req.get_param_value("start");
    end = req.get_param_value("end");
    res.set_content(R"({"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"namespace":"ml","pod":"infer-1"},"values":[[1000,"700"],[1060,"900"]]}]}})",
                    "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  PolicyViews views;
  const plan::WorkloadDecision w = PlanInfer(views);
  metrics::PrometheusHttpOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(port);
  auto http = metrics::PrometheusHttp::Create(o);
  ASSERT_TRUE(http.ok());
  PrometheusHistorySource source(views, std::move(*http), "cluster=\"prod\"", std::chrono::hours(24),
                                 [] { return std::chrono::system_clock::time_point(std::chrono::seconds(86400 * 2)); });
  auto s = source.MemoryMiB(w.ref, 100);
  server.stop();
  t.join();
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[1].unix_seconds, 1060);
  EXPECT_EQ((*s)[1].value, 900);
  EXPECT_EQ(start, "86400");
  EXPECT_EQ(end, "172800");
  EXPECT_NE(query.find("cluster=\"prod\",namespace=\"ml\",pod=~\"infer-1\""), std::string::npos) << query;
  EXPECT_FALSE(source.MemoryMiB({"ml", "Deployment", "nope"}, 10).ok());
}

}  // namespace
}  // namespace kubeon::controller
