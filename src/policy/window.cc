// See window.h.
#include "policy/window.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "policy/suggest.h"

namespace kubeon::policy {
namespace {

constexpr int64_t kMinutesPerDay = 24 * 60;
constexpr int64_t kMinutesPerWeek = 7 * kMinutesPerDay;
constexpr int64_t kSecondsPerDay = 24 * 60 * 60;
constexpr int64_t kSecondsPerWeek = 7 * kSecondsPerDay;
// 1970-01-01 was a Thursday; the first Monday 00:00 UTC after it is 4 days later.
constexpr int64_t kFirstMondaySeconds = 4 * kSecondsPerDay;
constexpr int kMaxOffsetMinutes = 14 * 60;
constexpr uint8_t kAllDays = 0x7F;

constexpr std::array<std::string_view, 7> kDayNames = {"Mon", "Tue", "Wed", "Thu",
                                                       "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kFullDayNames = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};

constexpr const char* kGrammar =
    "expected \"<days> HH:MM-HH:MM <zone>\", e.g. \"Sat 02:00-06:00 UTC\"";
constexpr const char* kZoneHint =
    "expected UTC or a fixed offset like +02:00, -0530 or UTC+02:00 "
    "(named time zones with daylight saving are not supported)";

int64_t FloorMod(int64_t a, int64_t m) {
  const int64_t r = a % m;
  return r < 0 ? r + m : r;
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

int ToInt(std::string_view digits) {  // REQUIRES: AllDigits(digits), at most 4 digits
  int v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

// Splits on whitespace, then rejoins "02:00 - 06:00" and "Sat, Sun".
std::vector<std::string> Tokenize(std::string_view text) {
  std::vector<std::string> raw;
  std::string cur;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) raw.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) raw.push_back(std::move(cur));

  std::vector<std::string> out;
  for (size_t i = 0; i < raw.size(); ++i) {
    const bool join_dash = raw[i] == "-" && !out.empty() && i + 1 < raw.size();
    const bool join_comma =
        !out.empty() && (out.back().back() == ',' || raw[i].front() == ',');
    if (join_dash) {
      out.back() += "-" + raw[++i];
    } else if (join_comma) {
      out.back() += raw[i];
    } else {
      out.push_back(raw[i]);
    }
  }
  return out;
}

bool LooksLikeTimeRange(std::string_view tok) {
  return !tok.empty() && std::isdigit(static_cast<unsigned char>(tok.front())) &&
         tok.find('-') != std::string_view::npos;
}

Result<int> ParseDayName(std::string_view name) {
  for (int d = 0; d < 7; ++d) {
    if (IEquals(name, kDayNames[d])) return d;
  }
  for (int d = 0; d < 7; ++d) {
    if (IEquals(name, kFullDayNames[d])) {
      return Status::Error("day " + Quote(name) + ": use the three-letter name " +
                           Quote(kDayNames[d]));
    }
  }
  std::vector<std::string_view> candidates(kDayNames.begin(), kDayNames.end());
  candidates.push_back("Daily");
  return Status::Error("day " + Quote(name) +
                       ": not a day name (Mon, Tue, Wed, Thu, Fri, Sat, Sun, Daily or *)" +
                       DidYouMean(name, candidates));
}

// Returns a bit set of days, bit 0 = Monday.
Result<uint8_t> ParseDays(std::string_view days) {
  if (IEquals(days, "daily") || days == "*") return kAllDays;
  uint8_t set = 0;
  size_t pos = 0;
  while (pos <= days.size()) {
    size_t comma = days.find(',', pos);
    if (comma == std::string_view::npos) comma = days.size();
    const std::string_view item = days.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) return Status::Error("days " + Quote(days) + ": empty day name");
    if (IEquals(item, "daily") || item == "*") {
      return Status::Error("days " + Quote(days) + ": " + Quote(item) +
                           " must stand alone, not in a list");
    }
    const size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      Result<int> d = ParseDayName(item);
      if (!d.ok()) return d.status();
      set |= static_cast<uint8_t>(1u << *d);
      continue;
    }
    Result<int> first = ParseDayName(item.substr(0, dash));
    if (!first.ok()) return first.status();
    Result<int> last = ParseDayName(item.substr(dash + 1));
    if (!last.ok()) return last.status();
    if (*first == *last) {
      return Status::Error("day range " + Quote(item) + ": starts and ends on the same day; write " +
                           Quote(kDayNames[*first]));
    }
    for (int d = *first;; d = (d + 1) % 7) {
      set |= static_cast<uint8_t>(1u << d);
      if (d == *last) break;
    }
  }
  return set;
}

// Minutes since local midnight; 24:00 (= 1440) only when is_end.
Result<int> ParseClock(std::string_view s, bool is_end) {
  const std::string what = std::string(is_end ? "end" : "start") + " time " + Quote(s);
  const size_t colon = s.find(':');
  if (colon == std::string_view::npos) return Status::Error(what + ": expected HH:MM");
  const std::string_view hh = s.substr(0, colon);
  const std::string_view mm = s.substr(colon + 1);
  if (!AllDigits(hh) || hh.size() > 2 || !AllDigits(mm) || mm.size() != 2) {
    return Status::Error(what + ": expected HH:MM");
  }
  const int h = ToInt(hh);
  const int m = ToInt(mm);
  if (m > 59) return Status::Error(what + ": minutes must be 00..59");
  if (h == 24 && m == 0) {
    if (is_end) return static_cast<int>(kMinutesPerDay);
    return Status::Error(what + ": 24:00 is allowed only as an end time");
  }
  if (h > 23) {
    return Status::Error(what + ": hour must be 00..23" + (is_end ? " (or 24:00)" : ""));
  }
  return h * 60 + m;
}

// Offset east of UTC in minutes.
Result<int> ParseZone(std::string_view zone) {
  if (IEquals(zone, "UTC") || IEquals(zone, "GMT") || IEquals(zone, "Z")) return 0;
  std::string_view rest = zone;
  if (rest.size() > 3 && (IEquals(rest.substr(0, 3), "UTC") || IEquals(rest.substr(0, 3), "GMT"))) {
    rest.remove_prefix(3);
  }
  if (rest.empty() || (rest.front() != '+' && rest.front() != '-')) {
    return Status::Error("zone " + Quote(zone) + ": " + kZoneHint);
  }
  const int sign = rest.front() == '-' ? -1 : 1;
  rest.remove_prefix(1);
  std::string_view hh;
  std::string_view mm = "00";
  const size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    hh = rest.substr(0, colon);
    mm = rest.substr(colon + 1);
  } else if (rest.size() == 4) {
    hh = rest.substr(0, 2);
    mm = rest.substr(2);
  } else {
    hh = rest;
  }
  if (!AllDigits(hh) || hh.size() > 2 || !AllDigits(mm) || mm.size() != 2) {
    return Status::Error("zone " + Quote(zone) + ": " + kZoneHint);
  }
  const int h = ToInt(hh);
  const int m = ToInt(mm);
  if (m > 59) return Status::Error("zone " + Quote(zone) + ": offset minutes must be 00..59");
  if (h * 60 + m > kMaxOffsetMinutes) {
    return Status::Error("zone " + Quote(zone) + ": offset must be at most 14:00");
  }
  return sign * (h * 60 + m);
}

