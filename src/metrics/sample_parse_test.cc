#include "metrics/sample_parse.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

namespace kubeon::metrics::internal {
namespace {

constexpr int64_t kStartMs = 1793527200000;  // 2026-11-01T10:00:00Z

TEST(SampleParseTest, ClassifiesOnlyTheUsedMetrics) {
  EXPECT_EQ(ClassifyMetric("DCGM_FI_DEV_FB_USED"), Metric::kFbUsed);
  EXPECT_EQ(ClassifyMetric("DCGM_FI_PROF_GR_ENGINE_ACTIVE"), Metric::kGrEngineActive);
  EXPECT_EQ(ClassifyMetric("DCGM_FI_DEV_GPU_UTIL"), Metric::kGpuUtil);
  EXPECT_EQ(ClassifyMetric("DCGM_FI_DEV_FB_FREE"), Metric::kOther);
  EXPECT_EQ(ClassifyMetric("DCGM_FI_DEV_FB_USEDX"), Metric::kOther);
  EXPECT_EQ(ClassifyMetric("dcgm_fi_dev_fb_used"), Metric::kOther);
}

TEST(SampleParseTest, ValuesAsPrometheusWritesThem) {
  double v = 0;
  EXPECT_TRUE(ParseSampleValue("2207", &v));
  EXPECT_EQ(v, 2207);
  EXPECT_TRUE(ParseSampleValue("2.5e3", &v));
  EXPECT_EQ(v, 2500);
  EXPECT_TRUE(ParseSampleValue("1E-2", &v));
  EXPECT_DOUBLE_EQ(v, 0.01);
  EXPECT_TRUE(ParseSampleValue("+0.5", &v));
  EXPECT_EQ(v, 0.5);
  EXPECT_TRUE(ParseSampleValue("-3", &v));
  EXPECT_EQ(v, -3);
  EXPECT_TRUE(ParseSampleValue("NaN", &v));
  EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(ParseSampleValue("+Inf", &v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  EXPECT_TRUE(ParseSampleValue("-Inf", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  for (const char* bad : {"", "abc", "1.5x", "++1", "+-1", "+", "1,5", " 1"}) {
    EXPECT_FALSE(ParseSampleValue(bad, &v)) << bad;
  }
}

// The digits-only fast path must give the very double std::from_chars gives,
// on both sides of its 15-digit limit and for every spelling it declines.
TEST(SampleParseTest, DecimalValuesEqualFromChars) {
  std::mt19937_64 rng(7);
  const std::string digits = "0123456789";
  auto from_chars = [](const std::string& t, double* out) {
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
    return ec == std::errc() && ptr == t.data() + t.size();
  };
  std::vector<std::string> texts = {"0", "0.0", "000.5", "5.", ".5", "1.", "999999999999999",
                                    "9999999999999999", "0.000000000000001", "123456789012345.6",
                                    "12345678901234.56", "0.1", "0.3", "2.675", "9007199254740993",
                                    "1.7976931348623157", "4.9406564584124654", "00000000000000001"};
  for (int n = 0; n < 200000; ++n) {
    std::string t;
    const int len = 1 + static_cast<int>(rng() % 19);
    const int point = static_cast<int>(rng() % (len + 2)) - 1;  // -1 or len+: no point
    for (int i = 0; i < len; ++i) t += i == point ? '.' : digits[rng() % 10];
    texts.push_back(t);
  }
  for (const std::string& t : texts) {
    double want = -1;
    double got = -2;
    const bool ok = from_chars(t, &want);
    ASSERT_EQ(ParseSampleValue(t, &got), ok) << t;
    if (ok) {
      ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << t << ": " << want << " vs " << got;
    }
  }
}

// Eight digits are read at once (one 64-bit load and test): bytes just
// outside '0'..'9' ('/', ':', 0xFA..0xFF, which carry when 6 is added) at
// every position of the eight must stop it there, as from_chars stops.
TEST(SampleParseTest, NonDigitsAmongEightDigitsAreSeen) {
  std::mt19937_64 rng(11);
  const std::string alphabet("0123456789/:.e-\xfa\xff\0 ", 19);
  auto from_chars = [](const std::string& t, double* out) {
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
    return ec == std::errc() && ptr == t.data() + t.size();
  };
  for (int n = 0; n < 200000; ++n) {
    std::string t;
    const int len = 1 + static_cast<int>(rng() % 17);
    for (int i = 0; i < len; ++i) t += "0123456789"[rng() % 10];
    t[rng() % t.size()] = alphabet[rng() % alphabet.size()];  // often still a digit
    double want = -1;
    double got = -2;
    const bool ok = from_chars(t, &want);
    ASSERT_EQ(ParseSampleValue(t, &got), ok) << t;
    if (ok) {
      ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << t;
    }
  }
}

// Timestamps of 1 to 14 digits, with or without a fraction or a stray byte:
// the fast path (whole seconds read eight digits at a time) gives what the
// full parse gives, or refuses what it refuses.
TEST(SampleParseTest, UnixSecondsOfEveryLengthEqualTheFullParse) {
  std::mt19937_64 rng(5);
  for (int n = 0; n < 200000; ++n) {
    std::string t;
    const int len = 1 + static_cast<int>(rng() % 14);
    for (int i = 0; i < len; ++i) t += "0123456789"[rng() % 10];
    if (rng() % 3 == 0) t += "." + std::to_string(rng() % 100000);
    if (rng() % 5 == 0) t[rng() % t.size()] = "/:x\xfa"[rng() % 4];
    double seconds = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), seconds);
    const bool parses = ec == std::errc() && ptr == t.data() + t.size();
    int64_t ms = -1;
    const char* reason = ParseUnixSeconds(t, &ms);
    if (!parses || seconds >= 32503680000.0) {
      EXPECT_NE(reason, nullptr) << t;
      continue;
    }
    ASSERT_EQ(reason, nullptr) << t;
    // The fast path keeps milliseconds, rounding on the fourth decimal.
    const size_t point = t.find('.');
    int64_t want = std::llround(std::floor(seconds)) * 1000;
    if (point != std::string::npos) {
      std::string frac = t.substr(point + 1) + "0000";
      want += std::stoll(frac.substr(0, 3)) + (frac[3] >= '5' ? 1 : 0);
    }
    ASSERT_EQ(ms, want) << t;
  }
}

// The simple spelling ReadSimpleSampleEnd promises to read, decided the
// plain way: a value of 1 to 15 digits with an optional '.' and fraction
// digit(s), and 1 to 11 digits of seconds below the year 3000.
bool IsSimpleValue(const std::string& v) {
  const size_t point = v.find('.');
  const std::string digits = point == std::string::npos ? v : v.substr(0, point) + v.substr(point + 1);
  if (point == 0 || point + 1 == v.size() || digits.empty() || digits.size() > 15) return false;
  return digits.find_first_not_of("0123456789") == std::string::npos;
}
bool IsSimpleSeconds(const std::string& t) {
  return !t.empty() && t.size() <= 11 && t.find_first_not_of("0123456789") == std::string::npos &&
         std::stoll(t) < 32503680000;
}

// Sample ends of every shape around the simple one, each with nothing, a
// short or a long line after it (the 8-byte loads need 32 bytes ahead):
// read exactly when simple, and then as ParseSampleValue and
// ParseUnixSeconds read the two texts.
TEST(SampleParseTest, SimpleSampleEndIsTheGeneralParseOfTheCommonSpelling) {
  std::mt19937_64 rng(17);
  const std::string value_bytes = "0123456789012345678901234567890123456789.+-eE x\xfa";
  const std::vector<std::string> terminators = {"\n", "\r\n", "", "\r", " \n", "\t\n", " # {} 1\n", "x\n"};
  const std::vector<std::string> afters = {"", "next", std::string(40, 'z')};
  size_t simple = 0;
  for (int n = 0; n < 300000; ++n) {
    std::string value;
    const int vlen = 1 + static_cast<int>(rng() % 19);
    for (int i = 0; i < vlen; ++i) value += rng() % 4 == 0 ? value_bytes[rng() % value_bytes.size()] : "0123456789"[rng() % 10];
    std::string ts;
    const int tlen = static_cast<int>(rng() % 14);
    for (int i = 0; i < tlen; ++i) ts += "0123456789"[rng() % 10];
    if (rng() % 8 == 0 && !ts.empty()) ts[rng() % ts.size()] = ".x-"[rng() % 3];
    const std::string& term = rng() % 3 == 0 ? terminators[rng() % terminators.size()] : terminators[0];
    const std::string text = " " + value + " " + ts + term + afters[rng() % afters.size()];
    double got_value = -1;
    int64_t got_ms = -1;
    const char* nl = ReadSimpleSampleEnd(text.data(), text.data() + text.size(), &got_value, &got_ms);
    const bool want_simple = IsSimpleValue(value) && IsSimpleSeconds(ts) && (term == "\n" || term == "\r\n");
    ASSERT_EQ(nl != nullptr, want_simple) << "[" << text << "]";
    if (!want_simple) continue;
    ++simple;
    EXPECT_EQ(nl - text.data(), static_cast<ptrdiff_t>(1 + value.size() + 1 + ts.size() + term.size() - 1)) << text;
    double want_value = -2;
    ASSERT_TRUE(ParseSampleValue(value, &want_value)) << value;
    ASSERT_EQ(std::memcmp(&want_value, &got_value, sizeof want_value), 0) << value;
    int64_t want_ms = -2;
    ASSERT_EQ(ParseUnixSeconds(ts, &want_ms), nullptr) << ts;
    ASSERT_EQ(got_ms, want_ms) << ts;
  }
  EXPECT_GT(simple, 10000u);  // the simple shapes were met, not only refusals
  // At the edges: 15 digits, 11-digit seconds, the year 3000, 7 and 8 digits
  // on each side of the point (where the 8-byte loads stop).
  const std::string pad(40, 'z');
  for (const auto& [v, t, ok] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"123456789012345", "1793527200", true},
           {"1234567890123456", "1793527200", false},
           {"1234567.1234567", "1793527200", true},
           {"12345678.1234567", "1793527200", true},
           {"1234567.12345678", "1793527200", true},
           {"1.23456789012345", "1793527200", true},
           {"0.000000", "32503679999", true},
           {"7", "32503680000", false},
           {"7", "012345678901", false},
           {"7", "0", true}}) {
    for (const std::string& after : {std::string(), pad}) {
      const std::string text = " " + v + " " + t + "\n" + after;
      double value = -1;
      int64_t ms = -1;
      const char* nl = ReadSimpleSampleEnd(text.data(), text.data() + text.size(), &value, &ms);
      ASSERT_EQ(nl != nullptr, ok) << text;
      if (!ok) continue;
      double want = -2;
      ASSERT_TRUE(ParseSampleValue(v, &want));
      EXPECT_EQ(std::memcmp(&want, &value, sizeof want), 0) << v;
      EXPECT_EQ(ms, std::stoll(t) * 1000) << t;
    }
  }
}

TEST(SampleParseTest, CheckRejectsUnusableValues) {
  EXPECT_EQ(CheckSampleValue(Metric::kFbUsed, 100), nullptr);
  EXPECT_EQ(CheckSampleValue(Metric::kGrEngineActive, 1.2), nullptr);  // clamped later
  EXPECT_STREQ(CheckSampleValue(Metric::kFbUsed, std::nan("")), "value is NaN");
  EXPECT_STREQ(CheckSampleValue(Metric::kFbUsed, HUGE_VAL), "value is infinite");
  EXPECT_STREQ(CheckSampleValue(Metric::kGpuUtil, -1), "value is negative");
  EXPECT_NE(CheckSampleValue(Metric::kFbUsed, 1e13), nullptr);
}

TEST(SampleParseTest, UnixSeconds) {
  int64_t ms = 0;
  EXPECT_EQ(ParseUnixSeconds("1793527200", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs);
  EXPECT_EQ(ParseUnixSeconds("1793527200.25", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 250);
  EXPECT_EQ(ParseUnixSeconds("1793527200.1236", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 124);
  EXPECT_EQ(ParseUnixSeconds("1793527200.9995", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 1000);
  EXPECT_EQ(ParseUnixSeconds("1793527200.", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs);
  EXPECT_EQ(ParseUnixSeconds("1.7935272e9", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs);
  EXPECT_EQ(ParseUnixSeconds("0", &ms), nullptr);
  EXPECT_EQ(ms, 0);
}

TEST(SampleParseTest, UnixSecondsRejectsMillisecondsAndGarbage) {
  int64_t ms = 0;
  const char* reason = ParseUnixSeconds("1793527200000", &ms);
  ASSERT_NE(reason, nullptr);
  EXPECT_NE(std::string(reason).find("milliseconds"), std::string::npos);
  EXPECT_NE(ParseUnixSeconds("-5", &ms), nullptr);
  EXPECT_NE(ParseUnixSeconds("", &ms), nullptr);
  EXPECT_NE(ParseUnixSeconds("12abc", &ms), nullptr);
  EXPECT_NE(ParseUnixSeconds("NaN", &ms), nullptr);
  EXPECT_NE(ParseUnixSeconds("1.2.3", &ms), nullptr);
}

TEST(SampleParseTest, Rfc3339) {
  int64_t ms = 0;
  EXPECT_EQ(ParseRfc3339("2026-11-01T10:00:00Z", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs);
  EXPECT_EQ(ParseRfc3339("2026-11-01t10:00:00z", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs);
  EXPECT_EQ(ParseRfc3339("2026-11-01 10:00:00Z", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs);
  EXPECT_EQ(ParseRfc3339("2026-11-01T12:00:00.5+02:00", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 500);
  EXPECT_EQ(ParseRfc3339("2026-11-01T05:30:00.123456-04:30", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 123);
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z", &ms), nullptr);
  EXPECT_EQ(ms, 0);
  EXPECT_EQ(ParseRfc3339("2024-02-29T00:00:00Z", &ms), nullptr);
  EXPECT_EQ(ms, 1709164800000);
  for (const char* bad :
       {"2026-11-01T10:00:00", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-11-01T24:00:00Z", "2026-11-01T10:00:00ZX",
        "2026-11-01T10:00:00.Z", "2026-11-01T10:00:00+0200", "26-11-01T10:00:00Z",
        "1969-12-31T23:59:59Z"}) {
    EXPECT_NE(ParseRfc3339(bad, &ms), nullptr) << bad;
  }
}

TEST(SampleParseTest, CsvTimestampAcceptsBoth) {
  int64_t ms = 0;
  EXPECT_EQ(ParseCsvTimestamp("2026-11-01T10:00:30Z", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 30000);
  EXPECT_EQ(ParseCsvTimestamp("1793527230", &ms), nullptr);
  EXPECT_EQ(ms, kStartMs + 30000);
  EXPECT_NE(ParseCsvTimestamp("yesterday", &ms), nullptr);
}

TEST(SampleParseTest, TrimBlanks) {
  EXPECT_EQ(TrimBlanks(" \t a b \t"), "a b");
  EXPECT_EQ(TrimBlanks("   "), "");
}

}  // namespace
}  // namespace kubeon::metrics::internal
