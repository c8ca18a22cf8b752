// See change_id.h.
#include "audit/change_id.h"

#include <string>

#include "net/printable.h"

namespace kubeon::audit {

bool IsChangeId(std::string_view id) {
  if (id.size() != kChangeIdLength) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status CheckChangeId(std::string_view id) {
  if (IsChangeId(id)) return Status::Ok();
  const std::string_view shown = id.substr(0, 80);
  return Status::Error("change id \"" + net::EscapeControl(shown) + (id.size() > shown.size() ? "..." : "") +
                           "\" is not " + std::to_string(kChangeIdLength) +
                           " hexadecimal digits (kubeon-gpu changes lists them)",
                       StatusCode::kInvalid);
}

}  // namespace kubeon::audit
