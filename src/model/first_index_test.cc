// Tests of first_index.h against std::unordered_map on many keys, keys that
// share prefixes or bytes, the empty key, growth and Clear().
#include "model/first_index.h"

#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

namespace kubeon::model {
namespace {

TEST(FirstIndex, KeepsTheFirstIndexOfEachKey) {
  FirstIndex f;
  EXPECT_EQ(f.FindOrAdd("Pod\0ns\0a", 0), std::nullopt);
  EXPECT_EQ(f.FindOrAdd(std::string_view("Pod\0ns\0a", 8), 1), std::nullopt);  // differs from "Pod" (embedded NULs kept)
  EXPECT_EQ(f.FindOrAdd(std::string_view("Pod\0ns\0a", 8), 7), std::optional<size_t>(1));
  EXPECT_EQ(f.FindOrAdd("Pod", 9), std::optional<size_t>(0));
  EXPECT_EQ(f.FindOrAdd("", 3), std::nullopt);
  EXPECT_EQ(f.FindOrAdd("", 4), std::optional<size_t>(3));
  EXPECT_EQ(f.size(), 3u);
  f.Clear();
  EXPECT_EQ(f.size(), 0u);
  EXPECT_EQ(f.FindOrAdd("Pod", 5), std::nullopt);
}

// Random keys from a small alphabet (many shared prefixes, repeats) agree
// with an unordered_map's emplace through several growths.
TEST(FirstIndex, AgreesWithAnUnorderedMap) {
  std::mt19937 rng(7);
  FirstIndex f;
  std::unordered_map<std::string, size_t> ref;
  for (size_t i = 0; i < 200000; ++i) {
    std::string key(rng() % 12, 'a');
    for (char& c : key) c = static_cast<char>('a' + rng() % 3);
    auto [it, inserted] = ref.emplace(key, i);
    const std::optional<size_t> got = f.FindOrAdd(key, i);
    ASSERT_EQ(got.has_value(), !inserted) << key;
    if (got) {
      ASSERT_EQ(*got, it->second) << key;
    }
  }
  EXPECT_EQ(f.size(), ref.size());
}

// AddAll takes another index's keys with their indices (through its growth)
// and says whether one was here already; that one keeps its index here.
TEST(FirstIndex, AddAllTakesTheOtherKeysAndFindsRepeats) {
  FirstIndex early, late;
  for (size_t i = 0; i < 3000; ++i) ASSERT_EQ(early.FindOrAdd("a" + std::to_string(i), i), std::nullopt);
  for (size_t i = 3000; i < 6000; ++i) ASSERT_EQ(late.FindOrAdd("b" + std::to_string(i), i), std::nullopt);
  ASSERT_EQ(late.FindOrAdd(std::string_view("", 0), 6000), std::nullopt);
  EXPECT_TRUE(early.AddAll(late));
  EXPECT_EQ(early.size(), 6001u);
  EXPECT_EQ(early.FindOrAdd("a17", 9), std::optional<size_t>(17));
  EXPECT_EQ(early.FindOrAdd("b4321", 9), std::optional<size_t>(4321));
  EXPECT_EQ(early.FindOrAdd("", 9), std::optional<size_t>(6000));
  FirstIndex repeat;
  ASSERT_EQ(repeat.FindOrAdd("c", 7000), std::nullopt);
  ASSERT_EQ(repeat.FindOrAdd("a5", 7001), std::nullopt);
  EXPECT_FALSE(early.AddAll(repeat));
  EXPECT_EQ(early.FindOrAdd("a5", 9), std::optional<size_t>(5));
  EXPECT_EQ(early.FindOrAdd("c", 9), std::optional<size_t>(7000));
  FirstIndex empty;
  EXPECT_TRUE(early.AddAll(empty));
  EXPECT_TRUE(empty.AddAll(late));
  EXPECT_EQ(empty.size(), late.size());
}

}  // namespace
}  // namespace kubeon::model
