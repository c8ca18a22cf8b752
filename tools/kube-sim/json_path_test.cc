// Tests for json_path.h: the JSONPath subset of printer columns.
#include "json_path.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

const json kObj = json::parse(R"({
  "spec": {"mode": "Auto", "items": [{"name": "a"}, {"name": "b"}], "n": 3},
  "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Degraded", "status": "False"}]}})");

std::vector<json> Eval(const std::string& path) {
  std::vector<json> out;
  for (const json* v : EvalJsonPath(kObj, path)) out.push_back(*v);
  return out;
}

TEST(JsonPathTest, Fields) {
  EXPECT_EQ(Eval(".spec.mode"), std::vector<json>{"Auto"});
  EXPECT_EQ(Eval("{.spec.n}"), std::vector<json>{3});
  EXPECT_TRUE(Eval(".spec.missing").empty());
  EXPECT_TRUE(Eval(".spec.mode.deeper").empty());
}

TEST(JsonPathTest, IndicesWildcardsAndFilters) {
  EXPECT_EQ(Eval(".spec.items[1].name"), std::vector<json>{"b"});
  EXPECT_TRUE(Eval(".spec.items[2].name").empty());
  EXPECT_EQ(Eval(".spec.items[*].name"), (std::vector<json>{"a", "b"}));
  EXPECT_EQ(Eval(".status.conditions[?(@.type==\"Degraded\")].status"), std::vector<json>{"False"});
  EXPECT_EQ(Eval(".status.conditions[?(@.type=='Ready')].status"), std::vector<json>{"True"});
  EXPECT_TRUE(Eval(".status.conditions[?(@.type==\"Gone\")].status").empty());
}

TEST(JsonPathTest, UnsupportedPathsMatchNothing) {
  for (const char* p : {"", "spec.mode", ".spec..mode", ".spec.items[", ".spec.items[-1]",
                        ".status.conditions[?(@.type!=\"Ready\")]", ".spec.items[0:1]"}) {
    EXPECT_FALSE(IsSimpleJsonPath(p)) << p;
    EXPECT_TRUE(Eval(p).empty()) << p;
  }
  EXPECT_TRUE(IsSimpleJsonPath(".status.conditions[?(@.type==\"Ready\")].status"));
}

}  // namespace
}  // namespace kubeon::kubesim
