// See durations.h.
#include "model/durations.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <system_error>

namespace kubeon::model {

namespace {

// "24h" -> 24 (any size, but finite and >= 0); nullopt when not a duration.
std::optional<double> DurationHours(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  double n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, n);
  if (ec != std::errc() || ptr != text.data() + text.size() - 1 || !std::isfinite(n) || n < 0) return std::nullopt;
  switch (text.back()) {
    case 's': return n / 3600;
    case 'm': return n / 60;
    case 'h': return n;
    case 'd': return n * 24;
    case 'w': return n * 24 * 7;
    default: return std::nullopt;
  }
}

}  // namespace

bool ParseDurationHours(const std::string& text, double* hours) {
  std::optional<double> h = DurationHours(text);
  if (!h || *h > kMaxDurationHours) return false;
  *hours = *h;
  return true;
}

Status ParseDurationFlag(const std::string& flag, const std::string& text, const std::string& examples,
                         bool positive, double* hours) {
  const std::string quoted = "\"" + text + "\"";
  std::optional<double> h = DurationHours(text);
  // "1e400d" overflows from_chars: too large, not malformed ("1e-400d" underflows: malformed).
  double n = 0;
  const char* end = text.data() + text.size() - (text.empty() ? 0 : 1);
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  const bool overflow = !text.empty() && ec == std::errc::result_out_of_range && ptr == end &&
                        text.find_first_of("-") == std::string::npos &&
                        std::string_view("smhdw").find(text.back()) != std::string_view::npos;
  if (overflow || (h && *h > kMaxDurationHours)) {
    return Status::Error(flag + ": " + quoted + " is too large (max " + kMaxDurationText + ")");
  }
  if (!h) return Status::Error(flag + ": " + quoted + " is not a duration like " + examples);
  if (positive && *h <= 0) return Status::Error(flag + ": " + quoted + " must be positive");
  *hours = *h;
  return Status::Ok();
}

}  // namespace kubeon::model
