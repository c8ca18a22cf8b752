// Tests for prometheus_http.h, prometheus_client.h and the error paths and
// row mapping of prometheus_history.h, against in-process HTTP servers
// (cpp-httplib) that answer as Prometheus does — or fail as it can: HTTP
// 400/422/500/503 with Prometheus' JSON error body, a closed port, a server
// too slow, an answer too large, no DCGM series.  The real server is
// exercised by prometheus_history_test.
#include "metrics/prometheus_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "metrics/prometheus_history.h"
#include "metrics/prometheus_http.h"

namespace kubeon::metrics {
namespace {

// A port nothing listens on (bound, then closed).
int ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct Received {
  std::string path, method, query, time, timeout, authorization, org;
};

// An HTTP server on 127.0.0.1 (free port) whose handlers are set up before
// it starts; records every request.
class FakeServer {
 public:
  using Answer = std::function<void(const httplib::Request&, httplib::Response&)>;

  explicit FakeServer(Answer answer) : answer_(std::move(answer)) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        received_.push_back({req.path, req.method, req.get_param_value("query"), req.get_param_value("time"),
                             req.get_param_value("timeout"), req.get_header_value("Authorization"),
                             req.get_header_value("X-Scope-OrgID")});
      }
      answer_(req, res);
    };
    server_.Get(".*", handler);
    server_.Post(".*", handler);
    // A client that gave up is not waited for.
    server_.set_write_timeout(0, 300000);
    server_.set_read_timeout(0, 300000);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Received> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }

 private:
  Answer answer_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Received> received_;
};

std::string Vector(const std::string& elements) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + elements + "]}}";
}

std::string ErrorBody(const std::string& type, const std::string& error) {
  return R"({"status":"error","errorType":")" + type + R"(","error":")" + error + R"("})";
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kubeon-promclient-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::string path_;
};

std::unique_ptr<PrometheusClient> Client(const PrometheusHttpOptions& options) {
  auto http = PrometheusHttp::Create(options);
  EXPECT_TRUE(http.ok()) << http.status().message();
  if (!http.ok()) return nullptr;
  return std::make_unique<PrometheusClient>(std::move(http).value());
}

// ---- ParseQueryAnswer (pure) ----

TEST(ParseQueryAnswerTest, ReadsVectorLabelsValuesAndWarnings) {
  std::string body = R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"namespace":"prod","pod":"a"},"value":[1790000000,"3012.5"]},
      {"metric":{},"value":[1790000000,"NaN"]},
      {"metric":{"pod":"b"},"value":[1790000000.5,"+Inf"]}]},
      "warnings":["PromQL info: something"]})";
  QueryOutcome out = ParseQueryAnswer(200, body, "http://p:9090", "peak memory");
  ASSERT_TRUE(out.ok) << out.error;
  ASSERT_EQ(out.samples.size(), 3u);
  EXPECT_EQ(out.samples[0].labels.at("namespace"), "prod");
  EXPECT_EQ(out.samples[0].labels.at("pod"), "a");
  EXPECT_DOUBLE_EQ(out.samples[0].value, 3012.5);
  EXPECT_TRUE(out.samples[1].labels.empty());
  EXPECT_TRUE(std::isnan(out.samples[1].value));
  EXPECT_TRUE(std::isinf(out.samples[2].value));
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_EQ(out.warnings[0], "PromQL info: something");
}

