// Clock: the executor's only source of time, so tests and the CLI agree on
// what "now" and "wait" mean.  RealClock is the wall clock and a thread
// sleep; tests against kube-sim use it too (kube-sim's own time runs
// timeScale times faster), or a fake that advances on Sleep.
#pragma once

#include <chrono>
#include <ctime>
#include <string>
#include <thread>

namespace kubeon::apply {

class Clock {
 public:
  using TimePoint = std::chrono::system_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint Now() = 0;
  virtual void Sleep(std::chrono::milliseconds d) = 0;
};

class RealClock : public Clock {
 public:
  TimePoint Now() override { return std::chrono::system_clock::now(); }
  void Sleep(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }
};

// RFC 3339 UTC with seconds, e.g. "2026-12-03T12:00:00Z".
inline std::string Rfc3339(Clock::TimePoint t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace kubeon::apply
