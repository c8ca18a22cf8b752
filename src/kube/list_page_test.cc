// Tests for list_page.h: the page's fields, items handed on as served, and
// errors naming the field path for wrong types, bad JSON and deep nesting.
#include "kube/list_page.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kubeon::kube {
namespace {

struct Parsed {
  Result<ListPage> page = Status::Error("not run");
  std::vector<std::string> items;
  std::vector<std::string> kinds;  // "K" has kind, "A" has apiVersion
};

Parsed Parse(std::string body, size_t max_depth = 64) {
  Parsed p;
  p.page = ParseListPage(body, max_depth, [&](const ListPageItem& item) {
    EXPECT_EQ(item.index, p.items.size());
    p.items.emplace_back(item.json);
    p.kinds.push_back(std::string(item.has_kind ? "K" : "") + (item.has_api_version ? "A" : ""));
    return Status::Ok();
  });
  return p;
}

std::string Error(const std::string& body, size_t max_depth = 64) {
  Parsed p = Parse(body, max_depth);
  return p.page.ok() ? "(ok)" : p.page.status().message();
}

TEST(ListPageTest, ReadsTheListFieldsAndHandsOnItemsAsServed) {
  Parsed p = Parse(R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"abc",)"
                   R"("remainingItemCount":3},"items":[{"metadata":{"name":"a"}} , {"kind":"Pod","apiVersion":"v1",)"
                   R"("spec":{"x":[1,{"y":"}]\""}]}}, {}]})");
  ASSERT_TRUE(p.page.ok()) << p.page.status().message();
  EXPECT_EQ(p.page->kind, "PodList");
  EXPECT_EQ(p.page->api_version, "v1");
  EXPECT_EQ(p.page->resource_version, "42");
  EXPECT_EQ(p.page->continue_token, "abc");
  EXPECT_EQ(p.page->items, 3u);
  EXPECT_EQ(p.items, (std::vector<std::string>{R"({"metadata":{"name":"a"}})",
                                               R"({"kind":"Pod","apiVersion":"v1","spec":{"x":[1,{"y":"}]\""}]}})",
                                               "{}"}));
  EXPECT_EQ(p.kinds, (std::vector<std::string>{"", "KA", ""}));
}

TEST(ListPageTest, MissingOrNullItemsIsAnEmptyPage) {
  for (const char* body : {R"({"kind":"NodeList"})", R"({"items":null,"metadata":null})", "{}"}) {
    Parsed p = Parse(body);
    ASSERT_TRUE(p.page.ok()) << body << ": " << p.page.status().message();
    EXPECT_EQ(p.page->items, 0u) << body;
    EXPECT_EQ(p.page->continue_token, "") << body;
  }
}

TEST(ListPageTest, WrongTypesAreErrorsNamingTheField) {
  EXPECT_EQ(Error(R"({"kind":5,"items":[]})"), "kind: expected a string, got a number");
  EXPECT_EQ(Error(R"({"apiVersion":["v1"]})"), "apiVersion: expected a string, got an array");
  EXPECT_EQ(Error(R"({"metadata":"x"})"), "metadata: expected an object, got a string");
  EXPECT_EQ(Error(R"({"metadata":{"continue":7}})"), "metadata.continue: expected a string, got a number");
  EXPECT_EQ(Error(R"({"metadata":{"resourceVersion":true}})"),
            "metadata.resourceVersion: expected a string, got a boolean");
  EXPECT_EQ(Error(R"({"items":{"a":1}})"), "items: expected an array, got an object");
  EXPECT_EQ(Error(R"({"items":[{},[],{}]})"), "items[1]: expected an object, got an array");
  EXPECT_EQ(Error(R"([{"items":[]}])"), "expected a JSON object (a list), got an array");
}

TEST(ListPageTest, TextThatIsNotJsonIsAnError) {
  for (const char* body : {"", "{", R"({"items":[{"a":}]})", R"({"items":[]} {})", "{\"kind\":\"\xff\"}"}) {
    const std::string e = Error(body);
    EXPECT_EQ(e.rfind("not valid JSON", 0), 0u) << body << ": " << e;
  }
}

TEST(ListPageTest, DeepNestingInAnItemIsAnErrorNamingTheItem) {
  const std::string ok = "{\"items\":[{},{\"a\":" + std::string(63, '[') + std::string(63, ']') + "}]}";
  EXPECT_EQ(Error(ok), "(ok)");
  const std::string deep = "{\"items\":[{},{\"a\":" + std::string(64, '[') + std::string(64, ']') + "}]}";
  EXPECT_EQ(Error(deep), "items[1]: nested deeper than 64 levels");
  // 200 KB of nested arrays (the issue's case) stops at the cap.
  const std::string huge = "{\"items\":[{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}]}";
  EXPECT_EQ(Error(huge), "items[0]: nested deeper than 64 levels");
}

TEST(ListPageTest, SinkErrorsEndTheParse) {
  std::string body = R"({"items":[{},{},{}]})";
  int calls = 0;
  auto page = ParseListPage(body, 64, [&](const ListPageItem&) {
    return ++calls == 2 ? Status::Error("stop here") : Status::Ok();
  });
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.status().message(), "stop here");
  EXPECT_EQ(calls, 2);
}

TEST(FindNestingBeyondTest, CountsBracketsOutsideStringsOnly) {
  EXPECT_EQ(FindNestingBeyond("{}", 1), std::string_view::npos);
  EXPECT_EQ(FindNestingBeyond("{}", 0), 0u);
  EXPECT_EQ(FindNestingBeyond(R"({"a":[{}]})", 3), std::string_view::npos);
  EXPECT_EQ(FindNestingBeyond(R"({"a":[{}]})", 2), 6u);
  EXPECT_EQ(FindNestingBeyond(R"({"[[[[":"{{{{"})", 1), std::string_view::npos);
  EXPECT_EQ(FindNestingBeyond(R"({"a\"[[":"\\",[[]]})", 2), 15u);  // escaped quote, then an escaped backslash
  EXPECT_EQ(FindNestingBeyond(R"(["\\\"[[[" ])", 1), std::string_view::npos);
}

}  // namespace
}  // namespace kubeon::kube
