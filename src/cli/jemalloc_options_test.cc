// Built only when kubeon-gpu is linked with jemalloc (CMakeLists.txt): the
// options of jemalloc_options.h reach the allocator of a target that
// kubeon_use_jemalloc() set up, as they reach kubeon-gpu's.
#include "cli/jemalloc_options.h"

#include <jemalloc/jemalloc.h>

#include <string>

#include <gtest/gtest.h>

namespace kubeon::cli {
namespace {

TEST(JemallocOptionsTest, TheAllocatorRunsWithTheOptions) {
  const char* thp = nullptr;
  size_t size = sizeof(thp);
  ASSERT_EQ(mallctl("opt.thp", &thp, &size, nullptr, 0), 0) << "not jemalloc, or too old for opt.thp";
  ASSERT_NE(thp, nullptr);
  EXPECT_EQ(std::string("thp:") + thp, kJemallocOptions);
}

}  // namespace
}  // namespace kubeon::cli
