// See exit_memory.h for the contract.
#include "cli/exit_memory.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace kubeon::cli {
namespace {

std::atomic<bool> enabled{false};
std::mutex mu;
// Never freed, so that the kept objects stay reachable (LeakSanitizer).
std::vector<void*>* const kept = new std::vector<void*>();

}  // namespace

void EnableLeaveForExit() { enabled = true; }
bool LeaveForExitEnabled() { return enabled; }

namespace internal {
void Keep(void* object) {
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(object);
}
}  // namespace internal

}  // namespace kubeon::cli
