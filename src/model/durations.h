// Durations as the command-line flags, the controller's settings and the
// GpuPolicy write them ("24h", "90m", "3d", "1w", "3600s"), read into hours.
// Shared by the commands (cli/), the controller and the policy reader, so
// that a flag, a setting and a policy field accept the same text.
#pragma once

#include <string>

#include "model/status.h"

namespace kubeon::model {

// The longest duration a flag takes (--min-history, --lookback, --ttl,
// --resync): 10 years.  Longer values are typos, and would overflow the
// millisecond and second counts they are converted to.
inline constexpr double kMaxDurationHours = 3650 * 24;
inline constexpr const char* kMaxDurationText = "3650d";

// "24h", "90m", "3d", "1w", "3600s" -> hours (a finite number >= 0 and at most
// kMaxDurationHours).  False on anything else: other units, signs, nan, inf,
// and durations over the maximum.
bool ParseDurationHours(const std::string& text, double* hours);

// ParseDurationHours for flag `flag`, with the error naming the flag:
//   --lookback: "99999999999d" is too large (max 3650d)
//   --lookback: "a fortnight" is not a duration like 14d, 36h or 2w
//   --lookback: "0s" must be positive            (when positive is set)
// `examples` completes "is not a duration like ...".
Status ParseDurationFlag(const std::string& flag, const std::string& text, const std::string& examples,
                         bool positive, double* hours);

}  // namespace kubeon::model
