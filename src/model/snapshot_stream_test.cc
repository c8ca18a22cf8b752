// Tests for snapshot_stream.h: the item-by-item reader gives the same Cluster
// and the same errors as ParseClusterJson (whole text), whatever the chunk
// size; truncated files, oversized items and a List's kind after its items.
#include "model/snapshot_stream.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "model/snapshot_json.h"

namespace kubeon::model {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kDemo = ReadFile(std::string(KUBEON_SOURCE_DIR) + "/examples/demo/cluster.json");

// Chunk sizes that put a chunk boundary inside every kind of token.
const size_t kChunks[] = {1, 2, 7, 64, 4096, kSnapshotChunkBytes};

StreamOptions Threads(int threads, size_t chunk = 7) {
  StreamOptions o;
  o.chunk_bytes = chunk;
  o.threads = threads;
  o.min_part_bytes = 1;  // as many parts as threads, whatever the text's size
  o.max_parts = 64;
  return o;
}

// Read in parts on several threads (so that part boundaries fall in
// different places), `text` gives what one thread gives: the same Cluster or
// the same error.
void ExpectThreadsAgree(const std::string& text, std::initializer_list<int> thread_counts = {2, 3, 5, 16}) {
  Result<Cluster> one = ReadClusterText(text, "c.json", 7);
  for (int threads : thread_counts) {
    Result<Cluster> r = ReadClusterText(text, "c.json", Threads(threads));
    ASSERT_EQ(r.ok(), one.ok()) << threads << " threads: " << (r.ok() ? one : r).status().message();
    if (one.ok()) {
      EXPECT_TRUE(*r == *one) << threads << " threads";
    } else {
      EXPECT_EQ(r.status().message(), one.status().message()) << threads << " threads";
    }
  }
}

void ExpectSameAsWholeText(const std::string& text, std::initializer_list<size_t> chunks = {}) {
  Result<Cluster> whole = ParseClusterJson(text, "c.json");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  for (size_t chunk : chunks.size() ? std::vector<size_t>(chunks) : std::vector<size_t>(std::begin(kChunks), std::end(kChunks))) {
    Result<Cluster> streamed = ReadClusterText(text, "c.json", chunk);
    ASSERT_TRUE(streamed.ok()) << "chunk " << chunk << ": " << streamed.status().message();
    EXPECT_TRUE(*streamed == *whole) << "chunk " << chunk;
  }
  ExpectThreadsAgree(text);
}

// The error both readers give, checked to be the same for every chunk size.
std::string SameError(const std::string& text) {
  Result<Cluster> whole = ParseClusterJson(text, "c.json");
  EXPECT_FALSE(whole.ok());
  if (whole.ok()) return "";
  for (size_t chunk : kChunks) {
    Result<Cluster> streamed = ReadClusterText(text, "c.json", chunk);
    EXPECT_FALSE(streamed.ok()) << "chunk " << chunk;
    if (!streamed.ok()) {
      EXPECT_EQ(streamed.status().message(), whole.status().message()) << "chunk " << chunk;
    }
  }
  ExpectThreadsAgree(text);
  return whole.status().message();
}

// The streamed reader's error (the same for every chunk size).
std::string StreamError(const std::string& text, size_t max_item = kMaxSnapshotItemBytes) {
  std::string first;
  for (size_t chunk : kChunks) {
    Result<Cluster> r = ReadClusterText(text, "c.json", chunk, max_item);
    EXPECT_FALSE(r.ok()) << "chunk " << chunk;
    if (r.ok()) continue;
    if (first.empty()) first = r.status().message();
    EXPECT_EQ(r.status().message(), first) << "chunk " << chunk;
  }
  if (max_item == kMaxSnapshotItemBytes) ExpectThreadsAgree(text);
  return first;
}

TEST(SnapshotStream, DemoEqualsTheWholeTextReader) {
  ASSERT_GT(kDemo.size(), 1000u);
  ExpectSameAsWholeText(kDemo, {13, 4096, kSnapshotChunkBytes});  // 1-byte chunks: the small texts below
  Result<Cluster> r = ReadClusterText(kDemo, "c.json");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->nodes.empty());
  EXPECT_FALSE(r->pods.empty());
}

