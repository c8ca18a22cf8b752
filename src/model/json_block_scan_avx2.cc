// See json_block_scan.h.  json_block_scan_loop.h's loop with AVX2 (two
// 32-byte compares per mask), PCLMUL (the in-string prefix XOR in one
// carry-less multiplication) and POPCNT.  The build compiles this file, and
// only this file, with -mavx2 -mpclmul -mpopcnt on x86-64
// (src/model/sources.cmake); ScanJsonBlocks calls it only on a CPU that has
// all three (Avx2BlockScanAvailable, json_block_scan.cc: the CPU is asked
// from a file compiled for the baseline, so that no AVX2 instruction can run
// before the answer).  Elsewhere it is the portable scan.
#include "model/json_block_scan.h"

#if defined(__AVX2__) && defined(__PCLMUL__) && defined(__POPCNT__)
#include <immintrin.h>

#include <cstdint>

#include "model/json_block_scan_loop.h"

namespace kubeon::model {
namespace {

struct Avx2Isa {
  static Masks Classify(const char* p) {
    // As the portable Classify: '[' | 0x20 == '{' and ']' | 0x20 == '}'.
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
    const __m256i case_bit = _mm256_set1_epi8(0x20), open = _mm256_set1_epi8('{'), close = _mm256_set1_epi8('}');
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    const __m256i lo_folded = _mm256_or_si256(lo, case_bit), hi_folded = _mm256_or_si256(hi, case_bit);
    auto bits = [](__m256i lo_eq, __m256i hi_eq) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(lo_eq))) |
             static_cast<uint64_t>(static_cast<uint32_t>(_mm256_movemask_epi8(hi_eq))) << 32;
    };
    Masks m;
    m.quote = bits(_mm256_cmpeq_epi8(lo, quote), _mm256_cmpeq_epi8(hi, quote));
    m.backslash = bits(_mm256_cmpeq_epi8(lo, backslash), _mm256_cmpeq_epi8(hi, backslash));
    m.open = bits(_mm256_cmpeq_epi8(lo_folded, open), _mm256_cmpeq_epi8(hi_folded, open));
    m.close = bits(_mm256_cmpeq_epi8(lo_folded, close), _mm256_cmpeq_epi8(hi_folded, close));
    return m;
  }

  // Multiplying by all ones without carries XORs every lower bit into each bit.
  static uint64_t PrefixXor(uint64_t x) {
    const __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), _mm_set1_epi8(-1), 0);
    return static_cast<uint64_t>(_mm_cvtsi128_si64(product));
  }

  static size_t BitCount(uint64_t x) { return static_cast<size_t>(_mm_popcnt_u64(x)); }
};

}  // namespace

bool Avx2BlockScanCompiled() { return true; }

JsonBlockScan ScanJsonBlocksAvx2(const char* text, size_t size, size_t* depth, size_t max_depth,
                                 size_t* too_deep_at) {
  return ScanBlocks<Avx2Isa>(text, size, depth, max_depth, too_deep_at);
}

}  // namespace kubeon::model

#else  // not compiled for AVX2: the portable scan under both names

namespace kubeon::model {

bool Avx2BlockScanCompiled() { return false; }

JsonBlockScan ScanJsonBlocksAvx2(const char* text, size_t size, size_t* depth, size_t max_depth,
                                 size_t* too_deep_at) {
  return ScanJsonBlocksPortable(text, size, depth, max_depth, too_deep_at);
}

}  // namespace kubeon::model

#endif