TEST(ParseQueryAnswerTest, ServerErrorsKeepTheServersWordsAndAreClassified) {
  const std::string url = "http://p:9090";
  QueryOutcome limit = ParseQueryAnswer(
      422, ErrorBody("execution", "query processing would load too many samples into memory in query execution"),
      url, "peak memory over X");
  EXPECT_FALSE(limit.ok);
  EXPECT_EQ(limit.error_kind, QueryErrorKind::kLimit);
  EXPECT_EQ(limit.error,
            "Prometheus at http://p:9090 failed peak memory over X: HTTP 422 Unprocessable Entity: execution: query "
            "processing would load too many samples into memory in query execution");

  QueryOutcome bad = ParseQueryAnswer(400, ErrorBody("bad_data", "invalid parameter \\\"query\\\": 1:10: parse error"),
                                      url, "q");
  EXPECT_EQ(bad.error_kind, QueryErrorKind::kRejected);
  EXPECT_NE(bad.error.find("HTTP 400 Bad Request: bad_data: invalid parameter \"query\": 1:10: parse error"),
            std::string::npos)
      << bad.error;

  QueryOutcome timeout = ParseQueryAnswer(503, ErrorBody("timeout", "query timed out in expression evaluation"),
                                          url, "q");
  EXPECT_EQ(timeout.error_kind, QueryErrorKind::kLimit);

  QueryOutcome internal = ParseQueryAnswer(500, "upstream connect error\n<html>", url, "q");
  EXPECT_EQ(internal.error_kind, QueryErrorKind::kServer);
  EXPECT_NE(internal.error.find("HTTP 500 Internal Server Error: upstream connect error <html>"), std::string::npos)
      << internal.error;

  QueryOutcome unauthorized = ParseQueryAnswer(401, "Unauthorized", url, "q");
  EXPECT_EQ(unauthorized.error_kind, QueryErrorKind::kRejected);
  EXPECT_NE(unauthorized.error.find("check the bearer token file"), std::string::npos) << unauthorized.error;

  QueryOutcome missing = ParseQueryAnswer(404, "404 page not found", url, "q");
  EXPECT_NE(missing.error.find("is http://p:9090 the base URL of a Prometheus API"), std::string::npos)
      << missing.error;
}

TEST(ParseQueryAnswerTest, AnswersThatAreNotThePrometheusApiAreErrors) {
  const std::string url = "http://p:9090";
  QueryOutcome html = ParseQueryAnswer(200, "<html>login</html>", url, "q");
  EXPECT_FALSE(html.ok);
  EXPECT_NE(html.error.find("not JSON: <html>login</html>"), std::string::npos) << html.error;
  QueryOutcome scalar =
      ParseQueryAnswer(200, R"({"status":"success","data":{"resultType":"scalar","result":[1,"2"]}})", url, "q");
  EXPECT_FALSE(scalar.ok);
  EXPECT_NE(scalar.error.find("type \"scalar\", expected vector"), std::string::npos) << scalar.error;
  QueryOutcome element = ParseQueryAnswer(200, Vector(R"({"metric":{},"value":[1,"abc"]})"), url, "q");
  EXPECT_FALSE(element.ok);
  EXPECT_NE(element.error.find("malformed element"), std::string::npos) << element.error;
  QueryOutcome status_error = ParseQueryAnswer(200, ErrorBody("internal", "boom"), url, "q");
  EXPECT_FALSE(status_error.ok);
  EXPECT_NE(status_error.error.find("internal: boom"), std::string::npos) << status_error.error;
}

TEST(ParseQueryAnswerTest, LimitMessagesOfPrometheusThanosAndMimir) {
  EXPECT_TRUE(IsLimitMessage("execution", "query processing would load too many samples into memory"));
  EXPECT_TRUE(IsLimitMessage("timeout", "anything"));
  EXPECT_TRUE(IsLimitMessage("execution", "the query time range exceeds the limit (query length: 720h, limit: 168h)"));
  EXPECT_TRUE(IsLimitMessage("execution", "the query exceeded the maximum number of chunks (limit: 2000000)"));
  EXPECT_FALSE(IsLimitMessage("bad_data", "parse error: unexpected character"));
  EXPECT_FALSE(IsLimitMessage("execution", "vector cannot contain metrics with the same labelset"));
}

// ---- PrometheusHttp options ----

TEST(PrometheusHttpTest, RefusesBadOptionsWithoutShowingSecrets) {
  TempDir dir;
  PrometheusHttpOptions o;
  o.url = "http://admin:hunter2@prom:9090";
  auto r = PrometheusHttp::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("must not contain user info"), std::string::npos);

  o.url = "ftp://prom";
  EXPECT_FALSE(PrometheusHttp::Create(o).ok());
  o.url = "";
  EXPECT_FALSE(PrometheusHttp::Create(o).ok());

  o.url = "http://prom:9090";
  o.headers = {"X-Scope-OrgID: team-a", "Authorization Bearer s3cret-value"};
  r = PrometheusHttp::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("header #2"), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find("s3cret-value"), std::string::npos) << r.status().message();

  o.headers = {"Authorization: Basic abc"};
  o.bearer_token_file = dir.Write("token", "t0ken\n");
  r = PrometheusHttp::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("both a bearer token file and an Authorization header"), std::string::npos);

  o.headers.clear();
  o.bearer_token_file = dir.Write("empty", " \n");
  r = PrometheusHttp::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("empty"), std::string::npos);

  o.bearer_token_file = "/nonexistent/token";
  r = PrometheusHttp::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bearer token file /nonexistent/token: cannot read"), std::string::npos);

  o.bearer_token_file.clear();
  o.ca_file = "/nonexistent/ca.pem";
  r = PrometheusHttp::Create(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CA file /nonexistent/ca.pem: cannot read"), std::string::npos);
}

