#include "metrics/read_ahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

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

// What prepare derives from a chunk reaches the consumer with that chunk,
// in the chunk's slot, for any number of buffers.
TEST(ReadAheadTest, PrepareRunsOnEachChunkBeforeItIsHandedOver) {
  for (size_t buffers : {2u, 3u, 8u}) {
    FakeStream stream(12345);
    std::vector<std::string> derived(buffers);
    std::vector<bool> seen_slot(buffers, false);
    ReadAhead ahead(
        100, [&stream](std::vector<char>& b) { return stream(b); }, nullptr, buffers,
        [&derived](std::string_view chunk, size_t slot, bool) { derived.at(slot) = "copy of " + std::string(chunk); });
    std::string all;
    for (std::string_view c = ahead.Next(); !c.empty(); c = ahead.Next()) {
      ASSERT_LT(ahead.slot(), buffers);
      EXPECT_EQ(derived[ahead.slot()], "copy of " + std::string(c));
      seen_slot[ahead.slot()] = true;
      all.append(c);
    }
    EXPECT_EQ(all, stream.bytes);
    EXPECT_EQ(std::count(seen_slot.begin(), seen_slot.end(), true), static_cast<long>(buffers));
  }
}

// consumer_waiting tells whether the consumer already waits for the chunk:
// a consumer slower than the reads never does once the buffers are full; a
// consumer faster than the reads does.
TEST(ReadAheadTest, PrepareIsToldWhetherTheConsumerWaits) {
  using std::chrono::milliseconds;
  auto waiting_flags = [](milliseconds read_time, milliseconds parse_time) {
    FakeStream stream(1000);
    std::vector<bool> flags;
    ReadAhead ahead(
        100,
        [&](std::vector<char>& b) {
          std::this_thread::sleep_for(read_time);
          return stream(b);
        },
        nullptr, 2, [&flags](std::string_view, size_t, bool waiting) { flags.push_back(waiting); });
    for (std::string_view c = ahead.Next(); !c.empty(); c = ahead.Next()) std::this_thread::sleep_for(parse_time);
    return flags;  // the reading thread has ended: Next() returned the end
  };
  const std::vector<bool> slow_parser = waiting_flags(milliseconds(0), milliseconds(30));
  ASSERT_EQ(slow_parser.size(), 10u);
  // Chunk k >= 2 is read once the parser hands back chunk k - 2, and
  // prepared while it parses chunk k - 1 (already read).
  EXPECT_EQ(std::count(slow_parser.begin() + 2, slow_parser.end(), true), 0);
  const std::vector<bool> slow_reads = waiting_flags(milliseconds(30), milliseconds(0));
  ASSERT_EQ(slow_reads.size(), 10u);
  EXPECT_GE(std::count(slow_reads.begin(), slow_reads.end(), true), 1);
}

}  // namespace
}  // namespace kubeon::metrics::internal
