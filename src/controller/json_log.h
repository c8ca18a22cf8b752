// JsonLog: the controller's structured log, one JSON object per line on a
// stream (stderr): {"time": RFC 3339 UTC with milliseconds, "level": "info" |
// "warn" | "error", "msg": ..., then the fields given (policy, change, ...)}.
//
// Never a credential: before a line is written, every string in it (msg and
// field values) has
//  - each registered secret (AddSecret: the bearer token the client read,
//    Prometheus tokens) replaced by "[REDACTED]",
//  - "Bearer <anything up to whitespace or quote>" and an
//    "Authorization: <value>" header replaced by their name plus "[REDACTED]",
// and fields whose key names a credential (token, authorization, password,
// secret; any case) are written as "[REDACTED]".
// Thread-safe: a line is written whole under a mutex.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace kubeon::controller {

class JsonLog {
 public:
  using Fields = std::map<std::string, std::string>;
  using NowFn = std::function<std::chrono::system_clock::time_point()>;

  explicit JsonLog(std::ostream& out, NowFn now = [] { return std::chrono::system_clock::now(); });

  // Strings shorter than 8 characters are ignored (they would redact ordinary words).
  void AddSecret(const std::string& secret);

  void Info(const std::string& msg, const Fields& fields = {}) { Write("info", msg, fields); }
  void Warn(const std::string& msg, const Fields& fields = {}) { Write("warn", msg, fields); }
  void Error(const std::string& msg, const Fields& fields = {}) { Write("error", msg, fields); }
  void Write(const std::string& level, const std::string& msg, const Fields& fields);

  // `text` with every credential replaced (see above).
  std::string Redact(const std::string& text) const;

 private:
  std::ostream& out_;
  NowFn now_;
  mutable std::mutex mu_;
  std::vector<std::string> secrets_;
};

}  // namespace kubeon::controller
