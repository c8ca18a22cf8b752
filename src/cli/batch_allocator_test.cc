#include "cli/batch_allocator.h"

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace kubeon::cli {
namespace {

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
// A freed 20 MiB block stays in the heap (free bytes of the arena) instead of
// being unmapped (glibc's default serves it by mmap and unmaps it on free).
TEST(BatchAllocatorTest, FreedLargeBlocksStayInTheProcess) {
  ASSERT_TRUE(TuneAllocatorForBatch());
  const size_t before = mallinfo2().fordblks;
  constexpr size_t kBlock = size_t{20} << 20;
  char* p = static_cast<char*>(std::malloc(kBlock));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, kBlock);
  EXPECT_GE(mallinfo2().arena, kBlock) << "served from the heap, not by its own mmap";
  std::free(p);
  EXPECT_GE(mallinfo2().fordblks, before + kBlock) << "kept free in the heap, not trimmed";
}
#else
TEST(BatchAllocatorTest, OtherAllocatorsAreLeftAlone) { EXPECT_FALSE(TuneAllocatorForBatch()); }
#endif

#if defined(__linux__) && defined(PR_GET_THP_DISABLE)
// The controller's process gets no transparent huge pages, whatever the
// allocator asks for (jemalloc_options.h).
TEST(BatchAllocatorTest, TheServiceProcessHasNoHugePages) {
  ASSERT_TRUE(TuneAllocatorForService());
  EXPECT_EQ(::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0), 1);
}
#endif

}  // namespace
}  // namespace kubeon::cli
