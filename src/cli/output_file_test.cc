// Tests for output_file.h: the atomic file is created 0600 minus the umask,
// replaces the target only on Commit, leaves no temporary file on any
// failure (a missing directory, a write refused by RLIMIT_FSIZE in a child
// process, an abandoned write), and a full device (/dev/full) is reported
// with the OS reason instead of a silently truncated output.
#include "cli/output_file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace kubeon::cli {
namespace {

namespace fs = std::filesystem;

// A fresh empty directory per test.
std::string FreshDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("output_file_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Names in `dir` other than `keep`.
std::vector<std::string> Others(const std::string& dir, const std::string& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() != keep) out.push_back(e.path().filename().string());
  }
  return out;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(AtomicOutputFile, CreatedOwnerOnlyWhateverTheUmaskAllows) {
  const std::string dir = FreshDir("mode");
  const mode_t saved = umask(022);
  for (auto [mask, want] : {std::pair<mode_t, mode_t>{022, 0600}, {077, 0600}, {0277, 0400}, {0, 0600}}) {
    umask(mask);
    const std::string path = dir + "/out-" + std::to_string(mask) + ".json";
    ASSERT_TRUE(WriteFileAtomically(path, "{}\n").ok());
    EXPECT_EQ(ModeOf(path), want) << "umask " << std::oct << mask;
    EXPECT_EQ(Read(path), "{}\n");
  }
  umask(saved);
}

TEST(AtomicOutputFile, ReplacesAnExistingFileOnlyOnCommit) {
  const std::string dir = FreshDir("replace");
  const std::string path = dir + "/plan.json";
  std::ofstream(path) << "old";
  {
    auto file = AtomicOutputFile::Create(path);
    ASSERT_TRUE(file.ok());
    (*file)->stream() << std::string(200000, 'x');  // more than one buffer
    EXPECT_EQ(Read(path), "old");
    ASSERT_TRUE((*file)->Commit().ok());
  }
  EXPECT_EQ(Read(path), std::string(200000, 'x'));
  EXPECT_TRUE(Others(dir, "plan.json").empty());
}

TEST(AtomicOutputFile, AbandonedWriteLeavesNothing) {
  const std::string dir = FreshDir("abandon");
  {
    auto file = AtomicOutputFile::Create(dir + "/snap.json");
    ASSERT_TRUE(file.ok());
    (*file)->stream() << "partial";
  }
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(AtomicOutputFile, MissingDirectoryNamesPathAndReason) {
  const std::string path = FreshDir("missing") + "/no/such/dir/plan.json";
  Status s = WriteFileAtomically(path, "x");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), path + ": cannot write: No such file or directory");
}

// A full disk, simulated: the child may not grow files past 4 KB.
TEST(AtomicOutputFile, FailedWriteReportsTheReasonAndLeavesNoTemporaryFile) {
  const std::string dir = FreshDir("fsize");
  const std::string path = dir + "/plan.json";
  std::ofstream(path) << "old";
  const std::string message_file = dir + "/../output_file_test_fsize_message";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(3);
    Status s = WriteFileAtomically(path, std::string(1 << 20, 'y'));
    limit = {RLIM_INFINITY, RLIM_INFINITY};
    setrlimit(RLIMIT_FSIZE, &limit);  // lowering back up may fail unprivileged: then the message stays empty
    std::ofstream(message_file) << s.message();
    _exit(s.ok() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(Read(message_file), path + ": cannot write: File too large");
  EXPECT_EQ(Read(path), "old");
  EXPECT_TRUE(Others(dir, "plan.json").empty());
}

TEST(WriteToStream, FullDeviceNamesTheStreamAndTheReason) {
  std::ofstream full("/dev/full", std::ios::binary);
  if (!full) GTEST_SKIP() << "no /dev/full";
  Status s = WriteToStream(full, std::string(100000, 'z'), "stdout");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "stdout: No space left on device");
}

TEST(WriteToStream, WritesEverything) {
  std::ostringstream out;
  ASSERT_TRUE(WriteToStream(out, "report\n", "stdout").ok());
  EXPECT_EQ(out.str(), "report\n");
}

}  // namespace
}  // namespace kubeon::cli
