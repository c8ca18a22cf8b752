// See sample_parse.h for the contract.
#include "metrics/sample_parse.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

namespace kubeon::metrics::internal {
namespace {

constexpr int64_t kMaxUnixSeconds = 32503680000;  // 3000-01-01T00:00:00Z
constexpr double kMaxMemoryMib = 1e12;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

const char* SecondsToMs(double seconds, int64_t* ms) {
  if (std::isnan(seconds)) return "timestamp is NaN";
  if (!(seconds >= 0 && seconds < static_cast<double>(kMaxUnixSeconds))) {
    return "timestamp is out of range (Unix seconds between 1970 and 3000 are required; "
           "milliseconds are not accepted)";
  }
  *ms = std::llround(seconds * 1000.0);
  return nullptr;
}

// Howard Hinnant's days_from_civil: days since 1970-01-01 of a proleptic
// Gregorian date.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Of a 64-bit load of eight bytes: non-zero in the first byte that is not
// '0'..'9' and zero in every byte before it (so zero when all are digits):
// a digit's high nibble is 3 and stays 3 with 6 added.  A carry from a byte
// >= 0xFA upsets only the bytes after it, which follow a byte already marked.
[[gnu::always_inline]] inline uint64_t NotDigitBytes(uint64_t v) {
  return ((v & 0xF0F0F0F0F0F0F0F0) ^ 0x3030303030303030) |
         (((v + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) ^ 0x3030303030303030);
}

// Eight digit values, one a byte (the first, most significant, in the lowest
// byte), as one number: three multiplications.
[[gnu::always_inline]] inline uint64_t CombineEightDigits(uint64_t v) {
  v = (v * 10 + (v >> 8)) & 0x00FF00FF00FF00FF;  // pairs: 10*d0+d1 in bits 0..15, ...
  v = (v * (1 + (uint64_t{100} << 16))) >> 16;   // quads: 100*pair0+pair1 in bits 0..15, ...
  return ((v & 0x0000FFFF0000FFFF) * (1 + (uint64_t{10000} << 32))) >> 32;  // 10000*quad0+quad1
}

// Reads the run of decimal digits starting at p, at most `limit` of them,
// into *m (m = m * 10 + digit for each), eight at a time while eight are
// there (one 64-bit load: a test that all eight bytes are '0'..'9', then
// three multiplications combine them); returns the end of what it read.
// REQUIRES: *m * 10^limit + 10^limit < 2^64.
[[gnu::always_inline]] inline const char* ReadDigits(const char* p, const char* end, size_t limit, uint64_t* m) {
  const char* stop = end - p > static_cast<ptrdiff_t>(limit) ? p + limit : end;
  while (stop - p >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if (NotDigitBytes(v) != 0) break;
    *m = *m * 100000000 + CombineEightDigits(v - 0x3030303030303030);
    p += 8;
  }
  for (; p < stop && IsDigit(*p); ++p) *m = *m * 10 + static_cast<uint64_t>(*p - '0');
  return p;
}

// The run of decimal digits at p read from one 64-bit load: returns how
// many of the eight bytes lead with digits (0..8) and their number in
// *out.  REQUIRES: p..p+8 readable; a little-endian machine.
[[gnu::always_inline]] inline int EightBytesOfDigits(const char* p, uint64_t* out) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  const uint64_t not_digit = NotDigitBytes(v);
  const int n = not_digit == 0 ? 8 : std::countr_zero(not_digit) >> 3;
  if (n == 0) {
    *out = 0;
    return 0;
  }
  // The n digits moved to the top bytes, after zeros (leading zeros of the
  // number), then combined.
  *out = CombineEightDigits((v - 0x3030303030303030) << (8 * (8 - n)));
  return n;
}

// Reads exactly n digits at text[pos...].
bool Digits(std::string_view text, size_t pos, size_t n, int64_t* out) {
  if (pos + n > text.size()) return false;
  int64_t v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!IsDigit(text[i])) return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = v;
  return true;
}

// 10^0 .. 10^15, each an exact double.
constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                             1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// The common spelling of a DCGM value, digits with an optional fraction
// ("2207", "0.453216"), converted without std::from_chars: with at most 15
// digits in all the digits are an integer m < 2^53 and the fraction's scale
// 10^k (k <= 15) a power of ten, both exact doubles, so m / 10^k is one
// correctly rounded division, the same double from_chars gives (Clinger's
// fast path).  Returns false, leaving *value alone, for anything else (sign,
// exponent, more digits, "5.", ".5"), which from_chars then reads.
bool ParseShortDecimal(std::string_view text, double* value) {
  if (text.empty() || text.size() > 16) return false;
  uint64_t m = 0;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  size_t i = static_cast<size_t>(ReadDigits(begin, end, 16, &m) - begin);
  if (i == 0) return false;
  if (i == text.size()) {
    if (i > 15) return false;
    *value = static_cast<double>(m);
    return true;
  }
  if (text[i] != '.' || i + 1 == text.size()) return false;
  const size_t point = i;
  if (ReadDigits(begin + i + 1, end, 16, &m) != end) return false;
  // text.size() <= 16 with one '.': at most 15 digits.
  *value = static_cast<double>(m) / kPow10[text.size() - point - 1];
  return true;
}

// ReadSimpleSampleEnd's reading from 8-byte loads, when at least 32 bytes
// follow p (room for every load it makes): the value (at most 7 + 7 digits)
// into *value, the time's digits into *seconds, *after the time's end.  False
// when the text is not of the simple form within those loads; the byte-wise
// reading then decides.
bool SimpleSampleEndByWords(const char* p, double* value, uint64_t* seconds, const char** after) {
  static constexpr uint64_t kTens[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  uint64_t m = 0;
  const int int_digits = EightBytesOfDigits(p, &m);
  if (int_digits == 0 || int_digits == 8) return false;
  p += int_digits;
  int frac_digits = 0;
  if (*p == '.') {
    uint64_t frac = 0;
    frac_digits = EightBytesOfDigits(p + 1, &frac);
    if (frac_digits == 0 || frac_digits == 8) return false;
    m = m * kTens[frac_digits] + frac;
    p += 1 + frac_digits;
  }
  if (*p != ' ') return false;
  ++p;
  const int high = EightBytesOfDigits(p, seconds);
  if (high == 0) return false;
  p += high;
  if (high == 8) {
    uint64_t low = 0;
    const int more = EightBytesOfDigits(p, &low);
    if (more > 3) return false;  // 12 or more digits
    *seconds = *seconds * kTens[more] + low;
    p += more;
  }
  // At most 14 digits: m < 2^53 and 10^frac_digits exact, so m / 10^k is the
  // correctly rounded double, as ParseShortDecimal computes it.
  *value = frac_digits == 0 ? static_cast<double>(m) : static_cast<double>(m) / kPow10[frac_digits];
  *after = p;
  return true;
}

// ReadSimpleSampleEnd's reading byte by byte, of [p, end): the value
// token up to one blank (ParseShortDecimal's spelling) into *value, then
// the time's 1 to 11 digits into *seconds; *after is the end of the time.
bool SimpleSampleEndByBytes(const char* p, const char* end, double* value, uint64_t* seconds,
                            const char** after) {
  const char* blank = p;  // the value's end: ParseShortDecimal reads at most 16 bytes
  while (blank < end && blank - p <= 16 && *blank != ' ') ++blank;
  if (blank == end || *blank != ' ' || !ParseShortDecimal(std::string_view(p, static_cast<size_t>(blank - p)), value)) {
    return false;
  }
  p = blank + 1;
  *seconds = 0;
  const char* const ts = p;
  p = ReadDigits(p, end, 12, seconds);
  if (p == ts || p - ts > 11) return false;
  *after = p;
  return true;
}

}  // namespace

const char* ReadSimpleSampleEnd(const char* p, const char* end, double* value, int64_t* ts_ms) {
  if (p == end || *p != ' ') return nullptr;
  ++p;
  uint64_t seconds = 0;
  const char* after = nullptr;
  const bool words = std::endian::native == std::endian::little && end - p >= 32;
  if (!(words && SimpleSampleEndByWords(p, value, &seconds, &after)) &&
      !SimpleSampleEndByBytes(p, end, value, &seconds, &after)) {
    return nullptr;
  }
  if (seconds >= static_cast<uint64_t>(kMaxUnixSeconds)) return nullptr;
  p = after;
  if (p < end && *p == '\r') ++p;
  if (p == end || *p != '\n') return nullptr;
  *ts_ms = static_cast<int64_t>(seconds) * 1000;
  return p;
}

Metric ClassifyMetric(std::string_view name) {
  switch (name.size()) {
    case 19:
      if (name == "DCGM_FI_DEV_FB_USED") return Metric::kFbUsed;
      break;
    case 20:
      if (name == "DCGM_FI_DEV_GPU_UTIL") return Metric::kGpuUtil;
      break;
    case 29:
      if (name == "DCGM_FI_PROF_GR_ENGINE_ACTIVE") return Metric::kGrEngineActive;
      break;
    default:
      break;
  }
  return Metric::kOther;
}

bool ParseSampleValue(std::string_view text, double* value) {
  if (ParseShortDecimal(text, value)) return true;
  if (text.empty()) return false;
  if (text[0] == '+') {
    text.remove_prefix(1);
    if (text.empty() || text[0] == '-' || text[0] == '+') return false;
  }
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

const char* CheckSampleValue(Metric metric, double value) {
  if (std::isnan(value)) return "value is NaN";
  if (std::isinf(value)) return "value is infinite";
  if (value < 0) return "value is negative";
  if (metric == Metric::kFbUsed && value > kMaxMemoryMib) return "memory value is out of range";
  return nullptr;
}

const char* ParseUnixSeconds(std::string_view text, int64_t* ms) {
  if (text.empty()) return "timestamp is empty";
  // Fast path: digits, optionally '.' and digits.
  const char* p = text.data();
  const char* end = p + text.size();
  uint64_t digits = 0;
  const char* digits_end = ReadDigits(p, end, 12, &digits);
  const auto seconds = static_cast<int64_t>(digits);
  const auto int_digits = digits_end - p;
  p = digits_end;
  if (int_digits > 0 && int_digits < 12) {
    if (p == end) {
      if (seconds >= kMaxUnixSeconds) return SecondsToMs(static_cast<double>(seconds), ms);
      *ms = seconds * 1000;
      return nullptr;
    }
    if (*p == '.') {
      ++p;
      int64_t frac = 0;
      int frac_digits = 0;
      bool round_up = false;
      const char* q = p;
      for (; q < end && IsDigit(*q); ++q, ++frac_digits) {
        if (frac_digits < 3) {
          frac = frac * 10 + (*q - '0');
        } else if (frac_digits == 3) {
          round_up = *q >= '5';
        }
      }
      if (q == end && (frac_digits > 0 || int_digits > 0)) {
        for (int i = frac_digits; i < 3; ++i) frac *= 10;
        if (seconds >= kMaxUnixSeconds) return SecondsToMs(static_cast<double>(seconds), ms);
        *ms = seconds * 1000 + frac + (round_up ? 1 : 0);
        return nullptr;
      }
    }
  }
  // Anything else (exponent, sign, very long): full floating-point parse.
  double value = 0;
  if (!ParseSampleValue(text, &value)) return "timestamp is not a number";
  return SecondsToMs(value, ms);
}

const char* ParseRfc3339(std::string_view text, int64_t* ms) {
  constexpr const char* kBad = "timestamp is not RFC 3339 (e.g. 2026-11-01T10:00:00Z)";
  int64_t year, month, day, hour, minute, second;
  if (!Digits(text, 0, 4, &year) || text.size() < 20 || text[4] != '-' ||
      !Digits(text, 5, 2, &month) || text[7] != '-' || !Digits(text, 8, 2, &day) ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || !Digits(text, 11, 2, &hour) ||
      text[13] != ':' || !Digits(text, 14, 2, &minute) || text[16] != ':' ||
      !Digits(text, 17, 2, &second)) {
    return kBad;
  }
  if (month < 1 || month > 12 || day < 1 ||
      day > DaysInMonth(year, static_cast<unsigned>(month)) || hour > 23 || minute > 59 ||
      second > 60) {
    return "timestamp has a field out of range (RFC 3339)";
  }
  size_t pos = 19;
  int64_t frac_ms = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t start = pos;
    bool round_up = false;
    while (pos < text.size() && IsDigit(text[pos])) {
      size_t k = pos - start;
      if (k < 3) {
        frac_ms = frac_ms * 10 + (text[pos] - '0');
      } else if (k == 3) {
        round_up = text[pos] >= '5';
      }
      ++pos;
    }
    size_t n = pos - start;
    if (n == 0) return kBad;
    for (size_t i = n; i < 3; ++i) frac_ms *= 10;
    if (round_up) ++frac_ms;
  }
  int64_t offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int64_t oh, om;
    if (!Digits(text, pos + 1, 2, &oh) || pos + 3 >= text.size() || text[pos + 3] != ':' ||
        !Digits(text, pos + 4, 2, &om) || oh > 23 || om > 59) {
      return kBad;
    }
    offset_minutes = (oh * 60 + om) * (text[pos] == '+' ? 1 : -1);
    pos += 6;
  } else {
    return "timestamp has no time zone (RFC 3339 needs Z or an offset such as +02:00)";
  }
  if (pos != text.size()) return kBad;
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  if (seconds < 0 || seconds >= kMaxUnixSeconds) {
    return "timestamp is out of range (between 1970 and 3000 is required)";
  }
  *ms = seconds * 1000 + frac_ms;
  return nullptr;
}

const char* ParseCsvTimestamp(std::string_view text, int64_t* ms) {
  if (text.size() > 4 && text[4] == '-' && IsDigit(text[0])) return ParseRfc3339(text, ms);
  return ParseUnixSeconds(text, ms);
}

}  // namespace kubeon::metrics::internal
