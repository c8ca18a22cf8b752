// See input_file.h.
#include "model/input_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

namespace kubeon::model {
namespace {

Status Failure(const std::string& path, std::string_view what, const std::string& reason) {
  return Status::Error(path + ": cannot read the " + std::string(what) + ": " + reason);
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Result<File> Open(const std::string& path, std::string_view what) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return Failure(path, what, std::strerror(errno));
  return f;
}

}  // namespace

Result<InputFile> OpenableInput(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Failure(path, what, std::strerror(errno));
  InputFile out;
  if (S_ISREG(st.st_mode)) {
    out.regular = true;
    out.size = static_cast<size_t>(st.st_size);
  } else if (S_ISDIR(st.st_mode)) {
    return Failure(path, what, std::strerror(EISDIR));
  } else if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
    return Failure(path, what, "not a regular file or a pipe (a device?)");
  }
  return out;
}

Result<std::string> ReadInputFile(const std::string& path, std::string_view what) {
  Result<InputFile> in = OpenableInput(path, what);
  if (!in.ok()) return in.status();
  std::string text;
  if (in->regular) {
    text.resize(in->size);
    if (Status s = ReadRegularInto(path, what, text.data(), text.size()); !s.ok()) return s;
    return text;
  }
  Result<File> f = Open(path, what);
  if (!f.ok()) return f.status();
  char buf[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f->get())) > 0) text.append(buf, n);
  if (std::ferror(f->get())) return Failure(path, what, std::strerror(errno));
  return text;
}

Status ReadRegularInto(const std::string& path, std::string_view what, char* out, size_t size) {
  Result<File> f = Open(path, what);
  if (!f.ok()) return f.status();
  if (std::fread(out, 1, size, f->get()) != size) {
    return Failure(path, what, std::ferror(f->get()) ? std::strerror(errno) : "the file shrank while it was read");
  }
  return Status::Ok();
}

}  // namespace kubeon::model
