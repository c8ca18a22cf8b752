// The block loop of ScanJsonBlocks (json_block_scan.h), written once for
// every instruction set it is compiled for: json_block_scan.cc (the portable
// x86-64 baseline, SSE2, or a byte loop) and json_block_scan_avx2.cc (AVX2,
// PCLMUL and POPCNT, chosen at run time when the CPU has them).
//
// Internal to those two files.  Besides the declaration of
// Avx2BlockScanCompiled (defined in json_block_scan_avx2.cc), everything here
// has internal linkage (an anonymous namespace) and calls only compiler
// builtins, never an inline library function: a file compiled with -mavx2 must not hand the linker an
// AVX2 copy of a function the portable file also uses (the linker keeps one
// copy of an inline function, and the portable path would then run AVX2
// instructions on a CPU without them).
//
// REQUIRES: Isa provides
//   static Masks Classify(const char* p);      // the 64 bytes p[0..63]
//   static uint64_t PrefixXor(uint64_t x);     // bit i: XOR of bits 0..i of x
//   static size_t BitCount(uint64_t x);        // the number of bits set
#pragma once

#include <cstddef>
#include <cstdint>

#include "model/json_block_scan.h"

namespace kubeon::model {

// True when json_block_scan_avx2.cc was compiled for AVX2, PCLMUL and POPCNT.
bool Avx2BlockScanCompiled();

namespace {

// One 64-byte block as bit masks (bit i: byte i).
struct Masks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// See json_block_scan.h for the contract.
template <typename Isa>
inline JsonBlockScan ScanBlocks(const char* text, size_t size, size_t* depth, size_t max_depth,
                                size_t* too_deep_at) {
  constexpr size_t kNone = ~size_t{0};  // std::string_view::npos
  JsonBlockScan result;
  bool check_depth = too_deep_at != nullptr && *too_deep_at == kNone;
  uint64_t in_string = 0;   // all ones while the previous block ended inside a string
  size_t open_quote = 0;    // the opening quote of that string
  size_t at = 0;
  for (; size - at >= kJsonBlock; at += kJsonBlock) {
    const Masks m = Isa::Classify(text + at);
    if (m.backslash != 0) {
      result.stop = JsonBlockScan::kBackslash;
      result.offset = in_string != 0 ? open_quote : at;
      result.scalar_until = at + kJsonBlock;
      return result;
    }
    const uint64_t inside = Isa::PrefixXor(m.quote) ^ in_string;
    const uint64_t opens = m.open & ~inside, closes = m.close & ~inside;
    const size_t n_open = Isa::BitCount(opens);
    const size_t n_close = Isa::BitCount(closes);
    if (n_close < *depth && (!check_depth || *depth + n_open <= max_depth)) {
      *depth += n_open;
      *depth -= n_close;
    } else {
      for (uint64_t brackets = opens | closes; brackets != 0; brackets &= brackets - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctzll(brackets));
        if ((opens >> i) & 1) {
          if (++*depth > max_depth && check_depth) {
            *too_deep_at = at + i;
            check_depth = false;
          }
        } else if (--*depth == 0) {
          result.stop = JsonBlockScan::kClosed;
          result.offset = at + i + 1;
          return result;
        }
      }
    }
    if (m.quote != 0) open_quote = at + static_cast<size_t>(63 - __builtin_clzll(m.quote));
    in_string = (inside >> 63) != 0 ? ~uint64_t{0} : 0;
  }
  result.stop = JsonBlockScan::kShort;
  result.offset = in_string != 0 ? open_quote : at;
  return result;
}

}  // namespace
}  // namespace kubeon::model
