// Text from the cluster or from input files made safe to print.
//
// Policy names, node and pod names, labels, annotations, YAML keys and
// history lines are set by anyone with write access to the cluster or the
// file; printed raw, an ANSI escape sequence in one of them can recolour,
// hide or rewrite what a terminal shows, and a line break can forge a line of
// an error or a log.  Everything printed for a person (the table report,
// progress, warnings, errors) goes through EscapeControl: the CLI's stderr
// filter (cli/terminal_text.h), the table report, and the parsers' error
// messages (policy/).  JSON and YAML reports escape in their own syntax.
//
// Contract:
//  - EscapeControl(text, keep_newlines): every C0 control character (0x00-
//    0x1f), DEL (0x7f), every C1 control encoded in UTF-8 (U+0080-U+009F) and
//    every byte that is not part of a valid UTF-8 sequence becomes `\xNN`
//    (lower-case hex, one per byte); '\n' is kept when keep_newlines, else it
//    becomes `\x0a` too.  Everything else, printable UTF-8 included, is
//    unchanged.  The result contains no control character (but '\n' when
//    kept) and escaping it again changes nothing.
#pragma once

#include <string>
#include <string_view>

namespace kubeon::net {

std::string EscapeControl(std::string_view text, bool keep_newlines = false);

}  // namespace kubeon::net
