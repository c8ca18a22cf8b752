// RFC 3339 times as the Kubernetes API writes them: Time
// ("2026-12-03T12:00:00Z") and MicroTime ("2026-12-03T12:00:00.123456Z"),
// always UTC.  Parsing accepts any offset and fraction.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace kubeon::apply {

std::string FormatTime(std::chrono::sys_seconds t);
std::string FormatMicroTime(std::chrono::system_clock::time_point t);
// nullopt when malformed.
std::optional<std::chrono::system_clock::time_point> ParseTimePoint(const std::string& text);
std::optional<std::chrono::sys_seconds> ParseTime(const std::string& text);

}  // namespace kubeon::apply
