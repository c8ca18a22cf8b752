// Redaction of credentials in URLs before they are printed.
//
// A server URL may carry a password in its userinfo
// (`https://user:secret@prometheus:9090`, a kubeconfig `server:`).  Every
// place that prints a URL (errors, progress, logs, reports) passes it through
// RedactUrl, or passes the finished line through RedactUrlsInText, so that
// the password never reaches a terminal or a log.
//
// Contract:
//  - RedactUrl(url): the userinfo of the URL's authority (the text before the
//    last '@' of the authority; the authority runs from after "scheme://", or
//    from the start when there is no "://", to the first '/', '?' or '#')
//    keeps its user name and has everything from its first ':' replaced by
//    kRedacted: `https://user:***@host/`.  Userinfo without ':' (a token used
//    as user name, `https://TOKEN@host`) is replaced whole.  A URL without
//    '@' in its authority is returned unchanged.  Never fails; any input is
//    accepted (malformed URLs are exactly the ones printed in errors).
//  - RedactUrlsInText(text): the same for every "scheme://" URL inside free
//    text, whose authority additionally ends at whitespace, a quote, '<',
//    '>', '(' or ')'.  Text without "://" is returned unchanged.
//  - Invariant: for any input, no character that was in a redacted
//    userinfo's password (or a whole-token userinfo) is in the result at
//    that place; the rest of the text is byte-for-byte unchanged.
#pragma once

#include <string>
#include <string_view>

namespace kubeon::net {

inline constexpr std::string_view kRedacted = "***";

std::string RedactUrl(std::string_view url);

std::string RedactUrlsInText(std::string_view text);

}  // namespace kubeon::net