// A text that says it has `hint` bytes (SizeHint).
class HintedSource : public SnapshotSource {
 public:
  HintedSource(std::string_view text, size_t hint) : text_(text), hint_(hint) {}
  Result<size_t> Read(char* out, size_t n) override {
    const size_t k = std::min(n, text_.size() - at_);
    std::copy_n(text_.data() + at_, k, out);
    at_ += k;
    return k;
  }
  Status Rewind() override {
    at_ = 0;
    return Status::Ok();
  }
  size_t SizeHint() const override { return hint_; }

 private:
  std::string_view text_;
  size_t at_ = 0;
  size_t hint_;
};

// The size hint only sizes the vectors: none, a wrong one or the right one
// read the same Cluster.  With the right one the pods (the List's last kind)
// grow 16 -> 272 -> 4,368 -> 6,553 (the projection's 5,312 raised to the
// 1.5x floor) where doubling ends at 8,192.  An earlier kind's projection
// counts the later kinds' bytes as its own: unused capacity, never written.
TEST(SnapshotStream, TheSizeHintChangesCapacityNeverTheCluster) {
  std::string text = R"({"kind":"List","items":[)";
  for (int i = 0; i < 3000; ++i) {
    text += R"({"kind":"Node","metadata":{"name":"n)" + std::to_string(i) + R"(","labels":{"a":"b"}}},)";
  }
  for (int i = 0; i < 5000; ++i) {
    if (i > 0) text += ',';
    text += R"({"kind":"Pod","metadata":{"namespace":"ns","name":"p)" + std::to_string(i) +
            R"("},"spec":{"nodeName":"n1","containers":[{"name":"c"}]},"status":{"phase":"Running"}})";
  }
  text += "]}";
  Result<Cluster> whole = ParseClusterJson(text, "c.json");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  for (size_t hint : {size_t{0}, size_t{1}, text.size() / 3, text.size(), 1000 * text.size()}) {
    HintedSource source(text, hint);
    Result<Cluster> r = ReadClusterStream(&source, "c.json");
    ASSERT_TRUE(r.ok()) << "hint " << hint << ": " << r.status().message();
    EXPECT_TRUE(*r == *whole) << "hint " << hint;
    if (hint == text.size()) {
      EXPECT_EQ(r->pods.capacity(), 6553u);
    }
  }
}

TEST(SnapshotStream, StringsEscapesAndOddSpacing) {
  // Brackets and escaped quotes inside strings, escaped keys, a top-level
  // metadata object before and after the items, no whitespace at all.
  ExpectSameAsWholeText(
      R"({"metadata":{"x":"}]\"{["},"it\u0065ms":[{"kind":"Node","metadata":{"name":"a\"}b","labels":)"
      R"({"k\\":"v\\\\","q":"[{\"}"}}},{"kind":"Pod","metadata":{"name":"p","namespace":"n\u00e9"},)"
      R"("spec":{"nodeName":"a\"}b","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}],)"
      R"("kind":"List","z":[1,2,{"a":[]}]})");
  ExpectSameAsWholeText("\n\t {\r\n \"items\" :\n[\n]\n , \"kind\":\"List\" }\n\n");
  ExpectSameAsWholeText(R"({"kind":"List","items":[]})");
}

TEST(SnapshotStream, SingleObjectAndPodListBodies) {
  ExpectSameAsWholeText(R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"solo"}})");
  // An API list body: the items have no kind; the List's kind names it,
  // before the items or (a second pass) after them.
  ExpectSameAsWholeText(R"({"kind":"PodList","items":[{"metadata":{"name":"p1","namespace":"a"}}]})");
  ExpectSameAsWholeText(R"({"items":[{"kind":"Node","metadata":{"name":"n"}},{"metadata":{"name":"p1"}}],)"
                        R"("kind":"PodList"})");
}

TEST(SnapshotStream, FieldErrorsNameTheItemAndField) {
  const std::string e = SameError(
      R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"ok"}},)"
      R"({"kind":"Node","metadata":{"name":"n"},"spec":{"unschedulable":"true"}}]})");
  EXPECT_EQ(e, "c.json: items[1] (Node n): spec.unschedulable: expected a boolean, got a string");
  EXPECT_EQ(SameError(R"({"items":[{"metadata":{"name":"x"}}],"kind":"List"})"), "c.json: items[0] (? x): kind missing");
  EXPECT_EQ(SameError(R"({"items":[{"kind":"Pod"}]})"), "c.json: items[0] (Pod): metadata.name missing");
  EXPECT_EQ(SameError(R"({"items":[3]})"), "c.json: items[0] (?): not an object");
  EXPECT_EQ(SameError(R"({"items":{}})"), "c.json: \"items\" is not an array");
  EXPECT_EQ(SameError(R"({"items":[],"items":[]})"), "c.json: \"items\" twice");
  EXPECT_EQ(SameError(R"({"metadata":{}})"), "c.json: neither a List (\"items\") nor a Kubernetes object (\"kind\")");
  SameError("[]");
  SameError("");
}

