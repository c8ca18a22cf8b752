// ScanJsonBlocks: counts a JSON container's brackets 64 bytes at a time, for
// the snapshot reader's item scan (model/snapshot_stream), which otherwise
// looks at every byte between strings (a kubectl-indented List is mostly
// spaces and short strings).
//
// Each block becomes bit masks (quotes, backslashes, brackets): with AVX2,
// PCLMUL and POPCNT when the CPU has them (json_block_scan_avx2.cc, chosen at
// the first call), else with the x86-64 baseline's SSE2 (a byte loop on other
// targets); one loop for both (json_block_scan_loop.h).  The bytes inside strings are
// the running XOR of the quote bits, carried from block to block, and only
// brackets outside strings are counted, by popcount when the depth cannot
// reach 0 or pass the cap within the block, bit by bit otherwise.
//
// Contract:
//   * REQUIRES: text[0] is outside any string, inside *depth >= 1 open
//     brackets ('{' and '[' open, '}' and ']' close, as the byte scan counts
//     them: kinds are not matched).
//   * Only whole blocks are scanned: bytes [0, size) are read, never beyond.
//   * A block holding a backslash is left to the byte scan (escapes are rare
//     in a snapshot, and the byte scan's rules for them are then the only
//     ones): the scan stops there.
//   * Returns kClosed with `offset` just past the bracket that closes the
//     value (*depth == 0); otherwise kShort (fewer than 64 bytes left) or
//     kBackslash, with `offset` where the byte scan goes on: a position
//     outside strings at *depth (a block's start, or the opening quote of the
//     string the scan is in), and for kBackslash `scalar_until`, the end of
//     that block: the byte scan goes at least that far before calling again.
//   * When too_deep_at != nullptr and *too_deep_at == npos, *too_deep_at
//     becomes the offset of the first '{' or '[' that makes *depth exceed
//     max_depth, as the byte scan would set it.
//   * No allocation; O(bytes scanned).
#pragma once

#include <cstddef>

namespace kubeon::model {

inline constexpr size_t kJsonBlock = 64;

struct JsonBlockScan {
  enum Stop { kClosed, kShort, kBackslash };
  Stop stop = kShort;
  size_t offset = 0;
  size_t scalar_until = 0;
};

JsonBlockScan ScanJsonBlocks(const char* text, size_t size, size_t* depth, size_t max_depth, size_t* too_deep_at);

// The two scans ScanJsonBlocks chooses from, same contract, for tests and
// benchmarks.  ScanJsonBlocksAvx2 REQUIRES: Avx2BlockScanAvailable() (it is
// the portable scan in a build not for x86-64, where that is false).
JsonBlockScan ScanJsonBlocksPortable(const char* text, size_t size, size_t* depth, size_t max_depth,
                                     size_t* too_deep_at);
JsonBlockScan ScanJsonBlocksAvx2(const char* text, size_t size, size_t* depth, size_t max_depth,
                                 size_t* too_deep_at);
// True when this build has the AVX2 scan and the CPU runs AVX2, PCLMUL and POPCNT.
bool Avx2BlockScanAvailable();

}  // namespace kubeon::model
