// Tests for cel.h: the supported subset evaluates as CEL does (selection,
// index, in, has, size, comparisons, short-circuit absorbing errors,
// ternary) and everything outside it fails to compile, naming the construct.
#include "cel.h"

#include <gtest/gtest.h>

namespace kubeon::kubesim {
namespace {

const json kVars = json::parse(R"({
  "object": {"metadata": {"name": "c1", "annotations": {"gpu.kubeon.io/approved-by": "alice"}},
             "spec": {"replicas": 3, "items": ["a", "b"]}},
  "oldObject": null,
  "request": {"operation": "CREATE", "userInfo": {"username": "alice", "groups": ["reviewers"]}}})");

json Eval(const std::string& expr) {
  auto p = CelProgram::Compile(expr);
  EXPECT_TRUE(p.ok()) << expr << ": " << (p.ok() ? "" : p.error().message);
  if (!p.ok()) return "compile error";
  auto v = p.value().Evaluate(kVars);
  return v.ok() ? v.value() : json("error: " + v.error().message);
}

TEST(CelTest, TheSubsetEvaluatesAsCel) {
  EXPECT_EQ(Eval("object.metadata.annotations['gpu.kubeon.io/approved-by'] == request.userInfo.username"), true);
  EXPECT_EQ(Eval("'gpu.kubeon.io/approve' in object.metadata.annotations"), false);
  EXPECT_EQ(Eval("'b' in object.spec.items && !('c' in object.spec.items)"), true);
  EXPECT_EQ(Eval("has(object.metadata.labels) ? 1 : size(object.spec.items)"), 2);
  EXPECT_EQ(Eval("size(object.metadata.name) == 2 && object.spec.replicas >= 3 && object.spec.replicas < 4"), true);
  EXPECT_EQ(Eval("request.operation in ['CREATE', 'UPDATE']"), true);
  EXPECT_EQ(Eval("oldObject == null || oldObject.metadata.name == 'x'"), true);
  EXPECT_EQ(Eval("object.spec.items[1] != \"a\""), true);
  EXPECT_EQ(Eval("-object.spec.replicas == -3 && 1.5 > 1"), true);
  // Errors as CEL: a missing key; absorbed when the other side decides.
  EXPECT_EQ(Eval("object.metadata.labels['x'] == 'y'"), "error: no such key: labels");
  EXPECT_EQ(Eval("object.metadata.labels['x'] == 'y' || true"), true);
  EXPECT_EQ(Eval("false && object.metadata.labels['x'] == 'y'"), false);
  EXPECT_EQ(Eval("object.metadata.labels['x'] == 'y' && true"), "error: no such key: labels");
  EXPECT_EQ(Eval("oldObject.metadata"), "error: no such key: metadata");
  EXPECT_EQ(Eval("object.spec.replicas < 'a'"), "error: no matching overload for '<' on int and string");
  EXPECT_EQ(Eval("!object.spec.replicas"), "error: no matching overload: expected bool, got int");
}

TEST(CelTest, OtherConstructsAreNotCompiled) {
  for (const char* expr : {"object.metadata.name.startsWith('c')", "object.spec.items.all(i, i != '')",
                           "params.max > 1", "variables.x", "matches(object.metadata.name, 'c')",
                           "object.spec.?replicas", "object.spec.items[", "1 +"}) {
    auto p = CelProgram::Compile(expr);
    ASSERT_FALSE(p.ok()) << expr;
    EXPECT_EQ(p.error().message.rfind("unsupported CEL: ", 0), 0u) << p.error().message;
  }
}

}  // namespace
}  // namespace kubeon::kubesim
