// Bad-input corpus runner (issue 14): runs the real kubeon-gpu binary on
// every case directory of testdata/bad-inputs/ (format: its README.md) and
// checks that the input is refused cleanly:
//  - the process exits with a status from 1 to 125 (no signal, no abort);
//  - the last line of stderr starts with "error: " and contains the case's
//    `expect` text;
//  - stdout is empty, and the fresh output directory (the child's working
//    directory, holding the {out} path) is still empty afterwards: no
//    output, no temporary file left behind;
//  - within 5 s wall time (the child is killed after that) and 512 MB of
//    address space (RLIMIT_AS).  These are hang and blow-up detectors, not
//    performance assertions.  In a sanitizer build the memory limit is not
//    set (ASan reserves terabytes of address space) and the time limit is
//    15 s (instrumented code on a loaded 2-core machine).
//
// One GoogleTest test per case directory (BadInputs/Case.Run/<dir>, '-'
// spelled '_'), so a failure names its case (src/cli/sources.cmake rebuilds
// the test, and so lists it again, when a case is added).
//
// The case's files are copied to a fresh temporary directory first; {case}
// names that copy, where the `gen` generators write (the source tree is
// never written).  REQUIRES: KUBEON_GPU_BINARY and KUBEON_SOURCE_DIR are
// defined by the build.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#ifndef KUBEON_GPU_BINARY
#error "KUBEON_GPU_BINARY must name the kubeon-gpu executable"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define KUBEON_BAD_INPUTS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KUBEON_BAD_INPUTS_SANITIZED 1
#endif
#endif
#ifndef KUBEON_BAD_INPUTS_SANITIZED
#define KUBEON_BAD_INPUTS_SANITIZED 0
#endif

namespace fs = std::filesystem;

namespace {

constexpr bool kSanitized = KUBEON_BAD_INPUTS_SANITIZED != 0;
constexpr int kTimeoutSeconds = kSanitized ? 15 : 5;
constexpr rlim_t kAddressSpaceBytes = rlim_t{512} << 20;
// A generator writing more than this is a typo in a `gen` file, not a case
// (the README's cases are inputs up to 10 MB).
constexpr uint64_t kMaxGeneratedBytes = uint64_t{64} << 20;

const fs::path kCasesDir = fs::path(KUBEON_SOURCE_DIR) / "testdata" / "bad-inputs";

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kCasesDir, ec)) {
    if (e.is_directory()) names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The first line of a one-line file, without its line break.
std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::vector<std::string> SplitAtBlanks(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

void ReplaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

// Escapes of generator text: \n \r \t, \s (a space: the line is split at
// blanks) and \\.  False on any other escape.
bool Unescape(const std::string& in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '\\') {
      out->push_back(in[i]);
      continue;
    }
    if (++i == in.size()) return false;
    switch (in[i]) {
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 's': out->push_back(' '); break;
      case '\\': out->push_back('\\'); break;
      default: return false;
    }
  }
  return true;
}

bool ParseCount(const std::string& text, uint64_t* out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 12) return false;
  *out = std::stoull(text);
  return true;
}

