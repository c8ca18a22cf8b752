// Tests for model::Labels: map semantics checked against std::map on random
// operations (order, lookups, replacement, erase, copies, moves, compaction),
// views into the map passed back to it, and FromEntries' duplicate rule.
#include "model/labels.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kubeon::model {
namespace {

std::map<std::string, std::string> AsMap(const Labels& l) {
  std::map<std::string, std::string> m;
  std::string prev;
  bool first = true;
  for (const auto& [k, v] : l) {
    EXPECT_TRUE(first || prev < k) << "keys out of order: \"" << prev << "\" then \"" << k << "\"";
    prev = std::string(k);
    first = false;
    m.emplace(k, v);
  }
  return m;
}

TEST(Labels, InitializerListSortsAndLastDuplicateWins) {
  Labels l = {{"zone", "a"}, {"app", "x"}, {"zone", "b"}, {"", "empty key"}, {"k", ""}};
  EXPECT_EQ(AsMap(l), (std::map<std::string, std::string>{{"", "empty key"}, {"app", "x"}, {"k", ""}, {"zone", "b"}}));
  EXPECT_EQ(l.size(), 4u);
  EXPECT_EQ(l.Get("zone"), "b");
  EXPECT_EQ(l.Get("missing"), "");
  EXPECT_TRUE(l.contains("k"));
  EXPECT_EQ(l.at("k"), "");
  EXPECT_EQ(l.count(""), 1u);
  EXPECT_THROW(l.at("missing"), std::out_of_range);
  EXPECT_EQ(l.find("missing"), l.end());
  ASSERT_NE(l.find("app"), l.end());
  EXPECT_EQ(l.find("app")->second, "x");
}

TEST(Labels, FromEntriesKeepsTheLastOfEqualKeysInInputOrder) {
  std::vector<std::pair<std::string_view, std::string_view>> in = {
      {"b", "1"}, {"a", "1"}, {"b", "2"}, {"c", "1"}, {"b", "3"}, {"a", "2"}};
  Labels l = Labels::FromEntries(&in);
  EXPECT_EQ(AsMap(l), (std::map<std::string, std::string>{{"a", "2"}, {"b", "3"}, {"c", "1"}}));
  std::vector<std::pair<std::string_view, std::string_view>> sorted = {{"a", "1"}, {"b", "2"}};
  EXPECT_EQ(AsMap(Labels::FromEntries(&sorted)), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  std::vector<std::pair<std::string_view, std::string_view>> none;
  EXPECT_TRUE(Labels::FromEntries(&none).empty());
}

TEST(Labels, ViewsIntoTheMapCanBeWrittenBack) {
  Labels l;
  for (int i = 0; i < 50; ++i) l.Set("key-" + std::to_string(i), std::string(40, static_cast<char>('a' + i % 26)));
  // Each Set below may move the buffer the arguments point into.
  for (int i = 0; i < 50; ++i) {
    const std::string k = "key-" + std::to_string(i);
    l.Set("copy-" + std::to_string(i), l.at(k));
    l.Set(l.find(k)->first, l.at("key-" + std::to_string((i + 1) % 50)));
  }
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(l.at("copy-" + std::to_string(i)), std::string(40, static_cast<char>('a' + i % 26)));
    EXPECT_EQ(l.at("key-" + std::to_string(i)).size(), 40u);
  }
  l.Set(l.begin()->first, l.begin()->first);
  EXPECT_EQ(l.begin()->second, l.begin()->first);
}

TEST(Labels, BehavesLikeStdMapUnderRandomOperations) {
  std::mt19937 rng(20261205);
  for (int round = 0; round < 40; ++round) {
    Labels l;
    std::map<std::string, std::string> want;
    auto text = [&](int max_len) {
      std::string s(std::uniform_int_distribution<int>(0, max_len)(rng), 'x');
      for (char& c : s) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 3)(rng));
      return s;
    };
    for (int op = 0; op < 400; ++op) {
      const std::string k = text(4);
      switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
        case 0:
        case 1: {
          const std::string v = text(300);  // long values leave dead bytes and force compaction
          l.Set(k, v);
          want[k] = v;
          break;
        }
        case 2: {
          const std::string v = text(8);
          EXPECT_EQ(l.Insert(k, v), want.emplace(k, v).second);
          break;
        }
        case 3:
          EXPECT_EQ(l.erase(k), want.erase(k));
          break;
        case 4: {
          Labels copy(l);
          EXPECT_EQ(copy, l);
          l = Labels();
          l = copy;  // copy assignment
          break;
        }
        default: {
          Labels moved(std::move(l));
          l = std::move(moved);
          break;
        }
      }
      ASSERT_EQ(AsMap(l), want) << "round " << round << " op " << op;
      EXPECT_EQ(l.contains(k), want.count(k) == 1);
    }
    l.clear();
    EXPECT_TRUE(l.empty());
    EXPECT_EQ(l.begin(), l.end());
  }
}

TEST(Labels, EqualityComparesEntriesNotTheBuffer) {
  Labels a = {{"a", "1"}, {"b", "2"}};
  Labels b;
  b.Set("b", "old");
  b.Set("a", "1");
  EXPECT_NE(a, b);
  b.Set("b", "2");  // b's buffer still holds "old"
  EXPECT_EQ(a, b);
  b.erase("a");
  EXPECT_NE(a, b);
  EXPECT_NE(Labels({{"a", ""}}), Labels());
}

}  // namespace
}  // namespace kubeon::model
