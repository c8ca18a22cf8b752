// Tests for window.h: parsing, errors naming the bad part, and Contains /
// NextOpen / CloseOf across midnight, the week boundary and UTC offsets,
// checked against a brute-force reading of the grammar.
#include "policy/window.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace kubeon::policy {
namespace {

using namespace std::chrono;  // NOLINT(build/namespaces)

// 2024-01-01 is a Monday.
constexpr year_month_day kMonday = 2024y / January / 1d;

sys_seconds At(year_month_day day, int hour, int minute, int second = 0) {
  return sys_days(day) + hours(hour) + minutes(minute) + seconds(second);
}
// Day `d` of the week starting 2024-01-01 (0 = Monday ... 6 = Sunday, 7 = next Monday).
sys_seconds Day(int d, int hour, int minute, int second = 0) {
  return sys_days(kMonday) + days(d) + hours(hour) + minutes(minute) + seconds(second);
}

Window MustParse(std::string_view text) {
  Result<Window> w = Window::Parse(text);
  EXPECT_TRUE(w.ok()) << text << ": " << (w.ok() ? "" : w.status().message());
  if (!w.ok()) std::abort();
  return *w;
}

TEST(WindowParse, KeepsText) {
  EXPECT_EQ(MustParse("Sat 02:00-06:00 UTC").text(), "Sat 02:00-06:00 UTC");
  EXPECT_EQ(MustParse("  Sat, Sun 02:00 - 06:00 utc ").text(), "  Sat, Sun 02:00 - 06:00 utc ");
}

TEST(WindowParse, AcceptsTheGrammarsVariants) {
  for (const char* text : {"Sat 02:00-06:00 UTC", "sat 2:00-6:00 utc", "SAT 02:00-06:00 GMT",
                           "Sat,Sun 02:00-06:00 Z", "Sat, Sun 02:00 - 06:00 UTC",
                           "Mon,Wed-Fri 01:00-02:00 UTC", "Fri-Mon 22:00-24:00 UTC",
                           "Daily 03:00-04:00 +02:00", "daily 03:00-04:00 -0530",
                           "* 03:00-04:00 UTC+02:00", "Mon 00:00-24:00 UTC-05",
                           "Mon 23:59-00:00 +14:00", "Tue 10:00-11:00 -14:00"}) {
    EXPECT_TRUE(Window::Parse(text).ok()) << text;
  }
}

struct BadWindow {
  const char* text;
  const char* message;  // expected substring
};

TEST(WindowParse, ErrorsNameTheBadPart) {
  const BadWindow cases[] = {
      {"", "window is empty"},
      {"   ", "window is empty"},
      {"Sat", "time range missing"},
      {"Sta 02:00-06:00 UTC", "day \"Sta\": not a day name"},
      {"Sta 02:00-06:00 UTC", "(did you mean \"Sat\"?)"},
      {"Saturday 02:00-06:00 UTC", "day \"Saturday\": use the three-letter name \"Sat\""},
      {"Mon-Frx 02:00-06:00 UTC", "day \"Frx\""},
      {"Mon-Mon 02:00-06:00 UTC", "day range \"Mon-Mon\": starts and ends on the same day"},
      {"Mon,,Tue 02:00-06:00 UTC", "empty day name"},
      {"Mon,Daily 02:00-06:00 UTC", "\"Daily\" must stand alone"},
      {"Sat Sun 02:00-06:00 UTC", "days \"Sat Sun\": separate days with commas"},
      {"02:00-06:00 UTC", "days missing before \"02:00-06:00\""},
      {"Sat 25:00-06:00 UTC", "start time \"25:00\": hour must be 00..23"},
      {"Sat 02:00-25:00 UTC", "end time \"25:00\": hour must be 00..23"},
      {"Sat 02:00-06:60 UTC", "end time \"06:60\": minutes must be 00..59"},
      {"Sat 24:00-06:00 UTC", "start time \"24:00\": 24:00 is allowed only as an end time"},
      {"Sat 02:00-24:30 UTC", "end time \"24:30\""},
      {"Sat 2am-6am UTC", "start time \"2am\": expected HH:MM"},
      {"Sat 02:00-6 UTC", "end time \"6\": expected HH:MM"},
      {"Sat 02:00-06:00-08:00 UTC", "time range \"02:00-06:00-08:00\": expected HH:MM-HH:MM"},
      {"Sat 02:00-02:00 UTC", "start equals end"},
      {"Sat 02:00-06:00", "zone missing after \"02:00-06:00\""},
      {"Sat 02:00-06:00 CET", "zone \"CET\": expected UTC or a fixed offset"},
      {"Sat 02:00-06:00 Europe/Berlin", "zone \"Europe/Berlin\""},
      {"Sat 02:00-06:00 +15:00", "zone \"+15:00\": offset must be at most 14:00"},
      {"Sat 02:00-06:00 +02:75", "zone \"+02:75\": offset minutes must be 00..59"},
      {"Sat 02:00-06:00 +2:0", "zone \"+2:0\""},
      {"Sat 02:00-06:00 UTC extra", "unexpected \"extra\" after zone \"UTC\""},
  };
  for (const BadWindow& c : cases) {
    Result<Window> w = Window::Parse(c.text);
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_NE(w.status().message().find(c.message), std::string::npos)
        << c.text << " -> " << w.status().message();
    // Every message quotes the window it is about.
    EXPECT_EQ(w.status().message().rfind("\"" + std::string(c.text) + "\": ", 0), 0u)
        << w.status().message();
  }
}

TEST(WindowContains, SimpleWindowStartInclusiveEndExclusive) {
  const Window w = MustParse("Sat 02:00-06:00 UTC");
  EXPECT_FALSE(w.Contains(Day(5, 1, 59, 59)));
  EXPECT_TRUE(w.Contains(Day(5, 2, 0)));
  EXPECT_TRUE(w.Contains(Day(5, 5, 59, 59)));
  EXPECT_FALSE(w.Contains(Day(5, 6, 0)));
  EXPECT_FALSE(w.Contains(Day(6, 3, 0)));  // Sunday
  EXPECT_FALSE(w.Contains(Day(4, 3, 0)));  // Friday
  EXPECT_TRUE(w.Contains(Day(12, 3, 0)));  // next Saturday
  EXPECT_TRUE(w.Contains(Day(-2, 3, 0)));  // the Saturday before
}

TEST(WindowContains, CrossesMidnightAndTheDayNamesTheStart) {
  const Window w = MustParse("Mon-Fri 22:00-04:00 UTC");
  EXPECT_FALSE(w.Contains(Day(0, 3, 0)));  // Monday 03:00: Sunday night is not listed
  EXPECT_FALSE(w.Contains(Day(0, 21, 59)));
  EXPECT_TRUE(w.Contains(Day(0, 22, 0)));   // opens Monday 22:00
  EXPECT_TRUE(w.Contains(Day(1, 3, 59, 59)));
  EXPECT_FALSE(w.Contains(Day(1, 4, 0)));   // closes Tuesday 04:00
  EXPECT_TRUE(w.Contains(Day(5, 3, 0)));    // Saturday 03:00 belongs to Friday's opening
  EXPECT_FALSE(w.Contains(Day(5, 22, 0)));  // no Saturday opening
  EXPECT_FALSE(w.Contains(Day(6, 23, 0)));
}

TEST(WindowContains, WrapsFromSundayIntoMonday) {
  const Window w = MustParse("Sun 22:00-02:00 UTC");
  EXPECT_TRUE(w.Contains(Day(6, 22, 0)));
  EXPECT_TRUE(w.Contains(Day(7, 0, 0)));
  EXPECT_TRUE(w.Contains(Day(7, 1, 59)));
  EXPECT_FALSE(w.Contains(Day(7, 2, 0)));
  EXPECT_TRUE(w.Contains(Day(0, 1, 0)));  // Monday morning of the first week (Sunday before)
  EXPECT_EQ(w.CloseOf(Day(6, 23, 0)), Day(7, 2, 0));
  EXPECT_EQ(w.CloseOf(Day(7, 1, 0)), Day(7, 2, 0));
}

TEST(WindowContains, DayRangesWrapTheWeek) {
  const Window w = MustParse("Fri-Mon 10:00-11:00 UTC");
  const bool expected[7] = {true, false, false, false, true, true, true};
  for (int d = 0; d < 7; ++d) EXPECT_EQ(w.Contains(Day(d, 10, 30)), expected[d]) << d;
  const Window list = MustParse("Mon,Wed-Fri 10:00-11:00 UTC");
  const bool expected_list[7] = {true, false, true, true, true, false, false};
  for (int d = 0; d < 7; ++d) EXPECT_EQ(list.Contains(Day(d, 10, 30)), expected_list[d]) << d;
}

TEST(WindowContains, DailyAndStar) {
  for (const char* text : {"Daily 03:00-04:00 UTC", "* 03:00-04:00 UTC", "DAILY 03:00-04:00 UTC",
                           "Mon-Sun 03:00-04:00 UTC"}) {
    const Window w = MustParse(text);
    for (int d = 0; d < 7; ++d) {
      EXPECT_TRUE(w.Contains(Day(d, 3, 30))) << text << " day " << d;
      EXPECT_FALSE(w.Contains(Day(d, 4, 30))) << text << " day " << d;
    }
  }
}

TEST(WindowContains, FixedOffsets) {
  // 02:00-06:00 at +02:00 is 00:00-04:00 UTC.
  for (const char* text : {"Sat 02:00-06:00 +02:00", "Sat 02:00-06:00 UTC+02:00",
                           "Sat 02:00-06:00 +0200", "Sat 02:00-06:00 +02"}) {
    const Window w = MustParse(text);
    EXPECT_FALSE(w.Contains(Day(4, 23, 59))) << text;
    EXPECT_TRUE(w.Contains(Day(5, 0, 0))) << text;
    EXPECT_TRUE(w.Contains(Day(5, 3, 59))) << text;
    EXPECT_FALSE(w.Contains(Day(5, 4, 0))) << text;
  }
  // Monday 01:00 at +05:00 is Sunday 20:00 UTC: the opening moves to the previous week day.
  const Window east = MustParse("Mon 01:00-02:00 +05:00");
  EXPECT_TRUE(east.Contains(Day(6, 20, 30)));
  EXPECT_FALSE(east.Contains(Day(7, 1, 30)));
  // Sunday 22:00 at -05:30 is Monday 03:30 UTC.
  const Window west = MustParse("Sun 22:00-23:00 -0530");
  EXPECT_FALSE(west.Contains(Day(6, 22, 30)));
  EXPECT_FALSE(west.Contains(Day(7, 3, 29)));
  EXPECT_TRUE(west.Contains(Day(7, 3, 30)));
  EXPECT_TRUE(west.Contains(Day(7, 4, 29)));
  EXPECT_FALSE(west.Contains(Day(7, 4, 30)));
}

TEST(WindowContains, NoDaylightSavingShift) {
  // A fixed offset means the same UTC hours in winter and summer (EU DST starts 2024-03-31).
  const Window w = MustParse("Sun 02:00-03:00 +01:00");
  EXPECT_TRUE(w.Contains(At(2024y / March / 24d, 1, 30)));
  EXPECT_TRUE(w.Contains(At(2024y / March / 31d, 1, 30)));
  EXPECT_TRUE(w.Contains(At(2024y / July / 7d, 1, 30)));
  EXPECT_FALSE(w.Contains(At(2024y / July / 7d, 0, 30)));
}

TEST(WindowNextOpen, InsideReturnsTheSameInstant) {
  const Window w = MustParse("Sat 02:00-06:00 UTC");
  EXPECT_EQ(w.NextOpen(Day(5, 3, 17, 5)), Day(5, 3, 17, 5));
  EXPECT_EQ(w.NextOpen(Day(5, 2, 0)), Day(5, 2, 0));
}

TEST(WindowNextOpen, FindsTheNextStart) {
  const Window w = MustParse("Sat 02:00-06:00 UTC");
  EXPECT_EQ(w.NextOpen(Day(2, 12, 0)), Day(5, 2, 0));
  EXPECT_EQ(w.NextOpen(Day(5, 1, 59, 59)), Day(5, 2, 0));
  EXPECT_EQ(w.NextOpen(Day(5, 6, 0)), Day(12, 2, 0));  // just closed: next week
  const Window nights = MustParse("Mon-Fri 22:00-04:00 UTC");
  EXPECT_EQ(nights.NextOpen(Day(5, 5, 0)), Day(7, 22, 0));  // Saturday -> next Monday
  EXPECT_EQ(nights.NextOpen(Day(2, 12, 0)), Day(2, 22, 0));
  const Window offset = MustParse("Mon 01:00-02:00 +05:00");
  EXPECT_EQ(offset.NextOpen(Day(0, 0, 0)), Day(6, 20, 0));
}

TEST(WindowCloseOf, EndOfTheOpening) {
  const Window w = MustParse("Mon-Fri 22:00-04:00 UTC");
  EXPECT_EQ(w.CloseOf(Day(0, 23, 0)), Day(1, 4, 0));
  EXPECT_EQ(w.CloseOf(Day(1, 3, 59, 59)), Day(1, 4, 0));
  EXPECT_EQ(w.CloseOf(Day(5, 0, 30)), Day(5, 4, 0));
  // Not inside: returns the argument.
  EXPECT_EQ(w.CloseOf(Day(2, 12, 0)), Day(2, 12, 0));
}

TEST(WindowCloseOf, AdjacentOpeningsJoin) {
  const Window w = MustParse("Mon,Tue 00:00-24:00 UTC");
  EXPECT_EQ(w.CloseOf(Day(0, 10, 0)), Day(2, 0, 0));
  EXPECT_EQ(w.NextOpen(Day(3, 0, 0)), Day(7, 0, 0));
  const Window week_end = MustParse("Sun,Mon 00:00-24:00 UTC");  // joins across the week start
  EXPECT_EQ(week_end.CloseOf(Day(6, 12, 0)), Day(8, 0, 0));
  EXPECT_EQ(week_end.CloseOf(Day(7, 12, 0)), Day(8, 0, 0));
  EXPECT_EQ(week_end.NextOpen(Day(8, 0, 0)), Day(13, 0, 0));
  const Window wrap = MustParse("Sun,Mon 00:00-24:00 +03:00");
  EXPECT_EQ(wrap.CloseOf(Day(6, 12, 0)), Day(7, 21, 0));
  EXPECT_EQ(wrap.NextOpen(Day(2, 0, 0)), Day(5, 21, 0));
}

TEST(WindowCloseOf, AlwaysOpenNeverCloses) {
  for (const char* text : {"Daily 00:00-24:00 UTC", "* 00:00-24:00 +05:30",
                           "Fri-Thu 00:00-24:00 UTC"}) {
    const Window w = MustParse(text);
    for (int d = 0; d < 7; ++d) EXPECT_TRUE(w.Contains(Day(d, 17, 3))) << text;
    EXPECT_EQ(w.CloseOf(Day(3, 1, 0)), sys_seconds::max()) << text;
    EXPECT_EQ(w.NextOpen(Day(3, 1, 0)), Day(3, 1, 0)) << text;
  }
  // 23 hours 59 minutes a day is not always open.
  const Window almost = MustParse("Daily 00:01-00:00 UTC");
  EXPECT_FALSE(almost.Contains(Day(3, 0, 0)));
  EXPECT_EQ(almost.CloseOf(Day(3, 12, 0)), Day(4, 0, 0));
}

// ---- Property test against a brute-force reading of the grammar ----

struct Spec {
  std::array<bool, 7> days{};  // 0 = Monday
  int start = 0;               // minutes after local midnight
  int end = 0;                 // 1..1440, != start
  int offset = 0;              // minutes east of UTC
};

// Open at instant t (whole minutes), read straight from the definition: the
// local day and minute, and whether today's or yesterday's opening covers it.
bool ReferenceOpen(const Spec& s, sys_seconds t) {
  const sys_seconds local = t + minutes(s.offset);
  const sys_days local_day = floor<days>(local);
  const int minute = static_cast<int>(duration_cast<minutes>(local - local_day).count());
  const int wd = static_cast<int>(weekday(local_day).iso_encoding()) - 1;  // Mon = 0
  const int yesterday = (wd + 6) % 7;
  if (s.end > s.start) return s.days[wd] && minute >= s.start && minute < s.end;
  return (s.days[wd] && minute >= s.start) || (s.days[yesterday] && minute < s.end);
}

std::string Clock(int m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d:%02d", m / 60, m % 60);
  return buf;
}

std::string RandomCase(std::string s, std::mt19937& rng) {
  for (char& c : s) {
    if (rng() % 3 == 0) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (rng() % 3 == 0) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// Writes the day set as names and ranges (circular runs), shuffled.
std::string DaysText(const Spec& s, std::mt19937& rng) {
  static const char* kNames[7] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  if (std::all_of(s.days.begin(), s.days.end(), [](bool b) { return b; })) {
    switch (rng() % 3) {
      case 0: return RandomCase("Daily", rng);
      case 1: return "*";
      default: return RandomCase("Mon-Sun", rng);
    }
  }
  int first = 0;  // a selected day whose previous day is not selected
  while (!(s.days[first] && !s.days[(first + 6) % 7])) ++first;
  std::vector<std::string> items;
  for (int i = 0; i < 7;) {
    const int d = (first + i) % 7;
    if (!s.days[d]) {
      ++i;
      continue;
    }
    int len = 1;
    while (len < 7 - i && s.days[(d + len) % 7]) ++len;
    if (len == 1 || rng() % 4 == 0) {
      for (int k = 0; k < len; ++k) items.push_back(RandomCase(kNames[(d + k) % 7], rng));
    } else {
      items.push_back(RandomCase(kNames[d], rng) + "-" + RandomCase(kNames[(d + len - 1) % 7], rng));
    }
    i += len;
  }
  std::shuffle(items.begin(), items.end(), rng);
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : (rng() % 2 ? "," : ", ")) + item;
  return out;
}

std::string ZoneText(int offset, std::mt19937& rng) {
  if (offset == 0 && rng() % 2 == 0) return "UTC";
  const char sign = offset < 0 ? '-' : '+';
  const int a = std::abs(offset);
  char buf[32];
  if (rng() % 2 == 0) {
    std::snprintf(buf, sizeof buf, "%c%02d:%02d", sign, a / 60, a % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%c%02d%02d", sign, a / 60, a % 60);
  }
  return (rng() % 3 == 0 ? "UTC" : "") + std::string(buf);
}

Spec RandomSpec(std::mt19937& rng) {
  Spec s;
  do {
    for (bool& d : s.days) d = rng() % 2 == 0;
    if (rng() % 8 == 0) s.days.fill(true);
  } while (std::none_of(s.days.begin(), s.days.end(), [](bool b) { return b; }));
  // Coarse grids make touching and crossing openings common.
  const int grid = rng() % 2 ? 60 : 1;
  s.start = static_cast<int>(rng() % (1440 / grid)) * grid;
  do {
    s.end = static_cast<int>(rng() % (1440 / grid) + 1) * grid;  // 1..1440
  } while (s.end == s.start);
  if (rng() % 6 == 0) s.end = 1440;
  if (rng() % 5 == 0) {  // whole days: neighbouring openings touch, also across Monday 00:00 UTC
    s.start = 0;
    s.end = 1440;
  }
  const int offset_grid = rng() % 2 ? 30 : 1;
  s.offset = static_cast<int>(rng() % (2 * 840 / offset_grid + 1)) * offset_grid - 840;
  return s;
}

TEST(WindowProperty, MatchesMinuteByMinuteBruteForce) {
  std::mt19937 rng(20240601);
  constexpr int kWeekMinutes = 7 * 24 * 60;
  for (int round = 0; round < 300; ++round) {
    const Spec s = RandomSpec(rng);
    const std::string end_text = s.end == 1440 && rng() % 2 ? "24:00" : Clock(s.end % 1440);
    if (end_text == Clock(s.start)) continue;  // 00:00-24:00 written as 00:00-00:00
    const std::string text = DaysText(s, rng) + " " + Clock(s.start) + "-" + end_text + " " +
                             ZoneText(s.offset, rng);
    Result<Window> parsed = Window::Parse(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().message();
    const Window& w = *parsed;

    // Two weeks of reference flags from a random base, plus next-open and
    // next-close indexes computed backwards.
    const sys_seconds base =
        sys_days(2024y / January / 1d) + minutes(static_cast<int>(rng() % 500000));
    constexpr int kSpan = 3 * kWeekMinutes;
    std::vector<char> open(kSpan);
    for (int i = 0; i < kSpan; ++i) open[i] = ReferenceOpen(s, base + minutes(i));
    std::vector<int> next_open(kSpan + 1, -1), next_close(kSpan + 1, -1);
    for (int i = kSpan - 1; i >= 0; --i) {
      next_open[i] = open[i] ? i : next_open[i + 1];
      next_close[i] = !open[i] ? i : next_close[i + 1];
    }
    const bool always = std::all_of(open.begin(), open.end(), [](char c) { return c; });
    for (int i = 0; i < kWeekMinutes; ++i) {
      const sys_seconds t = base + minutes(i);
      const sys_seconds mid = t + seconds(rng() % 60);
      ASSERT_EQ(w.Contains(t), open[i] != 0) << text << " at minute " << i;
      ASSERT_EQ(w.Contains(mid), open[i] != 0) << text << " at minute " << i << " + seconds";
      if (i % 7 != 0) continue;  // NextOpen/CloseOf on a sample
      const std::optional<sys_seconds> next = w.NextOpen(mid);
      ASSERT_TRUE(next.has_value());
      if (open[i]) {
        EXPECT_EQ(*next, mid) << text;
        const sys_seconds close = w.CloseOf(mid);
        if (always) {
          EXPECT_EQ(close, sys_seconds::max()) << text;
        } else {
          ASSERT_GE(next_close[i], 0) << text;
          EXPECT_EQ(close, base + minutes(next_close[i])) << text << " at minute " << i;
        }
      } else {
        ASSERT_GE(next_open[i + 1], 0) << text;
        EXPECT_EQ(*next, base + minutes(next_open[i + 1])) << text << " at minute " << i;
        EXPECT_EQ(w.CloseOf(mid), mid);
      }
    }
  }
}

}  // namespace
}  // namespace kubeon::policy
