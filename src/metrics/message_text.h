// Input text quoted in messages (errors, warnings, bad-line reasons).
//
// History files and server answers may hold any bytes, while the report is
// written as JSON or YAML, which must be valid UTF-8: a quote that copied a
// broken byte sequence would abort `-o json`.  So every piece of input text
// that goes into a message passes through here, where it is made one line of
// valid UTF-8.
//
// Contract:
//   * IsValidUtf8(text): true when text is well-formed UTF-8 (RFC 3629: no
//     overlong forms, no surrogates, nothing above U+10FFFF).
//   * MessageText(text, max_bytes, control): text as one line of valid UTF-8, for any
//     input bytes:
//       - well-formed characters are kept, except control characters
//         (U+0000..U+001F, U+007F), which become `control` ('?' or ' '), and '\', which
//         becomes "\\" (so that an escape below is never ambiguous);
//       - every byte that is not part of a well-formed character becomes the
//         four ASCII characters \xNN (upper-case hex);
//       - at most max_bytes of the input are shown, cut at a character
//         boundary, followed by "..." when anything was cut.
//     The result is at most 4 * max_bytes + 3 bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kubeon::metrics {

bool IsValidUtf8(std::string_view text);

std::string MessageText(std::string_view text, size_t max_bytes, char control = '?');

}  // namespace kubeon::metrics