// Runs one `gen` line in `dir`; "" on success, else what is wrong.  A file
// already in `written` (by an earlier line of the same gen file) is appended
// to; the file is then added to it.
std::string Generate(const std::string& line, const fs::path& dir, std::set<std::string>* written) {
  const std::vector<std::string> w = SplitAtBlanks(line);
  if (w.empty()) return "";
  auto write = [&](const std::string& file, const std::vector<std::pair<std::string, uint64_t>>& parts) -> std::string {
    if (file.empty() || file.find('/') != std::string::npos) return "gen: bad file name \"" + file + "\"";
    uint64_t total = 0;
    for (const auto& [text, count] : parts) total += text.size() * count;
    if (total > kMaxGeneratedBytes) return "gen: " + std::to_string(total) + " bytes is more than the runner allows";
    const bool append = written->count(file) > 0;
    written->insert(file);
    std::ofstream out(dir / file, std::ios::binary | (append ? std::ios::app : std::ios::trunc));
    for (const auto& [text, count] : parts) {
      for (uint64_t i = 0; i < count; ++i) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    out.close();
    return out ? "" : "gen: cannot write " + file;
  };
  if (w[0] == "repeat") {
    std::string text;
    uint64_t count = 0;
    if (w.size() != 4 || !Unescape(w[2], &text) || !ParseCount(w[3], &count)) {
      return "gen: expected `repeat <file> <text> <count>`: " + line;
    }
    return write(w[1], {{text, count}});
  }
  if (w[0] == "nest") {
    std::string prefix, open, close, suffix;
    uint64_t depth = 0;
    if (w.size() != 7 || !Unescape(w[2], &prefix) || !Unescape(w[3], &open) || !Unescape(w[4], &close) ||
        !ParseCount(w[5], &depth) || !Unescape(w[6], &suffix)) {
      return "gen: expected `nest <file> <prefix> <open> <close> <depth> <suffix>`: " + line;
    }
    return write(w[1], {{prefix, 1}, {open, depth}, {close, depth}, {suffix, 1}});
  }
  return "gen: unknown generator \"" + w[0] + "\"";
}

struct Outcome {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;  // when exited normally
  int signal = 0;      // when killed by a signal
  std::string out;
  std::string err;
};

// fork/exec of argv[0] in `cwd` with the limits described above; stdout and
// stderr captured through pipes.
Outcome RunBinary(const std::vector<std::string>& argv, const fs::path& cwd) {
  Outcome o;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) return o;
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return o;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string dir = cwd.string();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (chdir(dir.c_str()) != 0) _exit(126);
    if (!kSanitized) {
      rlimit limit{kAddressSpaceBytes, kAddressSpaceBytes};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(126);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return o;
  }
  o.started = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutSeconds);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      o.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (auto& f : fds) {
      if (f.fd < 0 || (f.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char buf[65536];
      const ssize_t n = read(f.fd, buf, sizeof(buf));
      if (n <= 0) {
        close(f.fd);
        f.fd = -1;
        --open_fds;
      } else {
        (&f == &fds[0] ? o.out : o.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  return o;
}

std::string LastLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::string Tail(const std::string& text, size_t n = 2000) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kubeon-bad-input-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

class Case : public ::testing::TestWithParam<std::string> {};

TEST_P(Case, Run) {
  const fs::path src = kCasesDir / GetParam();
  const std::string cmd = FirstLine(ReadText(src / "cmd"));
  const std::string expect = FirstLine(ReadText(src / "expect"));
  ASSERT_FALSE(cmd.empty()) << src / "cmd" << ": missing or empty";
  ASSERT_FALSE(expect.empty()) << src / "expect" << ": missing or empty (a case must say what the error names)";

  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty()) << "mkdtemp failed";
  const fs::path case_dir = tmp.path() / "case";
  const fs::path out_dir = tmp.path() / "out";
  fs::create_directories(out_dir);
  fs::copy(src, case_dir, fs::copy_options::recursive);
  if (fs::exists(src / "gen")) {
    std::istringstream gen(ReadText(src / "gen"));
    std::set<std::string> written;
    for (std::string line; std::getline(gen, line);) {
      const std::string problem = Generate(line, case_dir, &written);
      ASSERT_EQ(problem, "") << src / "gen";
    }
  }

  const fs::path out_path = out_dir / "output";
  std::vector<std::string> argv = {KUBEON_GPU_BINARY};
  for (std::string arg : SplitAtBlanks(cmd)) {
    ReplaceAll(arg, "{case}", case_dir.string());
    ReplaceAll(arg, "{small}", (fs::path(KUBEON_SOURCE_DIR) / "testdata" / "small").string());
    ReplaceAll(arg, "{out}", out_path.string());
    argv.push_back(arg);
  }

  const Outcome o = RunBinary(argv, out_dir);
  ASSERT_TRUE(o.started) << "could not start " << KUBEON_GPU_BINARY;
  const std::string context = "\n  cmd: " + cmd + "\n  stderr: " + Tail(o.err);
  EXPECT_FALSE(o.timed_out) << "killed after " << kTimeoutSeconds << " s (a hang)" << context;
  EXPECT_EQ(o.signal, 0) << "killed by signal " << o.signal << " (a crash, an abort or out of memory)" << context;
  if (!o.timed_out && o.signal == 0) {
    EXPECT_TRUE(o.exit_code >= 1 && o.exit_code <= 125) << "exit status " << o.exit_code << context;
  }
  const std::string last = LastLine(o.err);
  EXPECT_EQ(last.rfind("error: ", 0), 0u) << "the last stderr line is not an error: " << last << context;
  EXPECT_NE(last.find(expect), std::string::npos) << "the error does not name `" << expect << "`: " << last << context;
  EXPECT_EQ(o.out, "") << "stdout is not empty" << context;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out_dir)) left.push_back(e.path().filename().string());
  EXPECT_TRUE(left.empty()) << "output written: " << ::testing::PrintToString(left) << context;
}

INSTANTIATE_TEST_SUITE_P(BadInputs, Case, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The generators of the README, on a small scale (the cases use them for
// inputs of megabytes).
TEST(BadInputsGenerators, RepeatAndNestWriteWhatTheReadmeSays) {
  TempDir tmp;
  std::set<std::string> w;
  ASSERT_EQ(Generate("repeat a.txt x\\n 3", tmp.path(), &w), "");
  EXPECT_EQ(ReadText(tmp.path() / "a.txt"), "x\nx\nx\n");
  ASSERT_EQ(Generate("repeat a.txt y 2", tmp.path(), &w), "");  // a later line appends
  EXPECT_EQ(ReadText(tmp.path() / "a.txt"), "x\nx\nx\nyy");
  ASSERT_EQ(Generate("nest b.json {\"a\":\\s [ ] 3 }", tmp.path(), &w), "");
  EXPECT_EQ(ReadText(tmp.path() / "b.json"), "{\"a\": [[[]]]}");
  EXPECT_NE(Generate("repeat c.txt x", tmp.path(), &w), "");
  EXPECT_NE(Generate("repeat ../c.txt x 1", tmp.path(), &w), "");
  EXPECT_NE(Generate("repeat c.txt \\q 1", tmp.path(), &w), "");
  EXPECT_NE(Generate("repeat c.txt x 99999999999", tmp.path(), &w), "");
  EXPECT_NE(Generate("shuffle c.txt", tmp.path(), &w), "");
}

// Every case directory is complete: a case without cmd or expect would pass
// vacuously or fail for the wrong reason.
TEST(BadInputsCorpus, EveryCaseHasCmdAndExpect) {
  const std::vector<std::string> names = CaseNames();
  EXPECT_FALSE(names.empty()) << kCasesDir;
  for (const auto& n : names) {
    EXPECT_TRUE(fs::is_regular_file(kCasesDir / n / "cmd")) << n;
    EXPECT_TRUE(fs::is_regular_file(kCasesDir / n / "expect")) << n;
  }
}

}  // namespace