// Diagnoses a token list that is not <days> <range> <zone>.
Status ShapeError(const std::vector<std::string>& tokens) {
  if (tokens.empty()) return Status::Error(std::string("window is empty; ") + kGrammar);
  size_t range = tokens.size();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (LooksLikeTimeRange(tokens[i])) {
      range = i;
      break;
    }
  }
  if (range == tokens.size()) {
    return Status::Error("time range missing: " + std::string(kGrammar));
  }
  if (range == 0) {
    return Status::Error("days missing before " + Quote(tokens[0]) +
                         " (e.g. Mon-Fri, Sat,Sun or Daily)");
  }
  if (range > 1) {
    std::string days = tokens[0];
    for (size_t i = 1; i < range; ++i) days += " " + tokens[i];
    return Status::Error("days " + Quote(days) + ": separate days with commas (e.g. \"Sat,Sun\")");
  }
  if (tokens.size() == 2) {
    return Status::Error("zone missing after " + Quote(tokens[1]) +
                         " (UTC or a fixed offset like +02:00)");
  }
  std::string extra = tokens[3];
  for (size_t i = 4; i < tokens.size(); ++i) extra += " " + tokens[i];
  return Status::Error("unexpected " + Quote(extra) + " after zone " + Quote(tokens[2]));
}

}  // namespace

