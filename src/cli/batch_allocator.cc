// See batch_allocator.h for the contract.
#include "cli/batch_allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace kubeon::cli {

bool TuneAllocatorForBatch() {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  // mallopt returns 1 on success.  Setting either threshold also turns off
  // glibc's dynamic threshold adjustment, which is what we want.
  const bool trim = mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrimThresholdBytes)) == 1;
  const bool mmap = mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdBytes)) == 1;
  return trim && mmap;
#else
  return false;
#endif
}

bool TuneAllocatorForService() {
#if defined(__linux__) && defined(PR_SET_THP_DISABLE)
  return ::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0;
#else
  return false;
#endif
}

}  // namespace kubeon::cli
