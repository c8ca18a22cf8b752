// Where the CLI's output goes: a file replaced atomically, or a stream
// (stdout), with every write failure reported as a value.
//
// Contract:
//  - AtomicOutputFile::Create(path) creates a temporary file beside `path`
//    (`.<name>.tmp-XXXXXX` in the same directory, so the rename stays on one
//    file system) with mode 0600 minus the umask: every file the CLI writes
//    holds cluster data (pod specs may carry secrets in env), so it is never
//    readable by others, and a stricter umask (077, 277) is respected.  The
//    stream() is buffered; Commit() flushes it, fsyncs, closes and renames the
//    temporary file over `path`.  Until Commit() succeeds `path` is untouched;
//    a failed Commit(), or destroying the object without committing, removes
//    the temporary file (no `*.tmp*` is ever left behind).
//  - Errors name the path and the OS reason (strerror of the first failing
//    call): "<path>: cannot write: No space left on device".
//  - WriteFileAtomically(path, contents) is Create + write + Commit;
//    WriteFileAtomically(path, write) runs `write` on the stream between the
//    two (output written as it is produced, never held whole).
//  - WriteToStream(out, contents, name) writes and flushes `out` (e.g.
//    std::cout) and reports a failed stream as "<name>: <OS reason>" (errno of
//    the failed flush; "write failed" when the stream gives none).
//  - FdStreamBuf: see below; WriteThroughFd(fd, name, write) runs `write` on
//    a stream over `fd` (e.g. 1 for stdout) and reports the first write error
//    as "<name>: <OS reason>".
//  - FlushStdout() flushes std::cout and C stdio's stdout; "stdout: <reason>"
//    when either has failed at any time (ferror), so a report truncated by a
//    full disk or /dev/full never exits 0.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "model/status.h"

namespace kubeon::cli {

// A buffered streambuf over a file descriptor (not owned) that remembers the
// first write error (errno) and then discards further output while still
// reporting success to the stream, so that a writer that stops at a failed
// stream (and prints its own, reason-less message) runs to its end and the
// owner reports error() once, with the OS reason.
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof(buf_)); }
  // 0, or the errno of the first failed write.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  void WriteAll(const char* p, size_t n);
  void Drain();
  int fd_;
  int error_ = 0;
  char buf_[1 << 16];
};

class AtomicOutputFile {
 public:
  static Result<std::unique_ptr<AtomicOutputFile>> Create(const std::string& path);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // REQUIRES: called at most once.
  Status Commit();

 private:
  AtomicOutputFile(std::string path, std::string tmp, int fd);
  Status Fail(const std::string& what, int error);

  std::string path_;
  std::string tmp_;
  int fd_;
  bool done_ = false;
  FdStreamBuf buf_;
  std::ostream stream_;
};

Status WriteFileAtomically(const std::string& path, std::string_view contents);
Status WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

Status WriteToStream(std::ostream& out, std::string_view contents, const std::string& name);

Status WriteThroughFd(int fd, const std::string& name, const std::function<void(std::ostream&)>& write);

Status FlushStdout();

}  // namespace kubeon::cli