Result<Window> Window::Parse(std::string_view text) {
  const std::string prefix = Quote(text);
  const std::vector<std::string> tokens = Tokenize(text);
  if (tokens.size() != 3 || !LooksLikeTimeRange(tokens[1])) {
    return ShapeError(tokens).WithPrefix(prefix);
  }
  Result<uint8_t> days = ParseDays(tokens[0]);
  if (!days.ok()) return days.status().WithPrefix(prefix);

  const std::string& range = tokens[1];
  const size_t dash = range.find('-');
  if (range.find('-', dash + 1) != std::string::npos) {
    return Status::Error(prefix + ": time range " + Quote(range) + ": expected HH:MM-HH:MM");
  }
  Result<int> start = ParseClock(std::string_view(range).substr(0, dash), false);
  if (!start.ok()) return start.status().WithPrefix(prefix);
  Result<int> end = ParseClock(std::string_view(range).substr(dash + 1), true);
  if (!end.ok()) return end.status().WithPrefix(prefix);
  if (*start == *end) {
    return Status::Error(prefix + ": time range " + Quote(range) +
                         ": start equals end (the window would never open)");
  }
  Result<int> offset = ParseZone(tokens[2]);
  if (!offset.ok()) return offset.status().WithPrefix(prefix);

  const int64_t length_min =
      *end > *start ? *end - *start : *end + kMinutesPerDay - *start;
  std::vector<Opening> raw;
  for (int d = 0; d < 7; ++d) {
    if ((*days & (1u << d)) == 0) continue;
    const int64_t begin_min = FloorMod(d * kMinutesPerDay + *start - *offset, kMinutesPerWeek);
    raw.push_back({begin_min * 60, (begin_min + length_min) * 60});
  }
  std::sort(raw.begin(), raw.end(),
            [](const Opening& a, const Opening& b) { return a.begin < b.begin; });

  Window w;
  w.text_ = std::string(text);
  for (const Opening& o : raw) {
    if (!w.openings_.empty() && o.begin <= w.openings_.back().end) {
      w.openings_.back().end = std::max(w.openings_.back().end, o.end);
    } else {
      w.openings_.push_back(o);
    }
  }
  // The last opening may run into the next week and reach the first one.
  if (w.openings_.size() > 1 &&
      w.openings_.back().end >= w.openings_.front().begin + kSecondsPerWeek) {
    w.openings_.back().end =
        std::max(w.openings_.back().end, w.openings_.front().end + kSecondsPerWeek);
    w.openings_.erase(w.openings_.begin());
  }
  const Opening& last = w.openings_.back();
  w.always_open_ = w.openings_.size() == 1 && last.end - last.begin >= kSecondsPerWeek;
  return w;
}

namespace {

int64_t SecondsOfWeek(std::chrono::sys_seconds t) {
  return FloorMod(t.time_since_epoch().count() - kFirstMondaySeconds, kSecondsPerWeek);
}

}  // namespace

bool Window::Contains(std::chrono::sys_seconds t) const {
  if (always_open_) return true;
  const int64_t s = SecondsOfWeek(t);
  for (const Opening& o : openings_) {
    if (s >= o.begin && s < o.end) return true;
    if (s + kSecondsPerWeek < o.end) return true;  // the part that wrapped into next week
  }
  return false;
}

std::optional<std::chrono::sys_seconds> Window::NextOpen(std::chrono::sys_seconds after) const {
  if (openings_.empty()) return std::nullopt;
  if (Contains(after)) return after;
  const int64_t s = SecondsOfWeek(after);
  int64_t best = kSecondsPerWeek;
  for (const Opening& o : openings_) best = std::min(best, FloorMod(o.begin - s, kSecondsPerWeek));
  return after + std::chrono::seconds(best);
}

std::chrono::sys_seconds Window::CloseOf(std::chrono::sys_seconds t_inside) const {
  if (always_open_) return std::chrono::sys_seconds::max();
  const int64_t s = SecondsOfWeek(t_inside);
  for (const Opening& o : openings_) {
    if (s >= o.begin && s < o.end) return t_inside + std::chrono::seconds(o.end - s);
    if (s + kSecondsPerWeek < o.end) {
      return t_inside + std::chrono::seconds(o.end - kSecondsPerWeek - s);
    }
  }
  return t_inside;
}

}  // namespace kubeon::policy
