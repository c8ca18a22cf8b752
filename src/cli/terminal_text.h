// The CLI's stderr filter: control characters escaped, URL passwords
// redacted, on every line any module prints.
//
// Contract:
//  - TerminalStreamBuf wraps the stream buffer of a terminal stream (main
//    installs it on std::cerr): it collects whole lines and writes each one
//    escaped (newlines kept) and with URL passwords redacted
//    (net::RedactUrlsInText), so no message of any module can put a control
//    sequence or a server password on stderr.  A partial last line is
//    written by Finish() or when the buffer is destroyed.  Thread-safe (the
//    controller logs from several threads): lines are never interleaved.
#pragma once

#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>

#include "net/printable.h"

namespace kubeon::cli {

using net::EscapeControl;  // the table report escapes with it too

class TerminalStreamBuf : public std::streambuf {
 public:
  // REQUIRES: `target` outlives this object.
  explicit TerminalStreamBuf(std::streambuf* target) : target_(target) {}
  ~TerminalStreamBuf() override { Finish(); }
  TerminalStreamBuf(const TerminalStreamBuf&) = delete;
  TerminalStreamBuf& operator=(const TerminalStreamBuf&) = delete;

  // Writes a pending partial line.
  void Finish();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void Emit(std::string_view line);
  std::streambuf* target_;
  std::mutex mu_;
  std::string pending_;  // guarded by mu_
};

}  // namespace kubeon::cli