TEST(SnapshotStream, MalformedJsonNamesTheLine) {
  const std::string e = SameError("{\"kind\":\"List\",\n\"items\":[\n{\"kind\":\"Node\",\n\"metadata\":{\"name\":tru}}]}");
  EXPECT_NE(e.find("c.json: not valid JSON at line 4, column"), std::string::npos) << e;
  // Text after the top-level object (ParseClusterJson: "line 1, column 1: JSON document ended early").
  EXPECT_EQ(StreamError("{\"items\":[]}\n x"), "c.json: not valid JSON at line 2, column 2: text after the top-level object");
  // A missing comma between items: found by the scan, with its position.
  const std::string comma = StreamError("{\"items\":[\n{\"kind\":\"List\"}\n{\"kind\":\"List\"}]}");
  EXPECT_EQ(comma, "c.json: not valid JSON at line 3, column 1: expected ',' or ']' after items[0]");
  // No value where an item should be.
  EXPECT_EQ(StreamError("{\"items\": [}"), "c.json: not valid JSON at line 1, column 12: expected a value in items");
  EXPECT_EQ(StreamError("{\"items\": [{\"kind\":\"List\"},]}"),
            "c.json: not valid JSON at line 1, column 28: expected a value in items");
  // Invalid UTF-8 inside an item: named by item.
  const std::string utf8 = StreamError("{\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"\xff\"}}]}");
  EXPECT_NE(utf8.find("c.json: not valid JSON in items[0] (at line 1, column 11): "), std::string::npos) << utf8;
}

// The streamed reader checks an item's nesting in the scan that finds the
// item's end: the same cap (the List's 2 levels counted), the same position
// as the whole-text reader, strings not counted, first offending bracket named.
TEST(SnapshotStream, NestingIsCheckedByTheItemScan) {
  auto nest = [](size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  const std::string head = "{\"items\":[{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}},\n{\"kind\":\"Pod\",\"x\":";
  ExpectSameAsWholeText(head + nest(253) + ",\"metadata\":{\"name\":\"p\"}}]}", {1, 7, 4096});
  const std::string e = SameError(head + nest(254) + ",\"metadata\":{\"name\":\"p\"}}]}");
  EXPECT_EQ(e, "c.json: arrays and objects nested deeper than 256 levels at line 2, column " +
                   std::to_string(std::string("{\"kind\":\"Pod\",\"x\":").size() + 254) +
                   " (the cap; Kubernetes objects nest about 15)");
  // Two places beyond the cap: the first is named.
  const std::string twice = SameError(head + nest(300) + ",\"y\":" + nest(300) + ",\"metadata\":{\"name\":\"p\"}}]}");
  EXPECT_EQ(twice, e);
  // Brackets inside strings are not nesting.
  ExpectSameAsWholeText(head + "\"\\\"" + std::string(1000, '[') + "\",\"metadata\":{\"name\":\"p\"}}]}", {1, 7, 4096});
}

TEST(SnapshotStream, TruncatedFilesSayWhere) {
  const std::string text = R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n"}},{"kind":"Node","metadata":{"name":"m"}}]})";
  // Every prefix fails; those that end inside an item name it.
  for (size_t n = 1; n < text.size(); ++n) {
    Result<Cluster> r = ReadClusterText(text.substr(0, n), "c.json", 3);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.status().message().find("truncated: the file ends inside"), std::string::npos)
        << n << ": " << r.status().message();
    ExpectThreadsAgree(text.substr(0, n), {2, 4});
  }
  EXPECT_EQ(StreamError(text.substr(0, 80)), "c.json: truncated: the file ends inside items[1]");
  // The top-level key is quoted on one line (fuzz finding: a raw CR in the key).
  EXPECT_EQ(StreamError("{\"i\rtems\":[{"), "c.json: truncated: the file ends inside the top-level \"i\\rtems\"");
}

