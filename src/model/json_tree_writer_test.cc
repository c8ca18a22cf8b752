// Tests for json_tree_writer.h: the calls build the value a hand-built tree
// holds (same number types), and the same calls on a JsonWriter print that
// value's dump(2).
#include "model/json_tree_writer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "model/json_writer.h"

namespace kubeon::model {
namespace {

using nlohmann::json;

// One document written through any writer with JsonWriter's calls.
template <typename W>
void Document(W& w) {
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Int(-3);
  w.UInt(18446744073709551615u);
  w.Double(2.0);
  w.Bool(false);
  w.Null();
  w.String("x\"y\n\xC3\xBC");
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.BeginArray();
  w.EndArray();
  w.EndArray();
  w.EndArray();
  w.Field("b", std::vector<std::string>{"p", "q"});
  w.Field("c", std::string("s"));
  w.Field("d", 7);
  w.Field("e", true);
  w.Key("f");
  w.BeginObject();
  w.Key("g");
  w.BeginObject();
  w.Field("h", int64_t{-1});
  w.EndObject();
  w.EndObject();
  w.EndObject();
}

const json& Expected() {
  static const json j = {{"a", {-3, uint64_t{18446744073709551615u}, 2.0, false, nullptr, "x\"y\n\xC3\xBC",
                                json::object(), json::array({json::array()})}},
                         {"b", {"p", "q"}},
                         {"c", "s"},
                         {"d", 7},
                         {"e", true},
                         {"f", {{"g", {{"h", -1}}}}}};
  return j;
}

TEST(JsonTreeWriter, BuildsTheHandBuiltValue) {
  JsonTreeWriter w;
  EXPECT_FALSE(w.Complete());
  Document(w);
  ASSERT_TRUE(w.Complete());
  const json j = w.Take();
  EXPECT_EQ(j, Expected());
  EXPECT_EQ(j.dump(2), Expected().dump(2));
  EXPECT_TRUE(j["a"][0].is_number_integer() && !j["a"][0].is_number_unsigned());
  EXPECT_TRUE(j["a"][1].is_number_unsigned());
  EXPECT_TRUE(j["a"][2].is_number_float());
  EXPECT_TRUE(j["d"].is_number_integer() && !j["d"].is_number_unsigned());
}

TEST(JsonTreeWriter, SameCallsOnJsonWriterPrintItsDump) {
  std::string out;
  JsonWriter text(&out);
  Document(text);
  EXPECT_EQ(out, Expected().dump(2));
}

TEST(JsonTreeWriter, FieldTakesWhatJsonTakes) {
  JsonTreeWriter w;
  w.BeginObject();
  w.Field("m", std::map<std::string, std::string>{{"k", "v"}});
  w.Field("e", std::map<std::string, std::string>{});
  w.EndObject();
  EXPECT_EQ(w.Take(), (json{{"m", {{"k", "v"}}}, {"e", json::object()}}));
}

TEST(JsonTreeWriter, ScalarAtTheTopLevel) {
  JsonTreeWriter w;
  w.String("only");
  ASSERT_TRUE(w.Complete());
  EXPECT_EQ(w.Take(), json("only"));
}

TEST(JsonTreeWriterDeathTest, MisuseAborts) {
  EXPECT_DEATH(
      {
        JsonTreeWriter w;
        w.BeginObject();
        w.Int(1);  // no Key()
      },
      "");
  EXPECT_DEATH(
      {
        JsonTreeWriter w;
        w.BeginArray();
        w.Key("k");  // Key() in an array
      },
      "");
  EXPECT_DEATH(
      {
        JsonTreeWriter w;
        w.BeginArray();
        w.EndObject();  // mismatched
      },
      "");
  EXPECT_DEATH(
      {
        JsonTreeWriter w;
        w.BeginArray();
        w.Take();  // not finished
      },
      "");
  EXPECT_DEATH(
      {
        JsonTreeWriter w;
        w.Int(1);
        w.Int(2);  // two top-level values
      },
      "");
}

}  // namespace
}  // namespace kubeon::model
