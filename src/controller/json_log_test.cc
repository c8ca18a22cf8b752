// Tests for json_log.h: one JSON object per line with time/level/msg first,
// and no credential in any line.
#include "controller/json_log.h"

#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kubeon::controller {
namespace {

JsonLog::NowFn Fixed() {
  return [] { return std::chrono::system_clock::time_point(std::chrono::milliseconds(1764770400123)); };
}

TEST(JsonLog, OneObjectPerLine) {
  std::ostringstream out;
  JsonLog log(out, Fixed());
  log.Info("planned", {{"policy", "gpu-sharing"}, {"change", "0a1b2c3d"}});
  log.Error("two\nlines");
  std::istringstream lines(out.str());
  std::string first, second, third;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_FALSE(std::getline(lines, third));
  EXPECT_EQ(first,
            R"({"time":"2025-12-03T14:00:00.123Z","level":"info","msg":"planned","change":"0a1b2c3d","policy":"gpu-sharing"})");
  EXPECT_EQ(nlohmann::json::parse(second)["msg"], "two\nlines");
  EXPECT_EQ(nlohmann::json::parse(second)["level"], "error");
}

TEST(JsonLog, NeverATokenOrAuthorizationHeader) {
  std::ostringstream out;
  JsonLog log(out, Fixed());
  const std::string token = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.sig";
  log.AddSecret(token);
  log.AddSecret("short");  // ignored: would redact ordinary words
  log.Info("request failed: Authorization: Bearer " + token + " rejected");
  log.Warn("sent header authorization: Basic dXNlcjpwYXNz\nnext line");
  log.Info("token was " + token, {{"detail", "Bearer abc.def"}, {"token", "anything"}, {"Password", "x"}});
  log.Info("a short message");
  const std::string text = out.str();
  EXPECT_EQ(text.find(token), std::string::npos) << text;
  EXPECT_EQ(text.find("dXNlcjpwYXNz"), std::string::npos) << text;
  EXPECT_EQ(text.find("abc.def"), std::string::npos) << text;
  EXPECT_EQ(text.find("anything"), std::string::npos) << text;
  EXPECT_NE(text.find("next line"), std::string::npos) << "only the header's value goes";
  EXPECT_NE(text.find("a short message"), std::string::npos);
  EXPECT_NE(text.find("[REDACTED]"), std::string::npos);
  EXPECT_EQ(log.Redact("Bearer x"), "Bearer [REDACTED]");
  EXPECT_EQ(log.Redact("no credentials here"), "no credentials here");
}

}  // namespace
}  // namespace kubeon::controller