TEST(PrometheusHttpTest, EncodesFormFields) {
  EXPECT_EQ(PrometheusHttp::EncodeForm({{"query", "max(a{b=\"c d\"})"}, {"time", "1.5"}}),
            "query=max%28a%7Bb%3D%22c%20d%22%7D%29&time=1.5");
}

// ---- PrometheusClient over HTTP ----

TEST(PrometheusClientTest, PostsTheQueryWithTimeTimeoutTokenAndHeaders) {
  FakeServer server([](const httplib::Request&, httplib::Response& res) {
    res.set_content(Vector(R"({"metric":{"pod":"a","namespace":"n"},"value":[1790000000,"7"]})"), "application/json");
  });
  TempDir dir;
  PrometheusHttpOptions o;
  o.url = server.url() + "/";
  o.bearer_token_file = dir.Write("token", "  my-token-123\n");
  o.headers = {"X-Scope-OrgID:   team-a  "};
  o.timeout = std::chrono::seconds(30);
  auto client = Client(o);
  ASSERT_NE(client, nullptr);
  QueryOutcome out = client->Query("up", 1790000000123, "test");
  ASSERT_TRUE(out.ok) << out.error;
  ASSERT_EQ(out.samples.size(), 1u);
  EXPECT_EQ(out.samples[0].value, 7);
  auto got = server.received();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].method, "POST");
  EXPECT_EQ(got[0].path, "/api/v1/query");
  EXPECT_EQ(got[0].query, "up");
  EXPECT_EQ(got[0].time, "1790000000.123");
  EXPECT_EQ(got[0].timeout, "29s");
  EXPECT_EQ(got[0].authorization, "Bearer my-token-123");
  EXPECT_EQ(got[0].org, "team-a");
  EXPECT_EQ(client->requests(), 1u);
}

TEST(PrometheusClientTest, ServerErrorsCarryTheServersTextButNeverTheToken) {
  FakeServer server([](const httplib::Request& req, httplib::Response& res) {
    if (req.get_param_value("query") == "bad(") {
      res.status = 400;
      res.set_content(ErrorBody("bad_data", "invalid parameter \\\"query\\\": 1:5: parse error: unclosed left parenthesis"),
                      "application/json");
    } else {
      res.status = 500;
      res.set_content(ErrorBody("internal", "storage is on fire"), "application/json");
    }
  });
  TempDir dir;
  PrometheusHttpOptions o;
  o.url = server.url();
  o.bearer_token_file = dir.Write("token", "super-secret-token");
  auto client = Client(o);
  QueryOutcome bad = client->Query("bad(", 1790000000000, "the test query");
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error_kind, QueryErrorKind::kRejected);
  EXPECT_EQ(bad.error, "Prometheus at " + server.url() +
                           " failed the test query: HTTP 400 Bad Request: bad_data: invalid parameter \"query\": "
                           "1:5: parse error: unclosed left parenthesis");
  QueryOutcome fire = client->Query("up", 1790000000000, "q");
  EXPECT_EQ(fire.error_kind, QueryErrorKind::kServer);
  EXPECT_NE(fire.error.find("HTTP 500 Internal Server Error: internal: storage is on fire"), std::string::npos);
  EXPECT_EQ(fire.error.find("super-secret-token"), std::string::npos);
}

TEST(PrometheusClientTest, ClosedPortIsUnreachable) {
  PrometheusHttpOptions o;
  o.url = "http://127.0.0.1:" + std::to_string(ClosedPort());
  o.timeout = std::chrono::seconds(5);
  auto client = Client(o);
  QueryOutcome out = client->Query("up", 1790000000000, "q");
  ASSERT_FALSE(out.ok);
  EXPECT_EQ(out.error_kind, QueryErrorKind::kUnreachable);
  EXPECT_EQ(out.error.rfind("cannot reach Prometheus at " + o.url + ": connection refused", 0), 0u) << out.error;
}

