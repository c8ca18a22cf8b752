// See output_file.h for the contract.
#include "cli/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace kubeon::cli {

void FdStreamBuf::WriteAll(const char* p, size_t n) {
  while (n > 0 && error_ == 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      error_ = w < 0 ? errno : EIO;
      return;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void FdStreamBuf::Drain() {
  WriteAll(pbase(), static_cast<size_t>(pptr() - pbase()));
  setp(buf_, buf_ + sizeof(buf_));
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  Drain();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

int FdStreamBuf::sync() {
  Drain();
  return 0;
}

std::streamsize FdStreamBuf::xsputn(const char* s, std::streamsize n) {
  if (n <= epptr() - pptr()) {
    std::memcpy(pptr(), s, static_cast<size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  Drain();
  WriteAll(s, static_cast<size_t>(n));
  return n;
}

Result<std::unique_ptr<AtomicOutputFile>> AtomicOutputFile::Create(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmp = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  // mkstemp opens with 0600 & ~umask: never readable by group or others.
  const int fd = mkstemp(tmp.data());
  if (fd < 0) return Status::Error(path + ": cannot write: " + std::strerror(errno));
  return std::unique_ptr<AtomicOutputFile>(new AtomicOutputFile(path, std::move(tmp), fd));
}

AtomicOutputFile::AtomicOutputFile(std::string path, std::string tmp, int fd)
    : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd), buf_(fd), stream_(&buf_) {}

AtomicOutputFile::~AtomicOutputFile() {
  if (done_) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

Status AtomicOutputFile::Fail(const std::string& what, int error) {
  done_ = true;
  ::close(fd_);
  ::unlink(tmp_.c_str());
  return Status::Error(path_ + ": " + what + ": " + std::strerror(error != 0 ? error : EIO));
}

Status AtomicOutputFile::Commit() {
  stream_.flush();
  if (buf_.error() != 0) return Fail("cannot write", buf_.error());
  if (!stream_) return Fail("cannot write", EIO);
  if (::fsync(fd_) != 0) return Fail("cannot write", errno);
  done_ = true;
  if (::close(fd_) != 0) {
    const int e = errno;
    ::unlink(tmp_.c_str());
    return Status::Error(path_ + ": cannot write: " + std::strerror(e));
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp_.c_str());
    return Status::Error(path_ + ": cannot rename the temporary file into place: " + std::strerror(e));
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  Result<std::unique_ptr<AtomicOutputFile>> file = AtomicOutputFile::Create(path);
  if (!file.ok()) return file.status();
  write((*file)->stream());
  return (*file)->Commit();
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  return WriteFileAtomically(path, [contents](std::ostream& os) {
    os.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  });
}

Status WriteToStream(std::ostream& out, std::string_view contents, const std::string& name) {
  errno = 0;
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.flush();
  if (out) return Status::Ok();
  const int e = errno;
  return Status::Error(name + ": " + (e != 0 ? std::strerror(e) : "write failed"));
}

Status WriteThroughFd(int fd, const std::string& name, const std::function<void(std::ostream&)>& write) {
  FdStreamBuf buf(fd);
  std::ostream out(&buf);
  write(out);
  out.flush();
  if (buf.error() != 0) return Status::Error(name + ": " + std::strerror(buf.error()));
  return Status::Ok();
}

Status FlushStdout() {
  errno = 0;
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return Status::Ok();
  const int e = errno;
  return Status::Error(std::string("stdout: ") + (e != 0 ? std::strerror(e) : "write failed"));
}

}  // namespace kubeon::cli