TEST(SnapshotStream, AnItemAboveTheCapIsAnError) {
  const std::string big = R"({"kind":"List","items":[{"kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":")" +
                          std::string(5000, 'x') + R"("}}]})";
  EXPECT_EQ(StreamError(big, 1000), "c.json: items[0] is larger than 1000 bytes, the most one item may take");
  EXPECT_TRUE(ReadClusterText(big, "c.json", 64, 10000).ok());
  const std::string solo = R"({"kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":")" + std::string(5000, 'x') + "\"}}";
  EXPECT_EQ(StreamError(solo, 1000), "c.json: the top-level \"data\" is larger than 1000 bytes, the most one item may take");
}

// Every one-byte change of a small List to a structural or escape byte:
// the scan never reads out of bounds (ASan) and, when both readers accept
// the text, they make the same Cluster.
TEST(SnapshotStream, OneByteMutationsAgreeWithTheWholeTextReader) {
  const std::string text =
      R"({"kind":"List","items":[{"kind":"Node","metadata":{"name":"n","labels":{"a\"b":"[x]"}}},)"
      R"({"kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n","containers":[{"name":"c"}]}}],"z":1})";
  size_t both_ok = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    for (char c : {'"', '\\', '{', ']', ','}) {
      std::string mutated = text;
      mutated[i] = c;
      Result<Cluster> whole = ParseClusterJson(mutated, "c.json");
      Result<Cluster> streamed = ReadClusterText(mutated, "c.json", 3);
      ExpectThreadsAgree(mutated, {3});
      if (whole.ok() && streamed.ok()) {
        ++both_ok;
        EXPECT_TRUE(*whole == *streamed) << mutated;
      }
    }
  }
  EXPECT_GT(both_ok, 0u);
}

// A text whose reads, and its copies' (Reopen), are counted.
class CountingSource : public HintedSource {
 public:
  CountingSource(std::string_view text, std::atomic<int>* reopened)
      : HintedSource(text, text.size()), text_(text), reopened_(reopened) {}
  Result<size_t> Read(char* out, size_t n) override {
    ++reads_;
    return HintedSource::Read(out, n);
  }
  std::unique_ptr<SnapshotSource> Reopen() const override {
    ++*reopened_;
    return std::make_unique<CountingSource>(text_, reopened_);
  }
  int reads() const { return reads_; }

 private:
  std::string_view text_;
  int reads_ = 0;
  std::atomic<int>* reopened_;
};

// What a read of `text` on `threads` threads did: the result, how many parts
// it was cut into, and whether the one-thread reader read it again.
struct PartsRead {
  Result<Cluster> result;
  int parts;
  bool read_again;
};
PartsRead ReadInParts(const std::string& text, int threads, size_t min_part_bytes = 1,
                      size_t max_parts = kMaxSnapshotParts) {
  std::atomic<int> reopened{0};
  CountingSource source(text, &reopened);
  StreamOptions o = Threads(threads, 64);
  o.min_part_bytes = min_part_bytes;
  o.max_parts = max_parts;
  Result<Cluster> r = ReadClusterStream(&source, "c.json", o);
  return {std::move(r), reopened.load(), source.reads() > 0};
}

// A valid List is read in parts and joined in file order, never read again;
// the number of parts is bounded by the threads, by max_parts and by
// min_part_bytes.
TEST(SnapshotStream, ListsAreReadInPartsJoinedInFileOrder) {
  Result<Cluster> one = ReadClusterText(kDemo, "c.json");
  ASSERT_TRUE(one.ok()) << one.status().message();
  for (int threads : {2, 3, 8}) {
    PartsRead p = ReadInParts(kDemo, threads, 1, 64);
    ASSERT_TRUE(p.result.ok()) << p.result.status().message();
    EXPECT_TRUE(*p.result == *one) << threads;
    EXPECT_EQ(p.parts, threads);
    EXPECT_FALSE(p.read_again) << threads;
  }
  EXPECT_EQ(ReadInParts(kDemo, 64).parts, static_cast<int>(kMaxSnapshotParts));
  EXPECT_EQ(ReadInParts(kDemo, 8, kDemo.size() / 3).parts, 3);
  EXPECT_EQ(ReadInParts(kDemo, 8, kDemo.size() + 1).parts, 0);  // too small: one thread
  EXPECT_EQ(ReadInParts(kDemo, 1).parts, 0);
  // A source that cannot be reopened (a pipe) is read on one thread.
  HintedSource pipe(kDemo, kDemo.size());
  Result<Cluster> r = ReadClusterStream(&pipe, "c.json", Threads(4));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r == *one);
}

