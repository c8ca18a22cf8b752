// Tests for json_writer.h: the streamed text equals nlohmann::json::dump(2)
// of the same document, escapes and numbers included.
#include "model/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kubeon::model {
namespace {

using nlohmann::json;

std::string Streamed(const json& j, int indent = 2) {
  std::string out;
  JsonWriter w(&out, indent);
  w.Value(j);
  EXPECT_TRUE(w.Complete());
  return out;
}

TEST(JsonWriter, SameTextAsDumpForNestedValues) {
  const json docs[] = {
      json::parse(R"({"b": [], "a": {}, "c": [1, -2, 3000000000, 18446744073709551615, 2.5, 1.0, 1e300, -0.0,
                      true, false, null, "s", {"x": [[]], "y": [{}]}], "d": {"e": {"f": "g"}}})"),
      json::array(), json::object(), json(5), json("top"), json(nullptr),
      json::parse(R"([{"k": 0.1}, [0.30000000000000004, 123456789.125, 1e-7]])")};
  for (const json& j : docs) {
    EXPECT_EQ(Streamed(j), j.dump(2)) << j.dump();
    EXPECT_EQ(Streamed(j, 4), j.dump(4)) << j.dump();
    EXPECT_EQ(Streamed(j, JsonWriter::kCompact), j.dump()) << j.dump();
  }
}

TEST(JsonWriter, EscapesLikeDump) {
  std::string all_bytes;
  for (int c = 1; c < 0x80; ++c) all_bytes += static_cast<char>(c);
  const json j = {{"ascii", all_bytes},
                  {"utf8", "gr\xC3\xBC\xC3\x9F \xE2\x86\x92 \xF0\x9F\x98\x80"},
                  {"quote\"key\\", "tab\there\nnew\r\b\f"},
                  {std::string("nul\0byte", 8), std::string("\0", 1)}};
  EXPECT_EQ(Streamed(j), j.dump(2));
  EXPECT_EQ(Streamed(j, JsonWriter::kCompact), j.dump());
}

TEST(JsonWriter, InvalidUtf8IsReplacedLikeDumpWithReplace) {
  const std::string bad = "caf\xE9 ok \xFF";
  const json j = json::array({bad});
  std::string out;
  JsonWriter w(&out);
  w.BeginArray();
  EXPECT_NO_THROW(w.String(bad));
  w.EndArray();
  EXPECT_EQ(out, j.dump(2, ' ', false, json::error_handler_t::replace));
  EXPECT_EQ(json::parse(out)[0], "caf\xEF\xBF\xBD ok \xEF\xBF\xBD");
}

TEST(JsonWriter, DoublesLikeDump) {
  for (double d : {0.0, 1.0, -1.5, 0.1, 1e21, 1e-5, 123.456, 1.0 / 3.0, 730.0 * 3.06, 5e-324,
                   std::numeric_limits<double>::max(), std::nan(""), std::numeric_limits<double>::infinity()}) {
    std::string out;
    JsonWriter w(&out);
    w.Double(d);
    EXPECT_EQ(out, json(d).dump()) << d;
  }
}

TEST(JsonWriter, BuildsMembersInOrder) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Field("a", 1);
  w.Field("b", std::vector<std::string>{"x", "y"});
  w.Field("c", std::vector<std::string>{});
  w.Key("d");
  w.BeginObject();
  w.EndObject();
  w.Field("e", true);
  w.Key("f");
  w.Null();
  w.Field("g", uint64_t{18446744073709551615u});
  w.Field("h", int64_t{-9223372036854775807 - 1});
  w.EndObject();
  EXPECT_TRUE(w.Complete());
  const json expected = {{"a", 1}, {"b", {"x", "y"}}, {"c", json::array()}, {"d", json::object()},
                         {"e", true}, {"f", nullptr}, {"g", uint64_t{18446744073709551615u}},
                         {"h", int64_t{-9223372036854775807 - 1}}};
  EXPECT_EQ(out, expected.dump(2));
}

// CompactValue(j.dump()) at the top level and nested, with `indent`.
std::string Reindented(const json& j, int indent) {
  std::string out;
  JsonWriter w(&out, indent);
  w.CompactValue(j.dump());
  EXPECT_TRUE(w.Complete());
  return out;
}

TEST(JsonWriter, CompactValueReindentsDumpsText) {
  const json docs[] = {
      json::parse(R"({"spec": {"template": {"spec": {"containers": [{"name": "main", "resources":
                      {"limits": {"nvidia.com/gpu": null, "nvidia.com/mig-3g.20gb": "1"}}}],
                      "affinity": {"a": [[], {}, [{}], [[1, 2]], -0.0, 1.5e300, 18446744073709551615]}}}}})"),
      // Structure characters, quotes and escapes inside keys and strings are copied as they are.
      json{{"{[,:]}", "a,b:c{d}[e]"}, {"q\"", "\"\\\"\\"}, {"ctl", "\t\n\x01 gr\xC3\xBC\xC3\x9F"}},
      json::array(), json::object(), json(5), json("s,:{}"), json(nullptr), json(true), json(2.0),
      json::array({json::array(), json::object(), "]"})};
  for (const json& j : docs) {
    EXPECT_EQ(Reindented(j, 2), j.dump(2)) << j.dump();
    EXPECT_EQ(Reindented(j, 4), j.dump(4)) << j.dump();
    EXPECT_EQ(Reindented(j, JsonWriter::kCompact), j.dump()) << j.dump();
    // As a member and as an array element, two levels down.
    std::string out;
    JsonWriter w(&out);
    w.BeginObject();
    w.Key("a");
    w.BeginArray();
    w.CompactValue(j.dump());
    w.Int(1);
    w.EndArray();
    w.Key("b");
    w.CompactValue(j.dump());
    w.EndObject();
    EXPECT_TRUE(w.Complete());
    EXPECT_EQ(out, (json{{"a", {j, 1}}, {"b", j}}).dump(2)) << j.dump();
  }
}

TEST(JsonWriter, CompactValueStaysInBoundsOnTruncatedText) {
  // Not dump()'s text: unspecified output, but no read past the end.
  for (const char* text : {"{", "[\"a", "\"\\", "{\"a\":[1,", "}", "]]"}) {
    std::string out;
    JsonWriter w(&out);
    w.CompactValue(text);
    EXPECT_FALSE(out.empty()) << text;
  }
}

TEST(JsonWriter, IncompleteDocumentIsNotComplete) {
  std::string out;
  JsonWriter w(&out);
  EXPECT_FALSE(w.Complete());
  w.BeginArray();
  EXPECT_FALSE(w.Complete());
  w.EndArray();
  EXPECT_TRUE(w.Complete());
}

TEST(JsonWriterDeathTest, KeysOutOfOrderAbort) {
  EXPECT_DEATH(
      {
        std::string out;
        JsonWriter w(&out);
        w.BeginObject();
        w.Field("b", 1);
        w.Field("a", 2);
      },
      "");
}

}  // namespace
}  // namespace kubeon::model
