// Tests for yaml_documents.h: documents and their lines, syntax errors with
// line and column, and the malformed streams that make yaml-cpp 0.7's
// LoadAll loop forever.
#include "policy/yaml_documents.h"

#include <gtest/gtest.h>

namespace kubeon::policy {
namespace {

TEST(LoadYamlDocuments, EmptyStream) {
  Result<std::vector<YAML::Node>> r = LoadYamlDocuments("", "f.yaml");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
}

TEST(LoadYamlDocuments, DocumentsKeepTheirLines) {
  Result<std::vector<YAML::Node>> r =
      LoadYamlDocuments("a: 1\n---\n---\n# comment\nb: [x, y]\n---\n", "f.yaml");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0]["a"].as<int>(), 1);
  EXPECT_TRUE((*r)[1].IsNull());
  EXPECT_EQ((*r)[2].Mark().line, 4);  // 0-based: "b: [x, y]" is line 5
  EXPECT_EQ((*r)[2]["b"][1].as<std::string>(), "y");
  EXPECT_TRUE((*r)[3].IsNull());
}

TEST(LoadYamlDocuments, SyntaxErrorNamesFileLineAndColumn) {
  Result<std::vector<YAML::Node>> r = LoadYamlDocuments("a: 1\nb: c: d\n", "f.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("f.yaml:2: YAML syntax error at column ", 0), 0u)
      << r.status().message();
}

// Each of these made yaml-cpp 0.7's LoadAll spin forever.
TEST(LoadYamlDocuments, StrayCommaIsAnErrorNotAHang) {
  struct Case {
    const char* text;
    const char* prefix;
  };
  const Case cases[] = {
      {",", "f.yaml:1: YAML syntax error at column 1: unexpected ','"},
      {", a", "f.yaml:1: YAML syntax error at column 1: unexpected ','"},
      {"# comment\n,a: 1\n", "f.yaml:2: YAML syntax error at column 1: unexpected ','"},
      {"a: 1\n---\n,\n", "f.yaml:3: YAML syntax error at column 1: unexpected ','"},
      {"- a\n- b\n,\n", "f.yaml:3: YAML syntax error at column 1: unexpected ','"},
      {"- !+(.,.)", "f.yaml:1: YAML syntax error"},
  };
  for (const Case& c : cases) {
    Result<std::vector<YAML::Node>> r = LoadYamlDocuments(c.text, "f.yaml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message().rfind(c.prefix, 0), 0u) << c.text << " -> " << r.status().message();
  }
}

// Inputs that hung older yaml-cpp releases: 0.7 accepts some of them, and
// whatever it says must come back as a value, promptly.
TEST(LoadYamlDocuments, OtherOddStreamsReturn) {
  for (const char* text : {"[:", "{:", "[:]", "{:]", "bad YAML: [", "{# ke\ny{:", "x: [a, b]\n]"}) {
    Result<std::vector<YAML::Node>> r = LoadYamlDocuments(text, "f.yaml");
    if (!r.ok()) {
      EXPECT_EQ(r.status().message().rfind("f.yaml:", 0), 0u) << r.status().message();
    }
  }
  EXPECT_FALSE(LoadYamlDocuments("bad YAML: [", "f.yaml").ok());
}

}  // namespace
}  // namespace kubeon::policy
