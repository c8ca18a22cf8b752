// The id of a change: the first 8 hexadecimal digits (lower case) of its
// step's content hash (plan/schedule.h ScheduleStep::id).  Ids typed by a
// person (the CLI's ID argument) or sent to the reviewer API are checked
// with CheckChangeId before they are looked up or put into an API path, so
// that "af1c4ed0?dryRun=All", "af1c4ed0#x" or "af1c4ed0/status" can never
// reach another object or subresource than the change they look like.
#pragma once

#include <cstddef>
#include <string_view>

#include "model/status.h"

namespace kubeon::audit {

inline constexpr size_t kChangeIdLength = 8;

// True for exactly kChangeIdLength characters 0-9 a-f.
bool IsChangeId(std::string_view id);

// OK, or kInvalid: `change id "<id, control characters escaped>" is not 8
// hexadecimal digits (kubeon-gpu changes lists them)`.
Status CheckChangeId(std::string_view id);

}  // namespace kubeon::audit
