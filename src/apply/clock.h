// Clock: the executor's only source of time, so tests and the CLI agree on
// what "now" and "wait" mean.  RealClock is the wall clock and a thread
// sleep; tests against kube-sim use it too (kube-sim's own time runs
// timeScale times faster), or a fake that advances on Sleep.
#pragma once

#include <chrono>
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

}  // namespace kubeon::apply
