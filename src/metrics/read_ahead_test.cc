#include "metrics/read_ahead.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace kubeon::metrics::internal {
namespace {

// A stream of `size` bytes (byte i is 'a' + i % 26), read `limit` bytes at a
// time at most (a file's short reads are only at its end; these test that
// a short read ends the stream).
struct FakeStream {
  std::string bytes;
  size_t at = 0;
  size_t fail_at = std::string::npos;  // a read starting here fails with EIO
  int reads = 0;

  explicit FakeStream(size_t size) {
    for (size_t i = 0; i < size; ++i) bytes.push_back(static_cast<char>('a' + i % 26));
  }
  ssize_t operator()(std::vector<char>& buf) {
    ++reads;
    if (at >= fail_at) {
      errno = EIO;
      return -1;
    }
    size_t n = std::min(buf.size(), bytes.size() - at);
    std::memcpy(buf.data(), bytes.data() + at, n);
    at += n;
    return static_cast<ssize_t>(n);
  }
};

std::string ReadAll(ReadAhead& ahead, int* chunks = nullptr) {
  std::string out;
  for (std::string_view c = ahead.Next(); !c.empty(); c = ahead.Next()) {
    out.append(c);
    if (chunks != nullptr) ++*chunks;
  }
  return out;
}

TEST(ReadAheadTest, ReturnsEveryChunkInOrderThenEnds) {
  for (size_t size : {0u, 1u, 99u, 100u, 101u, 1000u, 12345u}) {
    for (size_t buffers : {2u, 3u, 5u}) {
      FakeStream stream(size);
      ReadAhead ahead(100, [&stream](std::vector<char>& b) { return stream(b); }, nullptr, buffers);
      int chunks = 0;
      EXPECT_EQ(ReadAll(ahead, &chunks), stream.bytes) << size << " bytes, " << buffers << " buffers";
      EXPECT_EQ(chunks, static_cast<int>((size + 99) / 100));
      EXPECT_EQ(ahead.error(), 0);
      EXPECT_TRUE(ahead.Next().empty());  // stays ended
    }
  }
}

TEST(ReadAheadTest, AReadErrorEndsTheStreamAfterTheChunksBeforeIt) {
  FakeStream stream(1000);
  stream.fail_at = 300;
  ReadAhead ahead(100, [&stream](std::vector<char>& b) { return stream(b); }, nullptr);
  EXPECT_EQ(ReadAll(ahead), stream.bytes.substr(0, 300));
  EXPECT_EQ(ahead.error(), EIO);
}

TEST(ReadAheadTest, StopIsLookedAtBeforeEveryRead) {
  std::atomic<bool> stop{true};
  FakeStream stream(1000);
  ReadAhead ahead(100, [&stream](std::vector<char>& b) { return stream(b); }, &stop);
  EXPECT_TRUE(ahead.Next().empty());
  EXPECT_EQ(ahead.error(), ECANCELED);
  EXPECT_EQ(stream.reads, 0);
}

TEST(ReadAheadTest, StopMidStreamKeepsWhatWasReadAndReadsNoMore) {
  std::atomic<bool> stop{false};
  FakeStream stream(100000);
  ReadAhead ahead(100, [&stream](std::vector<char>& b) { return stream(b); }, &stop);
  std::string got(ahead.Next());
  stop = true;
  got += ReadAll(ahead);
  EXPECT_EQ(ahead.error(), ECANCELED);
  // What came is a prefix, ending where the reading thread stopped: at most
  // the buffers it could fill before it saw the flag.
  EXPECT_EQ(got, stream.bytes.substr(0, got.size()));
  EXPECT_LE(got.size(), 300u);
  EXPECT_EQ(stream.at, got.size());
}

TEST(ReadAheadTest, DestroyedBeforeTheEndStopsTheReadingThread) {
  FakeStream stream(1 << 20);
  {
    ReadAhead ahead(100, [&stream](std::vector<char>& b) { return stream(b); }, nullptr);
    EXPECT_EQ(ahead.Next(), std::string_view(stream.bytes).substr(0, 100));
  }  // joins: the thread waited for a free buffer
  EXPECT_LE(stream.at, 300u);
  EXPECT_LT(stream.at, stream.bytes.size());
}

}  // namespace
}  // namespace kubeon::metrics::internal
