// Replay runner for the fuzz harnesses in builds without libFuzzer (GCC, the
// normal and sanitizer CI builds): a main() that feeds every file named on
// the command line, or every regular file under a named directory (sorted,
// recursively), to LLVMFuzzerTestOneInput once.  Registered as one CTest test
// per harness over its seed corpus (fuzz/corpus/<harness>/), so the corpus is
// a regression test in every build.  Test support only, never linked into
// the product.
//
// Exit status: 0 when every input ran (a broken invariant aborts inside the
// harness, naming the input on stderr first); 2 when an argument cannot be
// read or names no file at all (an empty corpus would make a test that
// cannot fail).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool ReadFile(const std::filesystem::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (std::filesystem::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s: not a file or directory\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "replay: no input files\n");
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string bytes;
    if (!ReadFile(f, &bytes)) {
      std::fprintf(stderr, "replay: %s: cannot read\n", f.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", f.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "replay: %zu inputs passed\n", files.size());
  return 0;
}
