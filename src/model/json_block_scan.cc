// See json_block_scan.h.  The loop is json_block_scan_loop.h's; this file
// instantiates it for the portable x86-64 baseline (SSE2) or a byte loop on
// other targets, and chooses between it and json_block_scan_avx2.cc's once.
#include "model/json_block_scan.h"

#include <cstdint>

#include "model/json_block_scan_loop.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kubeon::model {
namespace {

struct PortableIsa {
#if defined(__SSE2__)
  static Masks Classify(const char* p) {
    // '[' (0x5B) and '{' (0x7B) are the only bytes whose value | 0x20 is 0x7B;
    // ']' and '}' likewise for 0x7D.
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i case_bit = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    Masks m;
    for (int i = 0; i < 4; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      const __m128i folded = _mm_or_si128(v, case_bit);
      const int shift = 16 * i;
      auto bits = [&](__m128i eq) { return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(eq))) << shift; };
      m.quote |= bits(_mm_cmpeq_epi8(v, quote));
      m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
      m.open |= bits(_mm_cmpeq_epi8(folded, open));
      m.close |= bits(_mm_cmpeq_epi8(folded, close));
    }
    return m;
  }
#else
  static Masks Classify(const char* p) {
    Masks m;
    for (size_t i = 0; i < kJsonBlock; ++i) {
      const uint64_t bit = uint64_t{1} << i;
      switch (p[i]) {
        case '"': m.quote |= bit; break;
        case '\\': m.backslash |= bit; break;
        case '{': case '[': m.open |= bit; break;
        case '}': case ']': m.close |= bit; break;
        default: break;
      }
    }
    return m;
  }
#endif

  static uint64_t PrefixXor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
  }

  // std::popcount is a call into libgcc unless the target has POPCNT, which
  // the portable x86-64 build does not assume; this is the same count inline.
  static size_t BitCount(uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return static_cast<size_t>((x * 0x0101010101010101u) >> 56);
  }
};

}  // namespace

JsonBlockScan ScanJsonBlocksPortable(const char* text, size_t size, size_t* depth, size_t max_depth,
                                     size_t* too_deep_at) {
  return ScanBlocks<PortableIsa>(text, size, depth, max_depth, too_deep_at);
}

bool Avx2BlockScanAvailable() {
#if defined(__x86_64__)
  return Avx2BlockScanCompiled() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
         __builtin_cpu_supports("popcnt");
#else
  return false;
#endif
}

JsonBlockScan ScanJsonBlocks(const char* text, size_t size, size_t* depth, size_t max_depth, size_t* too_deep_at) {
  static const bool avx2 = Avx2BlockScanAvailable();
  return avx2 ? ScanJsonBlocksAvx2(text, size, depth, max_depth, too_deep_at)
              : ScanJsonBlocksPortable(text, size, depth, max_depth, too_deep_at);
}

}  // namespace kubeon::model
