// See json_writer.h.
#include "model/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kubeon::model {
namespace {

// True when every byte is ASCII (then no UTF-8 validation is needed).
bool Ascii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

void AppendEscapedAscii(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the pending unescaped run
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: {
        const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out->append(u, sizeof(u));
      }
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

}  // namespace

void JsonWriter::Newline(size_t level) {
  if (indent_ < 0) return;  // compact
  out_->push_back('\n');
  out_->append(level * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) {
    if (wrote_root_) std::abort();  // REQUIRES: one top-level value
    wrote_root_ = true;
    return;
  }
  Frame& f = stack_.back();
  if (f.object) std::abort();  // REQUIRES: Key() before a value in an object
  out_->append(f.members++ == 0 ? "" : ",");
  Newline(stack_.size());
}

void JsonWriter::Key(std::string_view key) {
  if (stack_.empty() || !stack_.back().object || after_key_) std::abort();  // REQUIRES: inside an object
  Frame& f = stack_.back();
  if (f.members > 0) {
    if (key <= std::string_view(f.last_key)) std::abort();  // REQUIRES: increasing keys
    out_->push_back(',');
  }
  f.last_key.assign(key);
  ++f.members;
  Newline(stack_.size());
  AppendString(key);
  out_->append(indent_ < 0 ? ":" : ": ");
  after_key_ = true;
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_->push_back('{');
  stack_.push_back(Frame{true, 0, {}});
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_->push_back('[');
  stack_.push_back(Frame{false, 0, {}});
}

void JsonWriter::Close(char bracket, bool object) {
  if (stack_.empty() || stack_.back().object != object || after_key_) std::abort();  // REQUIRES: matched
  const bool empty = stack_.back().members == 0;
  stack_.pop_back();
  if (!empty) Newline(stack_.size());
  out_->push_back(bracket);
}

void JsonWriter::EndObject() { Close('}', true); }
void JsonWriter::EndArray() { Close(']', false); }

void JsonWriter::AppendString(std::string_view s) {
  if (Ascii(s)) {
    AppendEscapedAscii(s, out_);
  } else {
    // Invalid UTF-8 (a history line, a label) becomes U+FFFD instead of throwing.
    out_->append(nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  AppendString(s);
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out_->append(buf, static_cast<size_t>(end - buf));
}

void JsonWriter::UInt(uint64_t v) {
  BeforeValue();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out_->append(buf, static_cast<size_t>(end - buf));
}

void JsonWriter::Double(double v) {
  BeforeValue();
  if (!std::isfinite(v)) {
    out_->append("null");  // as dump() prints NaN and infinities
    return;
  }
  // dump()'s own formatter (Grisu2, ".0" on whole numbers), without the
  // temporary json and string per number.
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof(buf), v);
  out_->append(buf, static_cast<size_t>(end - buf));
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  out_->append(v ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
}

void JsonWriter::Value(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      BeginObject();
      for (const auto& [k, v] : j.items()) {
        Key(k);
        Value(v);
      }
      EndObject();
      return;
    case nlohmann::json::value_t::array:
      BeginArray();
      for (const auto& v : j) Value(v);
      EndArray();
      return;
    case nlohmann::json::value_t::string:
      String(j.get_ref<const std::string&>());
      return;
    case nlohmann::json::value_t::number_float:
      Double(j.get<double>());
      return;
    case nlohmann::json::value_t::number_integer:
      Int(j.get<int64_t>());
      return;
    case nlohmann::json::value_t::number_unsigned:
      UInt(j.get<uint64_t>());
      return;
    default:  // numbers, booleans, null, discarded: as nlohmann prints them
      BeforeValue();
      out_->append(j.dump());
      return;
  }
}

void JsonWriter::CompactValue(std::string_view dumped) {
  BeforeValue();
  // Structure characters outside strings get their newlines and indentation;
  // strings and scalars are copied in runs.
  size_t level = stack_.size();
  size_t run = 0;  // start of the pending copied run
  for (size_t i = 0; i < dumped.size(); ++i) {
    const char c = dumped[i];
    if (c == '"') {  // skip to the closing quote, past escapes
      for (++i; i < dumped.size() && dumped[i] != '"'; ++i) {
        if (dumped[i] == '\\') ++i;
      }
      continue;
    }
    if (c != '{' && c != '[' && c != '}' && c != ']' && c != ',' && c != ':') continue;
    out_->append(dumped.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '{':
      case '[':
        out_->push_back(c);
        if (i + 1 < dumped.size() && dumped[i + 1] == (c == '{' ? '}' : ']')) {  // "{}", "[]"
          out_->push_back(dumped[++i]);
          run = i + 1;
        } else {
          Newline(++level);
        }
        break;
      case '}':
      case ']':
        Newline(level > 0 ? --level : 0);
        out_->push_back(c);
        break;
      case ',':
        out_->push_back(',');
        Newline(level);
        break;
      default:  // ':'
        out_->append(indent_ < 0 ? ":" : ": ");
    }
  }
  out_->append(dumped.data() + run, dumped.size() - std::min(run, dumped.size()));
}

void JsonWriter::Field(std::string_view k, const std::vector<std::string>& v) {
  Key(k);
  BeginArray();
  for (const auto& s : v) String(s);
  EndArray();
}

}  // namespace kubeon::model
