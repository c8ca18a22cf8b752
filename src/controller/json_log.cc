// See json_log.h.
#include "controller/json_log.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include <nlohmann/json.hpp>

namespace kubeon::controller {
namespace {

constexpr const char* kRedacted = "[REDACTED]";

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool CredentialKey(const std::string& key) {
  const std::string k = Lower(key);
  for (const char* word : {"token", "authorization", "password", "secret"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

// Replaces the value after each case-insensitive `marker` (up to whitespace,
// a quote, a comma or the end; for "authorization:" up to the line's end).
std::string RedactAfter(const std::string& text, const std::string& marker, bool to_line_end) {
  const std::string lower = Lower(text);
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t at = lower.find(marker, pos);
    if (at == std::string::npos) break;
    size_t start = at + marker.size();
    while (start < text.size() && text[start] == ' ') ++start;
    size_t end = start;
    while (end < text.size() && text[end] != '\n' && text[end] != '"' &&
           (to_line_end || (text[end] != ' ' && text[end] != ','))) {
      ++end;
    }
    out += text.substr(pos, start - pos);
    if (end > start) out += kRedacted;
    pos = end;
  }
  return out + text.substr(pos);
}

std::string Timestamp(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

}  // namespace

JsonLog::JsonLog(std::ostream& out, NowFn now) : out_(out), now_(std::move(now)) {}

void JsonLog::AddSecret(const std::string& secret) {
  if (secret.size() < 8) return;
  std::lock_guard<std::mutex> lock(mu_);
  secrets_.push_back(secret);
}

std::string JsonLog::Redact(const std::string& text) const {
  std::string out = text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& s : secrets_) {
      for (size_t at = out.find(s); at != std::string::npos; at = out.find(s, at + std::string(kRedacted).size())) {
        out.replace(at, s.size(), kRedacted);
      }
    }
  }
  out = RedactAfter(out, "authorization:", true);
  out = RedactAfter(out, "bearer ", false);
  return out;
}

void JsonLog::Write(const std::string& level, const std::string& msg, const Fields& fields) {
  nlohmann::ordered_json line;
  line["time"] = Timestamp(now_());
  line["level"] = level;
  line["msg"] = Redact(msg);
  for (const auto& [k, v] : fields) {
    if (k == "time" || k == "level" || k == "msg") continue;
    line[k] = CredentialKey(k) ? std::string(kRedacted) : Redact(v);
  }
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  out_ << text << std::flush;
}

}  // namespace kubeon::controller
