// Tests for terminal_text.h: the stderr filter escapes and redacts whole
// lines (net/printable_test covers the escaping itself).
#include "cli/terminal_text.h"

#include <sstream>

#include <gtest/gtest.h>

namespace kubeon::cli {
namespace {

TEST(TerminalStreamBuf, EscapesAndRedactsWholeLines) {
  std::ostringstream target;
  {
    TerminalStreamBuf buf(target.rdbuf());
    std::ostream err(&buf);
    err << std::unitbuf;  // like std::cerr: a flush after every <<
    err << "error: policy \"\x1b]0;pwned\x07\": cannot reach " << "https://u:" << "hunter2@prom:9090"
        << ": refused\n";
    err << "partial " << 42;
  }
  EXPECT_EQ(target.str(), "error: policy \"\\x1b]0;pwned\\x07\": cannot reach https://u:***@prom:9090: refused\n"
                          "partial 42");
}

}  // namespace
}  // namespace kubeon::cli
