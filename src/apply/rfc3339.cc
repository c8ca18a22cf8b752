#include "apply/rfc3339.h"

#include <cstdio>
#include <ctime>

#include "metrics/sample_parse.h"

namespace kubeon::apply {

std::string FormatTime(std::chrono::sys_seconds t) {
  const std::time_t secs = static_cast<std::time_t>(t.time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string FormatMicroTime(std::chrono::system_clock::time_point t) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
  std::string s = FormatTime(std::chrono::sys_seconds(std::chrono::seconds(us / 1000000)));
  char frac[16];
  std::snprintf(frac, sizeof(frac), ".%06dZ", static_cast<int>(us % 1000000));
  s.pop_back();  // 'Z'
  return s + frac;
}

std::optional<std::chrono::system_clock::time_point> ParseTimePoint(const std::string& text) {
  int64_t ms = 0;
  if (text.empty() || metrics::internal::ParseRfc3339(text, &ms) != nullptr) return std::nullopt;
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

std::optional<std::chrono::sys_seconds> ParseTime(const std::string& text) {
  auto t = ParseTimePoint(text);
  if (!t) return std::nullopt;
  return std::chrono::floor<std::chrono::seconds>(*t);
}

}  // namespace kubeon::apply
