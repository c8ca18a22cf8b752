#include "metrics/view_index.h"

#include <gtest/gtest.h>

#include <deque>
#include <set>
#include <string>

namespace kubeon::metrics::internal {
namespace {

struct Value {
  std::string key;
};

TEST(ViewIndexTest, FindsWhatWasInsertedAndNothingElse) {
  ViewIndex<Value> index;
  std::deque<Value> values;
  EXPECT_EQ(index.Find("a", ViewIndex<Value>::Hash("a")), nullptr);
  for (int i = 0; i < 5000; ++i) {
    Value& v = values.emplace_back(Value{"key-" + std::to_string(i)});
    ASSERT_EQ(index.Find(v.key, ViewIndex<Value>::Hash(v.key)), nullptr);
    index.Insert(v.key, ViewIndex<Value>::Hash(v.key), &v);
  }
  EXPECT_EQ(index.size(), 5000u);
  for (Value& v : values) {
    // A different copy of the key's bytes: compared by content.
    const std::string copy = v.key;
    EXPECT_EQ(index.Find(copy, ViewIndex<Value>::Hash(copy)), &v);
  }
  EXPECT_EQ(index.Find("key-5000", ViewIndex<Value>::Hash("key-5000")), nullptr);
  index.Clear();
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.Find("key-1", ViewIndex<Value>::Hash("key-1")), nullptr);
}

// An empty view with a null data() (what a reader passes for a line
// without labels) is a key like any other.
// The table uses the hash's low 32 bits: a byte changed anywhere in a long
// key, or zero bytes appended, changes them (ASCII label sets differ in a
// byte or two, and a key's tail is read as a zero-padded word).
TEST(ViewIndexTest, HashLowBitsSeeEveryByteAndTheLength) {
  std::string base;
  for (int i = 0; i < 203; ++i) base.push_back(static_cast<char>('a' + i % 26));
  std::set<uint32_t> seen = {static_cast<uint32_t>(ViewIndex<Value>::Hash(base))};
  for (size_t at = 0; at < base.size(); ++at) {
    for (char c : {'0', '\x80', '\0'}) {
      std::string k = base;
      k[at] = c;
      EXPECT_TRUE(seen.insert(static_cast<uint32_t>(ViewIndex<Value>::Hash(k))).second) << at;
    }
  }
  for (std::string k = "a"; k.size() < 20; k.push_back('\0')) {
    EXPECT_TRUE(seen.insert(static_cast<uint32_t>(ViewIndex<Value>::Hash(k))).second) << k.size();
  }
  EXPECT_TRUE(seen.insert(static_cast<uint32_t>(ViewIndex<Value>::Hash(""))).second);
}

TEST(ViewIndexTest, NullEmptyViewIsTheEmptyKey) {
  ViewIndex<Value> index;
  Value empty{""};
  Value a{"a"};
  index.Insert("a", 7, &a);
  EXPECT_EQ(index.Find(std::string_view(), 7), nullptr);
  index.Insert(std::string_view(), 7, &empty);
  EXPECT_EQ(index.Find(std::string_view(), 7), &empty);
  EXPECT_EQ(index.Find(empty.key, 7), &empty);
  EXPECT_EQ(index.Find("a", 7), &a);
}

// Every key under one hash: a hash match alone never counts, and the empty
// key and keys that differ only in length or in their last byte are told
// apart.
TEST(ViewIndexTest, CollidingHashesAreToldApartByTheBytes) {
  ViewIndex<Value> index;
  std::deque<Value> values;
  const std::string keys[] = {"", "a", "ab", "ac", std::string("a\0", 2), "abc", "b"};
  for (const std::string& k : keys) {
    Value& v = values.emplace_back(Value{k});
    ASSERT_EQ(index.Find(v.key, 42), nullptr) << k;
    index.Insert(v.key, 42, &v);
  }
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(index.Find(keys[i], 42), &values[i]) << keys[i];
  EXPECT_EQ(index.Find(std::string_view(), 42), &values[0]);  // "" with a null data()
  EXPECT_EQ(index.Find("abd", 42), nullptr);
  EXPECT_EQ(index.Find("a", 43), nullptr);  // another hash probes elsewhere
}

}  // namespace
}  // namespace kubeon::metrics::internal
