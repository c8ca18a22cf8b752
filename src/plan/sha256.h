// SHA-256 of a byte string as lowercase hex, with OpenSSL's libcrypto.  Used
// for content-derived names (MIG configs, device-plugin keys: artifacts.h)
// and for the schedule's step hashes (schedule.h), so that a changed content
// never reuses a name or an approval.
#pragma once

#include <string>
#include <string_view>

namespace kubeon::plan {

// 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);

// "kubeon-" + the first 10 hex digits of Sha256Hex(body): the name of a
// content-derived config (a MIG config or a device-plugin key).
std::string ContentName(std::string_view body);

}  // namespace kubeon::plan
