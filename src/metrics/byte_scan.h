// Byte scanning eight bytes at a time (SWAR), for the history readers' hot
// loops: finding quotes and braces in OpenMetrics label sets and commas in
// CSV rows.
//
// Contract:
//   * ByteMask(w, c) has the high bit of every byte of w that equals c set,
//     and no other bit.  It is exact (no false positives from borrows).
//   * FindAny2(p, end, a, b) returns the first position in [p, end) holding
//     a or b, or end.  It reads only bytes inside [p, end).
//   * Results are the same as a plain byte loop on every platform; on
//     little-endian machines eight bytes are examined per step.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace kubeon::metrics::internal {

inline uint64_t ByteMask(uint64_t w, unsigned char c) {
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
  uint64_t x = w ^ (0x0101010101010101ULL * c);
  // High bit set iff the byte of x is zero (no carry crosses bytes).
  return ~(((x & kLow7) + kLow7) | x | kLow7);
}

inline const char* FindAny2(const char* p, const char* end, char a, char b) {
  if constexpr (std::endian::native == std::endian::little) {
    while (end - p >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      uint64_t m = ByteMask(w, static_cast<unsigned char>(a)) |
                   ByteMask(w, static_cast<unsigned char>(b));
      if (m != 0) return p + (std::countr_zero(m) >> 3);
      p += 8;
    }
  }
  while (p < end && *p != a && *p != b) ++p;
  return p;
}

}  // namespace kubeon::metrics::internal