TEST(PrometheusClientTest, SlowServerTimesOut) {
  FakeServer server([](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    res.set_content(Vector(""), "application/json");
  });
  PrometheusHttpOptions o;
  o.url = server.url();
  o.timeout = std::chrono::milliseconds(300);
  auto client = Client(o);
  auto t0 = std::chrono::steady_clock::now();
  QueryOutcome out = client->Query("up", 1790000000000, "q");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(out.ok);
  EXPECT_EQ(out.error_kind, QueryErrorKind::kTimeout);
  EXPECT_NE(out.error.find("did not answer within 0.3 s"), std::string::npos) << out.error;
  EXPECT_LT(secs, 1.4);
}

// Issue 14: a TLS connect stall was reported as "did not answer within
// 120 s", and the history reader then split the window ("the server refused
// a 14d window").  A server that accepts TCP but never answers the handshake
// is a TLS failure within the connect timeout.
TEST(PrometheusClientTest, StalledTlsHandshakeIsATlsFailureNotASlowAnswer) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 16), 0);  // the kernel completes TCP; nobody speaks TLS
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  PrometheusHttpOptions o;
  o.url = "https://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  o.connect_timeout = std::chrono::seconds(1);  // loopback TCP connects at once, even on a loaded machine
  o.timeout = std::chrono::seconds(60);
  auto client = Client(o);
  QueryOutcome out = client->Query("up", 1790000000000, "q");
  ASSERT_FALSE(out.ok);
  EXPECT_NE(out.error_kind, QueryErrorKind::kTimeout);
  EXPECT_NE(out.error.find("TLS handshake did not complete within 1 s"), std::string::npos) << out.error;
  EXPECT_EQ(out.error.find("did not answer within"), std::string::npos) << out.error;
  PrometheusOptions po;
  po.url = o.url;
  po.connect_timeout = o.connect_timeout;
  po.end_unix_ms = 1790000000000;
  std::vector<std::string> progress;
  auto h = ReadPrometheusHistory(po, [&](const std::string& line) { progress.push_back(line); });
  ::close(fd);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("TLS handshake did not complete"), std::string::npos) << h.status().message();
  for (const std::string& line : progress) EXPECT_EQ(line.find("refused"), std::string::npos) << line;
}

// Issue 14: a deeply nested answer crashed the reader (recursive parse).
TEST(ParseQueryAnswerTest, DeeplyNestedAnswerIsAClearError) {
  const std::string deep = "{\"status\":\"success\",\"data\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  QueryOutcome out = ParseQueryAnswer(200, deep, "http://p", "memory peak");
  ASSERT_FALSE(out.ok);
  EXPECT_EQ(out.error_kind, QueryErrorKind::kServer);
  EXPECT_NE(out.error.find("nested more than 64 levels deep"), std::string::npos) << out.error;
  QueryOutcome refused = ParseQueryAnswer(500, std::string(200000, '{'), "http://p", "memory peak");
  ASSERT_FALSE(refused.ok);
  EXPECT_LT(refused.error.size(), 1000u);
  // Fields of the wrong type are errors, not exceptions.
  QueryOutcome typed = ParseQueryAnswer(200, R"({"status":5,"error":7})", "http://p", "q");
  EXPECT_FALSE(typed.ok);
}

TEST(PrometheusClientTest, AnswerAboveTheByteLimitIsTooLarge) {
  FakeServer server([](const httplib::Request&, httplib::Response& res) {
    std::string rows;
    for (int i = 0; i < 20000; ++i) {
      if (i) rows += ",";
      rows += R"({"metric":{"pod":"p)" + std::to_string(i) + R"(","namespace":"n"},"value":[1,"1"]})";
    }
    // Not a compressible type: brotli-compressing 1.5 MB would take seconds.
    res.set_content(Vector(rows), "application/octet-stream");
  });
  PrometheusHttpOptions o;
  o.url = server.url();
  o.max_response_bytes = 100000;
  auto client = Client(o);
  QueryOutcome out = client->Query("up", 1790000000000, "q");
  ASSERT_FALSE(out.ok);
  EXPECT_EQ(out.error_kind, QueryErrorKind::kTooLarge);
  EXPECT_NE(out.error.find("larger than"), std::string::npos) << out.error;
}

// ---- ReadPrometheusHistory against fake servers ----

