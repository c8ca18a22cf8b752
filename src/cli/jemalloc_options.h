// The jemalloc options kubeon-gpu runs with (and the benchmarks that time its
// phases), fixed at build time.
//
// Contract:
//   * jemalloc_options.cc defines jemalloc's `malloc_conf` symbol as
//     kJemallocOptions.  CMake's kubeon_use_jemalloc(target) compiles it into
//     exactly the targets it links with jemalloc; no other target has it, and
//     glibc's malloc and the sanitizers' allocators never read it.
//   * "thp:always": jemalloc asks for transparent huge pages (madvise
//     MADV_HUGEPAGE) on the memory it maps.  At cluster scale `plan` touches
//     ~500 MB of fresh memory; with 4 KiB pages that is ~125,000 page faults
//     (1.3 s of kernel time of 2.9 s, measured 2026-12-04: bench/HISTORY.md (g)).  On a
//     kernel whose THP mode is "never" the advice is ignored: nothing changes.
//   * The long-running controller opts out for its whole process
//     (TuneAllocatorForService, batch_allocator.h): huge pages would keep
//     partly used 2 MiB pages resident between its plans.
//   * "narenas:1": one arena for every thread.  `plan` reads the snapshot
//     on one thread and the history on another, then plans and prints on
//     the first; with one arena per thread (jemalloc's default, 4 per CPU)
//     the memory one phase frees (the snapshot's outgrown vectors, the
//     history reader's tables) stays in its thread's arena and the next
//     phase faults in fresh pages instead (~20 MB less peak RSS, less kernel
//     time, measured 2026-12-04: bench/HISTORY.md (g)).  The threads allocate in
//     bursts of their own and keep per-thread caches (tcache), so the one
//     arena's lock is rarely contended (the two-thread history read is
//     measured there too).
#pragma once

namespace kubeon::cli {

inline constexpr const char* kJemallocOptions = "thp:always,narenas:1";

}  // namespace kubeon::cli
