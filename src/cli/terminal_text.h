// Text from the cluster or from input files made safe for a terminal.
//
// Policy names, node and pod names, labels, annotations and history lines
// are set by anyone with write access to the cluster or the file; printed
// raw, an ANSI escape sequence in one of them can recolour, hide or rewrite
// what the terminal shows.  Everything the CLI prints for a person (the
// table report, progress, warnings and errors on stderr) goes through
// EscapeControl; JSON and YAML reports escape in their own syntax instead.
//
// Contract:
//  - EscapeControl(text, keep_newlines): every C0 control character (0x00-
//    0x1f), DEL (0x7f), every C1 control encoded in UTF-8 (U+0080-U+009F) and
//    every byte that is not part of a valid UTF-8 sequence becomes `\xNN`
//    (lower-case hex, one per byte); '\n' is kept when keep_newlines, else it
//    becomes `\x0a` too.  Everything else, printable UTF-8 included, is
//    unchanged.  The result contains no control character (but '\n' when
//    kept) and escaping it again changes nothing.
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

namespace kubeon::cli {

std::string EscapeControl(std::string_view text, bool keep_newlines = false);

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
