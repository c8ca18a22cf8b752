// LeaveForExit: lets a one-shot command skip freeing its large models.
//
// Contract:
//   * After EnableLeaveForExit() (main of a one-shot command: plan, snapshot,
//     apply, ...), LeaveForExit(std::move(x)) moves x to the heap and never
//     destroys it: the kernel takes the pages back when the process exits,
//     which costs nothing, where freeing the model of an 80,000-GPU cluster
//     (about a million small allocations) costs 0.2-0.4 s of a 1.5 s command
//     (BENCHMARKS.md (g)).  Like clang's -disable-free.
//   * Without it (tests, the long-running controller), LeaveForExit destroys x
//     at once, exactly as letting it go out of scope would.
//   * Kept objects stay reachable from a never-freed global list, so
//     LeakSanitizer does not report them.  Destructors of kept objects never
//     run: use it only for plain data (no files, locks or threads to close).
//   * Thread-safe.
#pragma once

#include <type_traits>
#include <utility>

namespace kubeon::cli {

void EnableLeaveForExit();
bool LeaveForExitEnabled();

namespace internal {
void Keep(void* object);
}  // namespace internal

template <typename T>
void LeaveForExit(T&& value) {
  using V = std::remove_cvref_t<T>;
  if (!LeaveForExitEnabled()) {
    V gone = std::forward<T>(value);  // destroyed here
    return;
  }
  internal::Keep(new V(std::forward<T>(value)));
}

}  // namespace kubeon::cli
