// RunParts: the one way the readers spread work over threads (the
// snapshot reader's parts, the pods whose workloads are resolved, the
// pieces of a history file).
//
// Contract:
//   * RunParts(n, fn) calls fn(k) once for every k in [0, n) (none for
//     n = 0): fn(0) on the
//     calling thread, every other on a thread of its own (std::async).  A
//     part whose thread cannot be started (std::system_error: a container's
//     pids limit) runs on the calling thread after fn(0): fewer threads,
//     never a lost part.
//   * Returns when every call has returned; an exception of fn(0) propagates
//     after the other threads have finished, then those of the others, by k.
//   * REQUIRES: calls of fn for different k may run at once (fn is
//     thread-safe across parts).
#pragma once

#include <cstddef>
#include <future>
#include <system_error>
#include <vector>

namespace kubeon::model {

template <typename Fn>
void RunParts(size_t n, Fn&& fn) {
  if (n == 0) return;
  std::vector<std::future<void>> others;
  std::vector<size_t> here;
  for (size_t k = 1; k < n; ++k) {
    try {
      others.push_back(std::async(std::launch::async, [&fn, k] { fn(k); }));
    } catch (const std::system_error&) {
      here.push_back(k);
    }
  }
  fn(0);  // on a throw, the futures' destructors wait for their threads
  for (size_t k : here) fn(k);
  for (auto& f : others) f.get();
}

}  // namespace kubeon::model
