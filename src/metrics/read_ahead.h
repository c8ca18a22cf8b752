// ReadAhead: reads a stream of chunks on a second thread, one chunk ahead
// of the thread that parses them -- the history reader's copy of a file
// from the page cache (a sixth of a single-threaded ingest, BENCHMARKS.md
// (g)) then overlaps its parsing.
//
// Contract:
//   * `fill(buf)` reads the stream's next bytes into buf (at most
//     buf.size(), fewer only at its end) and returns their count, 0 at the
//     end, or -1 with errno set.  It runs on the reading thread only, one
//     call at a time, in order; a short count ends the stream.  REQUIRES: it
//     returns (a regular file, never a pipe that may block for ever: the
//     destructor waits for the call under way).
//   * `prepare(chunk, slot, consumer_waiting)`, when given, runs on the
//     reading thread after every fill that read bytes, before the chunk is
//     handed over: it may derive from the bytes what the consumer will use
//     with them (the history reader's RepeatRuns), kept in its own slot-th
//     entry (slot in [0, buffers), one per buffer).  The consumer reads that
//     entry once Next() has returned the chunk (slot() tells which) and until
//     its next call to Next(); the buffer's hand-over orders the accesses.
//     consumer_waiting: the consumer has taken every chunk before this one
//     and waits for it, so work it could do itself is better left to it
//     (the two threads then share the work as their speeds allow).
//   * Next() returns the chunks in order, each non-empty and valid until the
//     next call to Next() or the destruction; then an empty view once the
//     stream has ended, and error() tells why: 0 at its end, the errno of
//     the failed read, or ECANCELED when `*stop` (looked at before every
//     read; may be nullptr) was true.  Chunks read before an error or a stop
//     are all returned first.  REQUIRES: one consumer thread.
//   * Memory: `buffers` buffers of chunk_bytes each (two: one parsed while
//     the other is filled).  The destructor stops the reading thread and
//     joins it, whether or not the stream was read to its end.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace kubeon::metrics::internal {

class ReadAhead {
 public:
  using Fill = std::function<ssize_t(std::vector<char>& buf)>;
  using Prepare = std::function<void(std::string_view chunk, size_t slot, bool consumer_waiting)>;

  // REQUIRES: chunk_bytes > 0, buffers >= 2.
  ReadAhead(size_t chunk_bytes, Fill fill, const std::atomic<bool>* stop, size_t buffers = 2,
            Prepare prepare = {});
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  std::string_view Next();
  // The slot of the chunk Next() last returned.  REQUIRES: it returned one.
  size_t slot() const { return static_cast<size_t>(current_ - buffers_.data()); }
  // Meaningful once Next() returned an empty view.
  int error() const;

 private:
  struct Buffer {
    std::vector<char> bytes;
    size_t size = 0;
  };
  void Run();

  Fill fill_;
  Prepare prepare_;
  const std::atomic<bool>* stop_;
  std::vector<Buffer> buffers_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Buffer*> free_;  // guarded by mu_
  std::deque<Buffer*> full_;  // guarded by mu_, in stream order
  Buffer* current_ = nullptr;  // the consumer's, not in either queue
  bool ended_ = false;         // guarded by mu_: nothing more will be read
  bool cancelled_ = false;     // guarded by mu_: the destructor runs
  int error_ = 0;              // guarded by mu_
  std::atomic<bool> consumer_waiting_{false};  // the consumer waits in Next()
  std::thread thread_;         // last: started once the rest is built
};

}  // namespace kubeon::metrics::internal
