// Tests for input_file.h: regular files and pipes are read whole; a
// directory, a device or a missing path is an error naming the path.
#include "model/input_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/prices.h"
#include "model/snapshot_json.h"

namespace kubeon::model {
namespace {

namespace fs = std::filesystem;

fs::path TempDir() {
  fs::path dir = fs::temp_directory_path() / ("kubeon-input-file-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST(InputFile, ReadsRegularFile) {
  const fs::path dir = TempDir();
  const std::string path = (dir / "a.yaml").string();
  std::ofstream(path) << "a: 1\n";
  Result<std::string> r = ReadInputFile(path, "prices file");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "a: 1\n");
  fs::remove_all(dir);
}

TEST(InputFile, DirectoryDeviceAndMissingPathAreErrors) {
  const fs::path dir = TempDir();
  Result<std::string> d = ReadInputFile(dir.string(), "cluster snapshot");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), dir.string() + ": cannot read the cluster snapshot: Is a directory");
  Result<std::string> dev = ReadInputFile("/dev/zero", "prices file");
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.status().message(), "/dev/zero: cannot read the prices file: not a regular file or a pipe (a device?)");
  Result<std::string> missing = ReadInputFile((dir / "nope.json").string(), "cluster snapshot");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nope.json: cannot read the cluster snapshot: No such file or directory"),
            std::string::npos);
  // The loaders use the same checks.
  Result<Cluster> c = LoadClusterFile(dir.string());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), dir.string() + ": cannot read the cluster snapshot: Is a directory");
  Result<PriceTable> p = LoadPricesFile(dir.string());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), dir.string() + ": cannot read the prices file: Is a directory");
  fs::remove_all(dir);
}

// `--cluster <(kubectl get ... -o json)` hands over a pipe: read to its end.
TEST(InputFile, ReadsPipeToItsEnd) {
  const fs::path dir = TempDir();
  const std::string fifo = (dir / "cluster.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo);  // blocks until the reader opens the pipe
    out << R"({"items":[{"kind":"Node","metadata":{"name":"n"}}]})";
  });
  Result<Cluster> c = LoadClusterFile(fifo);
  // Releases the writer should the loader not have opened the pipe (no hang on failure).
  const int unblock = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  writer.join();
  if (unblock >= 0) ::close(unblock);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->nodes.size(), 1u);
  EXPECT_EQ(c->nodes[0].name, "n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kubeon::model
