#include "cli/exit_memory.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kubeon::cli {
namespace {

struct Counted {
  explicit Counted(int* destroyed) : destroyed(destroyed) {}
  Counted(Counted&& o) noexcept : destroyed(o.destroyed) { o.destroyed = nullptr; }
  ~Counted() {
    if (destroyed != nullptr) ++*destroyed;
  }
  int* destroyed;
};

// One process: first disabled (destroyed at once), then enabled (kept).
TEST(ExitMemoryTest, DestroysUnlessEnabledThenKeepsUntilExit) {
  int destroyed = 0;
  ASSERT_FALSE(LeaveForExitEnabled());
  LeaveForExit(Counted(&destroyed));
  EXPECT_EQ(destroyed, 1) << "without EnableLeaveForExit the object is destroyed at once";
  EnableLeaveForExit();
  std::vector<std::string> big(1000, std::string(100, 'x'));
  LeaveForExit(std::move(big));
  LeaveForExit(Counted(&destroyed));
  EXPECT_EQ(destroyed, 1) << "kept: never destroyed (and no leak report under LeakSanitizer)";
}

}  // namespace
}  // namespace kubeon::cli
