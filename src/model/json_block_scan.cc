// See json_block_scan.h.
#include "model/json_block_scan.h"

#include <bit>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kubeon::model {
namespace {

struct Masks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

#if defined(__SSE2__)
Masks Classify(const char* p) {
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
Masks Classify(const char* p) {
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

// Bit i of the result: the XOR of bits 0..i of x.
uint64_t PrefixXor(uint64_t x) {
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
size_t BitCount(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555u;
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return static_cast<size_t>((x * 0x0101010101010101u) >> 56);
}

}  // namespace

JsonBlockScan ScanJsonBlocks(const char* text, size_t size, size_t* depth, size_t max_depth, size_t* too_deep_at) {
  JsonBlockScan result;
  bool check_depth = too_deep_at != nullptr && *too_deep_at == std::string_view::npos;
  uint64_t in_string = 0;   // all ones while the previous block ended inside a string
  size_t open_quote = 0;    // the opening quote of that string
  size_t at = 0;
  for (; size - at >= kJsonBlock; at += kJsonBlock) {
    const Masks m = Classify(text + at);
    if (m.backslash != 0) {
      result.stop = JsonBlockScan::kBackslash;
      result.offset = in_string != 0 ? open_quote : at;
      result.scalar_until = at + kJsonBlock;
      return result;
    }
    const uint64_t inside = PrefixXor(m.quote) ^ in_string;
    const uint64_t opens = m.open & ~inside, closes = m.close & ~inside;
    const size_t n_open = BitCount(opens);
    const size_t n_close = BitCount(closes);
    if (n_close < *depth && (!check_depth || *depth + n_open <= max_depth)) {
      *depth += n_open;
      *depth -= n_close;
    } else {
      for (uint64_t brackets = opens | closes; brackets != 0; brackets &= brackets - 1) {
        const size_t i = static_cast<size_t>(std::countr_zero(brackets));
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
    if (m.quote != 0) open_quote = at + static_cast<size_t>(63 - std::countl_zero(m.quote));
    in_string = (inside >> 63) != 0 ? ~uint64_t{0} : 0;
  }
  result.stop = JsonBlockScan::kShort;
  result.offset = in_string != 0 ? open_quote : at;
  return result;
}

}  // namespace kubeon::model
