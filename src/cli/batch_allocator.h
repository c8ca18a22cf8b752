// Allocator settings per kind of command: TuneAllocatorForBatch for a command
// that runs once and exits (plan, snapshot, apply, ...), TuneAllocatorForService
// for the long-running controller.
//
// Contract:
//   * glibc returns freed memory to the kernel as soon as the top of a heap
//     holds 128 KiB free (trim) and serves every block above a sliding
//     threshold by its own mmap; a batch command that builds a large model,
//     frees temporaries and builds more then pays a page fault per 4 KiB again
//     and again (measured on `plan` at 80,000 GPUs: 104,000 mprotect calls of
//     the ingest thread's arena, 5.5 s of kernel time for 1.3 GB touched).
//   * After the call, freed memory stays in the process (trim threshold
//     kTrimThresholdBytes) and blocks below kMmapThresholdBytes come from the
//     heap.  Peak RSS does not grow: the memory kept is memory the command
//     touched already and will reuse.
//   * Other allocators (a sanitizer's, musl) ignore it: returns false then,
//     nothing else changes.  When kubeon-gpu is linked with jemalloc (the
//     default build, CMakeLists.txt) the settings reach glibc's malloc, which
//     then serves nothing: harmless, and kept for builds without jemalloc.
//   * REQUIRES: called once, before the command allocates much (main).
#pragma once

#include <cstddef>

namespace kubeon::cli {

inline constexpr size_t kTrimThresholdBytes = size_t{1} << 30;
// glibc's largest allowed mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX).
inline constexpr size_t kMmapThresholdBytes = size_t{32} << 20;

// Returns whether the allocator took both settings.
bool TuneAllocatorForBatch();

// For a process that runs for weeks (the controller): no transparent huge
// pages for the whole process (prctl PR_SET_THP_DISABLE, which overrides
// jemalloc's madvise of jemalloc_options.h), so that memory freed between
// plans is not held in partly used 2 MiB pages.  Returns whether the kernel
// took it (false off Linux or on a kernel without the call: nothing changes).
// REQUIRES: called once, before the command allocates much (main).
bool TuneAllocatorForService();

}  // namespace kubeon::cli