PrometheusOptions FakeOptions(const std::string& url) {
  PrometheusOptions o;
  o.url = url;
  o.end_unix_ms = 1790000000000;
  o.lookback = std::chrono::hours(24 * 14);
  o.timeout = std::chrono::seconds(10);
  return o;
}

TEST(ReadPrometheusHistoryTest, ServerErrorStopsTheReadWithItsTextAndTheQuery) {
  FakeServer server([](const httplib::Request&, httplib::Response& res) {
    res.status = 500;
    res.set_content(ErrorBody("internal", "tsdb: out of file descriptors"), "application/json");
  });
  auto h = ReadPrometheusHistory(FakeOptions(server.url()), nullptr);
  ASSERT_FALSE(h.ok());
  const std::string& m = h.status().message();
  EXPECT_NE(m.find("Prometheus at " + server.url() + " failed sample count over 2026-09-07T14:13:20Z.."
                                                    "2026-09-21T14:13:20Z: HTTP 500 Internal Server Error: internal: "
                                                    "tsdb: out of file descriptors; query: sum by"),
            std::string::npos)
      << m;
}

TEST(ReadPrometheusHistoryTest, ClosedPortIsAClearError) {
  PrometheusOptions o = FakeOptions("http://127.0.0.1:" + std::to_string(ClosedPort()));
  auto h = ReadPrometheusHistory(o, nullptr);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message().rfind("cannot reach Prometheus at " + o.url + ": connection refused", 0), 0u)
      << h.status().message();
}

TEST(ReadPrometheusHistoryTest, LimitErrorsSplitTheWindowDownToTheMinimumThenFail) {
  FakeServer server([](const httplib::Request&, httplib::Response& res) {
    res.status = 422;
    res.set_content(ErrorBody("execution", "query processing would load too many samples into memory in query "
                                           "execution"),
                    "application/json");
  });
  std::vector<std::string> progress;
  PrometheusReadStats stats;
  auto h = ReadPrometheusHistory(FakeOptions(server.url()), [&](const std::string& l) { progress.push_back(l); },
                                 &stats);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("too many samples"), std::string::npos) << h.status().message();
  EXPECT_NE(h.status().message().find("a window of 90m is still too much for the server"), std::string::npos)
      << h.status().message();
  // 14d, then 1d chunks, then halves of the first chunk: 12h, 6h, 3h, 90m.
  auto got = server.received();
  ASSERT_EQ(got.size(), 6u);
  EXPECT_NE(got[0].query.find("[1209599999ms]"), std::string::npos) << got[0].query;
  EXPECT_NE(got[1].query.find("[86399999ms]"), std::string::npos) << got[1].query;
  EXPECT_NE(got[5].query.find("[5399999ms]"), std::string::npos) << got[5].query;
  EXPECT_EQ(got[1].time, "1790000000");  // the newest chunk first, ending at the end time
  EXPECT_EQ(stats.refused_queries, 5u);
  EXPECT_EQ(stats.queries, 6u);
  ASSERT_FALSE(progress.empty());
  EXPECT_NE(progress[0].find("refused a 14d window"), std::string::npos) << progress[0];
}

TEST(ReadPrometheusHistoryTest, NoDcgmSeriesNamesTheMetricsTriedAndThoseFound) {
  FakeServer server([](const httplib::Request& req, httplib::Response& res) {
    if (req.path == "/api/v1/label/__name__/values") {
      res.set_content(R"({"status":"success","data":["DCGM_FI_DEV_SM_CLOCK","DCGM_FI_DEV_POWER_USAGE","up"]})",
                      "application/json");
    } else {
      res.set_content(Vector(""), "application/json");
    }
  });
  PrometheusOptions o = FakeOptions(server.url());
  o.selector = "cluster=\"prod\"";
  auto h = ReadPrometheusHistory(o, nullptr);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message(),
            "Prometheus at " + server.url() +
                " has no DCGM series between 2026-09-07T14:13:20Z and 2026-09-21T14:13:20Z: looked for "
                "DCGM_FI_DEV_FB_USED, DCGM_FI_PROF_GR_ENGINE_ACTIVE and DCGM_FI_DEV_GPU_UTIL matching "
                "{cluster=\"prod\"}; DCGM metrics it does have: DCGM_FI_DEV_SM_CLOCK, DCGM_FI_DEV_POWER_USAGE");
}

