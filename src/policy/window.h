// A weekly change window such as "Sat 02:00-06:00 UTC" or
// "Mon-Fri 22:00-04:00 +02:00".
//
// Grammar:  <days> <HH:MM>-<HH:MM> <zone>
//   days  "Daily" or "*" (alone), or a comma-separated list of three-letter
//         day names (Mon..Sun, any case) and ranges "Mon-Fri"; a range may
//         wrap ("Fri-Mon" = Fri, Sat, Sun, Mon).  Spaces after commas are
//         allowed ("Sat, Sun").
//   time  H:MM or HH:MM, hours 0..23, minutes 00..59; "24:00" only as end.
//   zone  UTC (also GMT, Z), or a fixed offset +HH:MM, -HHMM, +HH, optionally
//         prefixed by UTC ("UTC+02:00"); at most 14 hours.  Named zones with
//         daylight saving are rejected: the window must mean the same
//         instants every week.
// Each listed day opens one interval at <start> local time on that day.  When
// end <= start the interval crosses midnight and closes at <end> on the next
// day (the day names the START day).  Start == end is an error.  Adjacent
// intervals ("Mon,Tue 00:00-24:00") join into one continuous opening.
//
// Invariants of a parsed Window: at least one day is selected; every opening
// is shorter than or equal to 24 hours before joining; the window repeats
// every 7 days exactly (no DST).  Windows are immutable values.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/status.h"

namespace kubeon::policy {

class Window {
 public:
  // Errors name the part that is wrong: day name, time or zone.
  static Result<Window> Parse(std::string_view text);

  // True when t lies inside an opening (start inclusive, end exclusive).
  bool Contains(std::chrono::sys_seconds t) const;

  // The start of the next opening at or after `after`; `after` itself when
  // Contains(after).  nullopt only for a window with no openings, which Parse
  // never produces.
  std::optional<std::chrono::sys_seconds> NextOpen(std::chrono::sys_seconds after) const;

  // The instant the opening containing t_inside closes (exclusive end).
  // REQUIRES: Contains(t_inside); otherwise returns t_inside.
  // A window open all week ("Daily 00:00-24:00 UTC") never closes:
  // returns std::chrono::sys_seconds::max().
  std::chrono::sys_seconds CloseOf(std::chrono::sys_seconds t_inside) const;

  // The text the window was parsed from, unchanged.
  const std::string& text() const { return text_; }

 private:
  // An opening in UTC seconds since Monday 00:00 UTC: [begin, end) with
  // 0 <= begin < kWeek and begin < end < begin + kWeek; end may pass kWeek
  // (the opening wraps into the next week).
  struct Opening {
    int64_t begin;
    int64_t end;
  };

  Window() = default;

  std::string text_;
  std::vector<Opening> openings_;  // sorted by begin, disjoint, not touching
  bool always_open_ = false;
};

}  // namespace kubeon::policy
