// JsonTreeWriter: the writing calls of JsonWriter (model/json_writer.h), but
// building a nlohmann::json value instead of text.  A document written once as
// a template over the writer type (`template <typename W> void Write(W&, ...)`)
// thus has one definition of its schema for both forms: streamed text where
// it is large (the plan's JSON output), a tree where callers want a value
// (plan/schedule_json.h StepToJson, the audit log, the reviewer API).
//
// Contract:
//  - Each call adds exactly what `j["key"] = value` or `j.push_back(value)`
//    adds to a tree built by hand: Int -> number_integer, UInt ->
//    number_unsigned, Double -> number_float (NaN kept: dump() prints null as
//    JsonWriter does), strings kept byte for byte (no UTF-8 check; dump()
//    with error_handler_t::replace prints what JsonWriter prints).
//  - Field(key, v) is Key(key) then nlohmann::json(v): a std::vector<string>
//    becomes an array, a std::map<string, ...> an object.
//  - REQUIRES: the same call order as JsonWriter's: Key() before every value
//    inside an object and never inside an array, every Begin matched by its
//    End, one top-level value; a violation aborts (a programming error).
//    Keys need not be sorted here (the tree sorts them), but a writer shared
//    with JsonWriter writes them sorted anyway.
//  - Take() moves the finished value out; REQUIRES: Complete().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kubeon::model {

class JsonTreeWriter {
 public:
  void BeginObject() { Open(nlohmann::json::object()); }
  void EndObject() { Close(true); }
  void BeginArray() { Open(nlohmann::json::array()); }
  void EndArray() { Close(false); }
  void Key(std::string_view key);

  void String(std::string_view s) { Put(nlohmann::json(std::string(s))); }
  void Int(int64_t v) { Put(nlohmann::json(v)); }
  void UInt(uint64_t v) { Put(nlohmann::json(v)); }
  void Double(double v) { Put(nlohmann::json(v)); }
  void Bool(bool v) { Put(nlohmann::json(v)); }
  void Null() { Put(nlohmann::json(nullptr)); }
  void Value(const nlohmann::json& j) { Put(j); }

  // Key(k) then nlohmann::json(v).
  template <typename T>
  void Field(std::string_view k, const T& v) {
    Key(k);
    Put(nlohmann::json(v));
  }

  // True when every Begin has been matched by its End (the value is complete).
  bool Complete() const { return stack_.empty() && wrote_root_; }
  // The value written.  REQUIRES: Complete().
  nlohmann::json Take();

 private:
  // Adds `v` where the next value goes; returns it in its container.
  nlohmann::json* Put(nlohmann::json v);
  void Open(nlohmann::json empty);
  void Close(bool object);

  nlohmann::json root_;
  // The open objects and arrays, innermost last.  Only the innermost one
  // changes, so pointers to the outer ones (elements of their parents) stay valid.
  std::vector<nlohmann::json*> stack_;
  std::string key_;
  bool after_key_ = false;
  bool wrote_root_ = false;
};

}  // namespace kubeon::model
