// JsonWriter: appends pretty-printed JSON to a string as it is produced, with
// no tree in memory.  The text is byte-identical to nlohmann::json::dump(indent)
// of the same document (the plan's JSON output was that dump; programs and
// tests compare it byte for byte).  In model/ so that every area may stream
// its documents (plan/schedule_json.h WriteSchedule); model/json_tree_writer.h
// offers the same writing calls building a nlohmann value.
//
// Contract:
//  - Objects and arrays print as nlohmann prints them: "{}" / "[]" when empty,
//    else one member per line at `indent` spaces per level, "key": value.
//    With indent kCompact, as dump() with no argument prints them: no
//    whitespace outside strings ({"key":value,...}).
//  - REQUIRES: the keys of one object are written in increasing byte order
//    and without duplicates (nlohmann::json keeps them in a std::map, so its
//    dump is sorted); a key out of order aborts (a programming error).
//  - REQUIRES: Key() before every value inside an object, no Key() inside an
//    array, every Begin matched by its End; Finish() checks all are closed.
//  - Strings are escaped as nlohmann escapes them (ensure_ascii off: \" \\ \b
//    \f \n \r \t, other control bytes as \u00xx, UTF-8 kept).  Invalid UTF-8
//    (from a history line or a label) becomes U+FFFD, as dump() with
//    error_handler_t::replace writes it: never an exception.
//  - Doubles print as nlohmann prints them (shortest round trip, "1.0" for
//    whole values, null for NaN and infinities).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kubeon::model {

class JsonWriter {
 public:
  // The indent of dump() with no argument: one line, no whitespace.
  static constexpr int kCompact = -1;
  // Appends to *out, which must outlive the writer.  REQUIRES: indent >= 0
  // or indent == kCompact.
  explicit JsonWriter(std::string* out, int indent = 2) : out_(out), indent_(indent) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);

  void String(std::string_view s);
  void Int(int64_t v);
  void UInt(uint64_t v);
  void Double(double v);
  void Bool(bool v);
  void Null();
  // A whole nlohmann value (for small subtrees that exist as JSON anyway).
  void Value(const nlohmann::json& j);
  // A value already printed by nlohmann::json::dump() with its default
  // arguments (compact: no whitespace outside strings, keys sorted, numbers
  // and escapes as dump prints them), re-indented as this writer prints it:
  // the text equals Value(nlohmann::json::parse(dumped)) without the parse
  // and the tree (the plan's workload patches).  Strings are copied as they
  // are.  REQUIRES: `dumped` is such a text (anything else gives unspecified
  // text; never reads out of bounds).
  void CompactValue(std::string_view dumped);

  // Key(k) then the value.
  void Field(std::string_view k, std::string_view v) { Key(k), String(v); }
  void Field(std::string_view k, const char* v) { Key(k), String(v); }
  void Field(std::string_view k, const std::string& v) { Key(k), String(v); }
  void Field(std::string_view k, int v) { Key(k), Int(v); }
  void Field(std::string_view k, int64_t v) { Key(k), Int(v); }
  void Field(std::string_view k, uint64_t v) { Key(k), UInt(v); }
  void Field(std::string_view k, double v) { Key(k), Double(v); }
  void Field(std::string_view k, bool v) { Key(k), Bool(v); }
  // An array of strings.
  void Field(std::string_view k, const std::vector<std::string>& v);

  // True when every Begin has been matched by its End (the document is complete).
  bool Complete() const { return stack_.empty() && wrote_root_; }

 private:
  struct Frame {
    bool object = false;
    size_t members = 0;
    std::string last_key;
  };
  // Separator and indentation before a value (array element or top level).
  void BeforeValue();
  void Newline(size_t level);
  void Close(char bracket, bool object);
  // A quoted, escaped string, with no separator.
  void AppendString(std::string_view s);

  std::string* out_;
  int indent_;
  std::vector<Frame> stack_;
  bool after_key_ = false;
  bool wrote_root_ = false;
};

}  // namespace kubeon::model
