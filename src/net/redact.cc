// See redact.h for the contract.
#include "net/redact.h"

namespace kubeon::net {
namespace {

// Appends authority `a` (no scheme, no path) to `out` with its userinfo's
// secret replaced.
void AppendRedactedAuthority(std::string_view a, std::string* out) {
  const size_t at = a.rfind('@');
  if (at == std::string_view::npos) {
    out->append(a);
    return;
  }
  const std::string_view userinfo = a.substr(0, at);
  const size_t colon = userinfo.find(':');
  if (colon == std::string_view::npos) {
    out->append(kRedacted);  // a token used as the user name
  } else {
    out->append(userinfo.substr(0, colon + 1));
    out->append(kRedacted);
  }
  out->append(a.substr(at));
}

// Length of the authority starting at text[start]; `extra_ends` are the
// characters that end it besides '/', '?' and '#'.
size_t AuthorityLength(std::string_view text, size_t start, std::string_view extra_ends) {
  size_t end = start;
  while (end < text.size()) {
    const char c = text[end];
    if (c == '/' || c == '?' || c == '#' || extra_ends.find(c) != std::string_view::npos) break;
    ++end;
  }
  return end - start;
}

constexpr std::string_view kTextEnds = " \t\r\n\"'<>()";

}  // namespace

std::string RedactUrl(std::string_view url) {
  const size_t sep = url.find("://");
  const size_t start = sep == std::string_view::npos ? 0 : sep + 3;
  const size_t len = AuthorityLength(url, start, "");
  std::string out(url.substr(0, start));
  AppendRedactedAuthority(url.substr(start, len), &out);
  out.append(url.substr(start + len));
  return out;
}

std::string RedactUrlsInText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t done = 0;
  for (size_t sep = text.find("://"); sep != std::string_view::npos; sep = text.find("://", done)) {
    const size_t start = sep + 3;
    const size_t len = AuthorityLength(text, start, kTextEnds);
    out.append(text.substr(done, start - done));
    AppendRedactedAuthority(text.substr(start, len), &out);
    done = start + len;
  }
  out.append(text.substr(done));
  return out;
}

}  // namespace kubeon::net