// What two parts cannot tell alone is found when they are joined, and the
// one-thread reader then reads the file for the message: the same object in
// two parts, a ClusterPolicy in each (the second a warning), an item without
// kind in a later part whose List's kind comes last.
TEST(SnapshotStream, WhatPartsCannotTellIsReadAgainOnOneThread) {
  const std::string node = R"({"kind":"Node","metadata":{"name":"n"}})";
  const std::string policy = R"({"kind":"ClusterPolicy","apiVersion":"nvidia.com/v1","metadata":{"name":"P"}})";
  std::string filler;
  for (int i = 0; i < 50; ++i) filler += R"({"kind":"Pod","metadata":{"name":"p)" + std::to_string(i) + R"("}},)";
  auto list = [](const std::string& items) { return R"({"kind":"List","items":[)" + items + "]}"; };
  struct Case {
    std::string text;
    bool ok;
  };
  const Case cases[] = {
      {list(node + "," + filler + node), false},
      {list(policy + "," + filler + R"({"kind":"ClusterPolicy","metadata":{"name":"Q"}})"), true},
      {R"({"items":[)" + filler + R"({"metadata":{"name":"x"}}],"kind":"PodList"})", true},
      {list(filler + R"({"kind":"Node","metadata":{"name":"n"},"spec":{"unschedulable":1}})"), false},
  };
  for (const Case& c : cases) {
    Result<Cluster> one = ReadClusterText(c.text, "c.json");
    ASSERT_EQ(one.ok(), c.ok) << c.text << ": " << (one.ok() ? "" : one.status().message());
    PartsRead p = ReadInParts(c.text, 2);
    EXPECT_EQ(p.parts, 2);
    EXPECT_TRUE(p.read_again) << c.text;
    ASSERT_EQ(p.result.ok(), c.ok);
    if (c.ok) {
      EXPECT_TRUE(*p.result == *one) << c.text;
    } else {
      EXPECT_EQ(p.result.status().message(), one.status().message());
    }
  }
  Result<Cluster> two_policies = ReadClusterText(cases[1].text, "c.json", Threads(2));
  ASSERT_TRUE(two_policies.ok());
  ASSERT_EQ(two_policies->warnings.size(), 1u);
  EXPECT_NE(two_policies->warnings[0].find("a second ClusterPolicy"), std::string::npos);
}

TEST(SnapshotStream, ReadsFilesAndRefusesDirectories) {
  char path[] = "/tmp/snapshot_stream_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, kDemo.data(), kDemo.size()), static_cast<ssize_t>(kDemo.size()));
  close(fd);
  Result<Cluster> file = ReadClusterFile(path);
  Result<Cluster> whole = ParseClusterJson(kDemo, path);
  std::remove(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(*file == *whole);
  Result<Cluster> dir = ReadClusterFile("/tmp", 2);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), "/tmp: is a directory, not a cluster snapshot");
  EXPECT_FALSE(ReadClusterFile("/nonexistent/cluster.json").ok());
}

// A file of more than two parts' worth of bytes, read on 1, 2 and 3 threads
// (its reopened copies share one descriptor, each at its own offset).
TEST(SnapshotStream, LargeFilesReadOnThreadsGiveTheOneThreadCluster) {
  std::string text = R"({"kind":"List","items":[)";
  for (int i = 0; text.size() < 2 * kMinSnapshotPartBytes + 4096; ++i) {
    text += R"({"kind":"Node","metadata":{"name":"n)" + std::to_string(i) + R"(","labels":{"a":"b"}}},)";
    text += R"({"kind":"Pod","metadata":{"namespace":"ns","name":"p)" + std::to_string(i) +
            R"("},"spec":{"nodeName":"n)" + std::to_string(i) +
            R"(","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},"status":{"phase":"Running"}},)";
  }
  text.back() = ']';
  text += "}";
  char path[] = "/tmp/snapshot_stream_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  Result<Cluster> one = ReadClusterFile(path, 1);
  Result<Cluster> two = ReadClusterFile(path, 2);
  Result<Cluster> three = ReadClusterFile(path, 3);  // 2 parts: 4 MiB each at least
  std::remove(path);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_TRUE(three.ok()) << three.status().message();
  EXPECT_GT(one->pods.size(), 10000u);
  EXPECT_TRUE(*two == *one);
  EXPECT_TRUE(*three == *one);
  EXPECT_EQ(one->pods.back().name, "p" + std::to_string(one->pods.size() - 1));
}

}  // namespace
}  // namespace kubeon::model
