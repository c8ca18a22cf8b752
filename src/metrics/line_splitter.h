// LineSplitter: turns a byte stream fed in chunks of any size into physical
// lines, numbered from 1.
//
// Contract:
//   * A line ends at '\n'; a trailing '\r' is removed ("\r\n" files).  The
//     last line need not end with '\n': Finish() delivers it.
//   * Lines inside one chunk are delivered as views into that chunk (no copy);
//     only a line spanning chunks is copied into an internal carry buffer.
//   * Memory is bounded: a line longer than max_line_bytes is delivered
//     truncated to max_line_bytes with too_long = true (the rest is dropped),
//     so the carry buffer never exceeds max_line_bytes.
//   * Feeding a stream byte by byte yields exactly the same lines as feeding
//     it at once.
// The callback is `void(std::string_view line, uint64_t line_number, bool too_long)`;
// the view is valid only during the call.
//   * Feed(chunk, fast, fn) first offers every line that starts inside the
//     chunk to `fast(p, end, line_number)` (p the line's first byte, end the
//     chunk's end), which may handle it itself and return the position of its
//     '\n' (a reader that recognises a line's start often knows where most
//     of it ends, and need not scan those bytes twice), or return nullptr to
//     leave it to fn.  REQUIRES of fast: a returned position q lies in
//     [p, end) with *q == '\n', no '\n' in [p, q) and q - p <= max_line_bytes
//     (so fn would have received the same line, not too long); fast has
//     delivered the line itself, a trailing '\r' removed.  The line numbers
//     and everything fn receives are as with Feed(chunk, fn).
//   * SkipLines(n) numbers n whole lines the caller read itself (between
//     two Feeds, at a line start), so that later lines keep their numbers.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace kubeon::metrics::internal {

class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  template <typename Fn>
  void Feed(std::string_view chunk, Fn&& fn) {
    Feed(chunk, [](const char*, const char*, uint64_t) -> const char* { return nullptr; }, fn);
  }

  template <typename Fast, typename Fn>
  void Feed(std::string_view chunk, Fast&& fast, Fn&& fn) {
    const char* p = chunk.data();
    const char* end = p + chunk.size();
    if (carrying_) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (nl == nullptr) {
        Carry(p, end);
        return;
      }
      Carry(p, nl);
      Emit(carry_, fn);
      carry_.clear();
      carrying_ = false;
      truncated_ = false;
      p = nl + 1;
    }
    while (p < end) {
      if (const char* q = fast(p, end, line_number_ + 1); q != nullptr) {
        ++line_number_;
        p = q + 1;
        continue;
      }
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      if (nl == nullptr) {
        carrying_ = true;
        Carry(p, end);
        return;
      }
      if (static_cast<size_t>(nl - p) > max_line_bytes_) {
        truncated_ = true;
        Emit(std::string_view(p, max_line_bytes_), fn);
        truncated_ = false;
      } else {
        Emit(std::string_view(p, nl - p), fn);
      }
      p = nl + 1;
    }
  }

  // Delivers the final line when the stream did not end with '\n'.
  template <typename Fn>
  void Finish(Fn&& fn) {
    if (!carrying_) return;
    Emit(carry_, fn);
    carry_.clear();
    carrying_ = false;
    truncated_ = false;
  }

  uint64_t lines() const { return line_number_; }
  // Whether the next byte fed starts a line (no partial line is pending).
  bool at_line_start() const { return !carrying_; }
  // Counts n whole lines that the caller read itself, as if fed.
  // REQUIRES: at_line_start().
  void SkipLines(uint64_t n) { line_number_ += n; }

 private:
  void Carry(const char* from, const char* to) {
    size_t room = max_line_bytes_ - carry_.size();
    size_t n = static_cast<size_t>(to - from);
    if (n > room) {
      truncated_ = true;
      n = room;
    }
    carry_.append(from, n);
  }

  template <typename Fn>
  void Emit(std::string_view line, Fn& fn) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line, ++line_number_, truncated_);
  }

  size_t max_line_bytes_;
  std::string carry_;
  bool carrying_ = false;   // a partial line is pending in carry_
  bool truncated_ = false;  // the pending line exceeded max_line_bytes_
  uint64_t line_number_ = 0;
};

}  // namespace kubeon::metrics::internal
