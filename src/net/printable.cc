// See printable.h for the contract.
#include "net/printable.h"

#include <cstdint>

namespace kubeon::net {
namespace {

void AppendHex(unsigned char c, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->append("\\x");
  out->push_back(kHex[c >> 4]);
  out->push_back(kHex[c & 0xf]);
}

// Length of the valid UTF-8 sequence at s[i] encoding a printable (non-C1)
// code point, or 0.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3f);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f)) return 0;
  return n;
}

}  // namespace

std::string EscapeControl(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(c == '\n' && keep_newlines)) || c == 0x7f) {
        AppendHex(c, &out);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    if (const size_t n = Utf8Length(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      AppendHex(c, &out);
      ++i;
    }
  }
  return out;
}

}  // namespace kubeon::net