TEST(ReadPrometheusHistoryTest, SeriesWithoutPodLabelsAreAnError) {
  FakeServer server([](const httplib::Request&, httplib::Response& res) {
    res.set_content(Vector(R"({"metric":{},"value":[1790000000,"5000"]})"), "application/json");
  });
  auto h = ReadPrometheusHistory(FakeOptions(server.url()), nullptr);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("5000 DCGM samples"), std::string::npos) << h.status().message();
  EXPECT_NE(h.status().message().find("DCGM_EXPORTER_KUBERNETES=true"), std::string::npos);
}

// A fake Prometheus answering each of the reader's queries with fixed rows:
// checks how rows become PodUsage (pod resolution, ceil, one-sample
// histograms, /100, spans, devices, last-seen labels, bad values).
TEST(ReadPrometheusHistoryTest, MapsAnswersOntoPodUsage) {
  const std::string exported =
      R"("namespace":"gpu-operator","pod":"dcgm-exporter-x","exported_namespace":"ml","exported_pod":"nb-1")";
  FakeServer server([&](const httplib::Request& req, httplib::Response& res) {
    const std::string q = req.get_param_value("query");
    std::string rows;
    if (q.rfind("sum by", 0) == 0) {
      rows = R"({"metric":{"namespace":"prod","pod":"a"},"value":[0,"300"]},)"
             R"({"metric":{)" + exported + R"(},"value":[0,"200"]},)"
             R"({"metric":{"namespace":"prod","pod":"c"},"value":[0,"10"]},)"
             R"({"metric":{"exported_pod":"orphan"},"value":[0,"4"]},)"
             R"({"metric":{},"value":[0,"50"]})";
    } else if (q.find("max_over_time(DCGM_FI_DEV_FB_USED") != std::string::npos) {
      rows = R"({"metric":{"namespace":"prod","pod":"a"},"value":[0,"3000.2"]},)"
             R"({"metric":{)" + exported + R"(},"value":[0,"8000"]},)"
             R"({"metric":{"namespace":"prod","pod":"c"},"value":[0,"NaN"]})";
    } else if (q.rfind("count by", 0) == 0 && q.find("sum_over_time") != std::string::npos) {
      // Series holding NaN/Inf/negative samples: two of the exported pod's.
      rows = R"({"metric":{)" + exported + R"(},"value":[0,"2"]})";
    } else if (q.find("quantile_over_time(0.99, DCGM_FI_PROF_GR_ENGINE_ACTIVE") != std::string::npos) {
      // Pod c exports GR_ENGINE_ACTIVE in percent (issue 14).
      rows = R"({"metric":{"namespace":"prod","pod":"a"},"value":[0,"0.0731"]},)"
             R"({"metric":{"namespace":"prod","pod":"c"},"value":[0,"45"]})";
    } else if (q.find("quantile_over_time(0.99, DCGM_FI_DEV_GPU_UTIL") != std::string::npos) {
      rows = R"({"metric":{)" + exported + R"(},"value":[0,"42"]})";
    } else if (q.rfind("min by", 0) == 0 && q.find("DCGM_FI_DEV_FB_USED") != std::string::npos) {
      rows = R"({"metric":{"namespace":"prod","pod":"a","UUID":"GPU-1"},"value":[0,"1789900000"]},)"
             R"({"metric":{)" + exported + R"(,"hostname":"n1","gpu":"2","GPU_I_ID":"3"},"value":[0,"1780000000"]})";
    } else if (q.rfind("max by", 0) == 0 && q.find("timestamp(DCGM_FI_DEV_FB_USED") != std::string::npos) {
      rows = R"({"metric":{"namespace":"prod","pod":"a","UUID":"GPU-1","modelName":"A100","Hostname":"n0",)"
             R"("container":"main"},"value":[0,"1789990000"]},)"
             R"({"metric":{"namespace":"prod","pod":"a","UUID":"GPU-0"},"value":[0,"1789950000"]},)"
             R"({"metric":{)" + exported + R"(,"hostname":"n1","gpu":"2","GPU_I_ID":"3","GPU_I_PROFILE":"2g.10gb",)"
             R"("exported_container":"nb","container":"exporter"},"value":[0,"1789999999.5"]})";
    } else if (q.rfind("min by", 0) == 0 && q.find("DCGM_FI_PROF_GR_ENGINE_ACTIVE") != std::string::npos) {
      rows = R"({"metric":{"namespace":"prod","pod":"c"},"value":[0,"1789000000"]})";
    } else if (q.rfind("max by", 0) == 0 && q.find("timestamp(DCGM_FI_PROF_GR_ENGINE_ACTIVE") != std::string::npos) {
      rows = R"({"metric":{"namespace":"prod","pod":"c"},"value":[0,"1789003600"]})";
    }
    res.set_content(Vector(rows), "application/json");
  });
  PrometheusReadStats stats;
  auto h = ReadPrometheusHistory(FakeOptions(server.url()), nullptr, &stats);
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->pods.size(), 3u);
  const PodUsage& a = h->pods.at(PodKey{"prod", "a"});
  EXPECT_EQ(a.peak_memory_mib, 3001);
  EXPECT_EQ(a.compute.count(), 1u);
  EXPECT_DOUBLE_EQ(a.compute.Quantile(0.99), 0.0731);  // one sample: exactly the server's value
  EXPECT_EQ(a.gpu_util.count(), 0u);
  EXPECT_EQ(a.samples, 300u);
  EXPECT_EQ(a.first_ts_ms, 1789900000000);
  EXPECT_EQ(a.last_ts_ms, 1789990000000);
  EXPECT_EQ(a.gpu_uuid, "GPU-1");  // the series with the newest sample
  EXPECT_EQ(a.hostname, "n0");
  EXPECT_EQ(a.model_name, "A100");
  EXPECT_EQ(a.container, "main");
  EXPECT_EQ(a.gpus, (std::set<std::string>{"GPU-0", "GPU-1"}));

  const PodUsage& nb = h->pods.at(PodKey{"ml", "nb-1"});
  EXPECT_EQ(nb.peak_memory_mib, 8000);
  EXPECT_EQ(nb.compute.count(), 0u);
  EXPECT_DOUBLE_EQ(nb.gpu_util.Quantile(0.99), 0.42);
  // The first sample lies before the window: reported as the window start.
  EXPECT_EQ(nb.first_ts_ms, 1790000000000 - 14LL * 86400000 + 1);
  EXPECT_EQ(nb.last_ts_ms, 1789999999500);
  EXPECT_EQ(nb.mig_profile, "2g.10gb");
  EXPECT_EQ(nb.container, "nb");
  EXPECT_EQ(nb.hostname, "n1");
  EXPECT_EQ(nb.gpus, (std::set<std::string>{"n1/2/GI3"}));
  EXPECT_EQ(nb.bad_samples, 2u);  // two series with NaN, Inf or negative samples
  EXPECT_EQ(a.bad_samples, 0u);

  // No FB_USED span: the span comes from GR_ENGINE_ACTIVE; NaN is a bad sample.
  const PodUsage& c = h->pods.at(PodKey{"prod", "c"});
  EXPECT_EQ(c.peak_memory_mib, -1);
  EXPECT_EQ(c.bad_samples, 1u);
  EXPECT_EQ(c.first_ts_ms, 1789000000000);
  EXPECT_EQ(c.last_ts_ms, 1789003600000);
  EXPECT_EQ(c.covered_ms(), 3600000);
  // A quantile above kRatioPercentThreshold: percent, divided by 100.
  EXPECT_TRUE(c.compute_in_percent);
  EXPECT_DOUBLE_EQ(c.compute.Quantile(0.99), 0.45);
  EXPECT_FALSE(a.compute_in_percent);
  EXPECT_EQ(HistoryWarnings(*h).size(), 1u);

  EXPECT_EQ(h->stats.samples, 510u);
  EXPECT_EQ(h->stats.unattributed_lines, 50u);
  EXPECT_EQ(h->stats.bad_lines, 1u);
  ASSERT_EQ(h->stats.first_bad_reasons.size(), 1u);
  EXPECT_EQ(h->stats.first_bad_reasons[0],
            "Prometheus series {exported_pod=\"orphan\"}: label exported_pod without exported_namespace");
  EXPECT_EQ(h->stats.metrics_seen,
            (std::set<std::string>{"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE"}));
  EXPECT_EQ(h->source, server.url());
  // count, memory, 2 compute, bad series, first+last of FB_USED, first+last of GR for pod c.
  EXPECT_EQ(stats.queries, 9u);
  EXPECT_EQ(stats.refused_queries, 0u);
}

}  // namespace
}  // namespace kubeon::metrics
