// See terminal_text.h for the contract.
#include "cli/terminal_text.h"

#include "net/printable.h"
#include "net/redact.h"

namespace kubeon::cli {
void TerminalStreamBuf::Emit(std::string_view line) {
  const std::string safe = net::RedactUrlsInText(net::EscapeControl(line, /*keep_newlines=*/true));
  target_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
}

void TerminalStreamBuf::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!pending_.empty()) Emit(pending_);
  pending_.clear();
  target_->pubsync();
}

TerminalStreamBuf::int_type TerminalStreamBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  xsputn(&ch, 1);
  return c;
}

std::streamsize TerminalStreamBuf::xsputn(const char* s, std::streamsize n) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string_view in(s, static_cast<size_t>(n));
  for (size_t nl = in.find('\n'); nl != std::string_view::npos; nl = in.find('\n')) {
    pending_.append(in.substr(0, nl + 1));
    Emit(pending_);
    pending_.clear();
    in.remove_prefix(nl + 1);
  }
  pending_.append(in);
  return n;
}

// Lines are written whole: a flush (std::cerr flushes after every <<) keeps
// the partial line, so a URL or an escape sequence is never split.
int TerminalStreamBuf::sync() { return target_->pubsync(); }

}  // namespace kubeon::cli
