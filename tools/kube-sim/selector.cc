// See selector.h.  The parser is a small lexer + recursive descent that
// follows k8s.io/apimachinery/pkg/labels/selector.go.
#include "selector.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "meta.h"

namespace kubeon::kubesim {

namespace {

enum class Tok { kIdent, kComma, kOpen, kClose, kEq, kDoubleEq, kNotEq, kNot, kGt, kLt, kIn,
                 kNotIn, kEnd };

struct Token {
  Tok kind;
  std::string text;
};

bool IsSpecial(char c) {
  return c == ',' || c == '(' || c == ')' || c == '=' || c == '!' || c == '<' || c == '>' ||
         std::isspace(static_cast<unsigned char>(c));
}

std::vector<Token> Lex(const std::string& s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == ',') {
      out.push_back({Tok::kComma, ","}), ++i;
    } else if (c == '(') {
      out.push_back({Tok::kOpen, "("}), ++i;
    } else if (c == ')') {
      out.push_back({Tok::kClose, ")"}), ++i;
    } else if (c == '=') {
      if (i + 1 < s.size() && s[i + 1] == '=') {
        out.push_back({Tok::kDoubleEq, "=="}), i += 2;
      } else {
        out.push_back({Tok::kEq, "="}), ++i;
      }
    } else if (c == '!') {
      if (i + 1 < s.size() && s[i + 1] == '=') {
        out.push_back({Tok::kNotEq, "!="}), i += 2;
      } else {
        out.push_back({Tok::kNot, "!"}), ++i;
      }
    } else if (c == '>') {
      out.push_back({Tok::kGt, ">"}), ++i;
    } else if (c == '<') {
      out.push_back({Tok::kLt, "<"}), ++i;
    } else {
      size_t j = i;
      while (j < s.size() && !IsSpecial(s[j])) ++j;
      std::string word = s.substr(i, j - i);
      Tok k = Tok::kIdent;
      if (word == "in") k = Tok::kIn;
      if (word == "notin") k = Tok::kNotIn;
      out.push_back({k, word});
      i = j;
    }
  }
  out.push_back({Tok::kEnd, ""});
  return out;
}

bool ValidLabelValue(const std::string& v) {
  if (v.size() > 63) return false;
  for (char c : v) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return v.empty() || (std::isalnum(static_cast<unsigned char>(v.front())) &&
                       std::isalnum(static_cast<unsigned char>(v.back())));
}

bool ValidLabelKey(const std::string& k) {
  if (k.empty() || k.size() > 316) return false;
  size_t slash = k.find('/');
  std::string name = slash == std::string::npos ? k : k.substr(slash + 1);
  if (name.empty() || !ValidLabelValue(name)) return false;
  if (slash != std::string::npos) {
    std::string prefix = k.substr(0, slash);
    if (prefix.empty() || prefix.size() > 253) return false;
    for (char c : prefix) {
      if (!std::islower(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) &&
          c != '-' && c != '.') {
        return false;
      }
    }
  }
  return true;
}

ApiError ParseError(const std::string& text, const std::string& why) {
  return ApiError::BadRequest("unable to parse requirement: " + why + " (in selector \"" +
                              text + "\")");
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text), toks_(Lex(text)) {}

  Outcome<std::vector<Requirement>> Run() {
    std::vector<Requirement> out;
    if (Peek().kind == Tok::kEnd) return out;
    for (;;) {
      auto r = ParseRequirement();
      if (!r.ok()) return r.error();
      out.push_back(std::move(r).value());
      if (Peek().kind == Tok::kEnd) return out;
      if (Next().kind != Tok::kComma) return ParseError(text_, "expected ','");
    }
  }

 private:
  const Token& Peek() const { return toks_[pos_]; }
  const Token& Next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }

  Outcome<Requirement> ParseRequirement() {
    Requirement r;
    if (Peek().kind == Tok::kNot) {
      Next();
      if (Peek().kind != Tok::kIdent) return ParseError(text_, "expected a key after '!'");
      r.key = Next().text;
      r.op = SelectorOp::kDoesNotExist;
      return CheckKey(r);
    }
    if (Peek().kind != Tok::kIdent) return ParseError(text_, "expected a key");
    r.key = Next().text;
    switch (Peek().kind) {
      case Tok::kComma:
      case Tok::kEnd:
        r.op = SelectorOp::kExists;
        return CheckKey(r);
      case Tok::kEq:
      case Tok::kDoubleEq:
      case Tok::kNotEq: {
        r.op = Next().kind == Tok::kNotEq ? SelectorOp::kNotEquals : SelectorOp::kEquals;
        std::string v;
        if (Peek().kind == Tok::kIdent) v = Next().text;
        else if (Peek().kind != Tok::kComma && Peek().kind != Tok::kEnd)
          return ParseError(text_, "expected a value for key \"" + r.key + "\"");
        if (!ValidLabelValue(v)) return ParseError(text_, "invalid label value \"" + v + "\"");
        r.values.push_back(v);
        return CheckKey(r);
      }
      case Tok::kGt:
      case Tok::kLt: {
        r.op = Next().kind == Tok::kGt ? SelectorOp::kGt : SelectorOp::kLt;
        if (Peek().kind != Tok::kIdent) return ParseError(text_, "expected an integer");
        std::string v = Next().text;
        char* end = nullptr;
        std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0') return ParseError(text_, "expected an integer, got \"" + v + "\"");
        r.values.push_back(v);
        return CheckKey(r);
      }
      case Tok::kIn:
      case Tok::kNotIn:
        r.op = Next().kind == Tok::kIn ? SelectorOp::kIn : SelectorOp::kNotIn;
        return ParseSet(r);
      default:
        return ParseError(text_, "unexpected \"" + Peek().text + "\" after key \"" + r.key + "\"");
    }
  }

  Outcome<Requirement> ParseSet(Requirement r) {
    if (Next().kind != Tok::kOpen) return ParseError(text_, "expected '(' after in/notin");
    for (;;) {
      std::string v;
      if (Peek().kind == Tok::kIdent) v = Next().text;
      if (!ValidLabelValue(v)) return ParseError(text_, "invalid label value \"" + v + "\"");
      r.values.push_back(v);
      const Token& t = Next();
      if (t.kind == Tok::kClose) break;
      if (t.kind != Tok::kComma) return ParseError(text_, "expected ',' or ')' in value set");
    }
    return CheckKey(r);
  }

  Outcome<Requirement> CheckKey(Requirement r) {
    if (!ValidLabelKey(r.key)) return ParseError(text_, "invalid label key \"" + r.key + "\"");
    return r;
  }

  std::string text_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
};

bool MatchRequirement(const Requirement& r, const json& labels) {
  const json* v = nullptr;
  if (labels.is_object()) {
    auto it = labels.find(r.key);
    if (it != labels.end() && it->is_string()) v = &*it;
  }
  auto in_values = [&](const std::string& s) {
    return std::find(r.values.begin(), r.values.end(), s) != r.values.end();
  };
  switch (r.op) {
    case SelectorOp::kEquals:
    case SelectorOp::kIn:
      return v != nullptr && in_values(v->get<std::string>());
    case SelectorOp::kNotEquals:
    case SelectorOp::kNotIn:
      return v == nullptr || !in_values(v->get<std::string>());
    case SelectorOp::kExists:
      return v != nullptr;
    case SelectorOp::kDoesNotExist:
      return v == nullptr;
    case SelectorOp::kGt:
    case SelectorOp::kLt: {
      if (v == nullptr || r.values.size() != 1) return false;
      std::string s = v->get<std::string>();
      char* end = nullptr;
      long long have = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0') return false;
      long long want = std::strtoll(r.values[0].c_str(), nullptr, 10);
      return r.op == SelectorOp::kGt ? have > want : have < want;
    }
  }
  return false;
}

Outcome<SelectorOp> OpFromName(const std::string& name) {
  if (name == "In") return SelectorOp::kIn;
  if (name == "NotIn") return SelectorOp::kNotIn;
  if (name == "Exists") return SelectorOp::kExists;
  if (name == "DoesNotExist") return SelectorOp::kDoesNotExist;
  if (name == "Gt") return SelectorOp::kGt;
  if (name == "Lt") return SelectorOp::kLt;
  return ApiError::BadRequest("\"" + name + "\" is not a valid label selector operator");
}

}  // namespace

Outcome<LabelSelector> LabelSelector::Parse(const std::string& text) {
  auto reqs = Parser(text).Run();
  if (!reqs.ok()) return reqs.error();
  LabelSelector s;
  s.reqs_ = std::move(reqs).value();
  return s;
}

Outcome<LabelSelector> LabelSelector::FromJson(const json& selector) {
  LabelSelector s;
  if (!selector.is_object()) return ApiError::BadRequest("label selector must be an object");
  if (auto it = selector.find("matchLabels"); it != selector.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) return ApiError::BadRequest("matchLabels." + k + " must be a string");
      s.reqs_.push_back({k, SelectorOp::kEquals, {v.get<std::string>()}});
    }
  }
  if (auto it = selector.find("matchExpressions"); it != selector.end() && it->is_array()) {
    for (const auto& e : *it) {
      if (!e.is_object()) return ApiError::BadRequest("matchExpressions entries must be objects");
      auto op = OpFromName(e.value("operator", ""));
      if (!op.ok()) return op.error();
      Requirement r{e.value("key", ""), op.value(), {}};
      if (auto vs = e.find("values"); vs != e.end() && vs->is_array()) {
        for (const auto& v : *vs) {
          if (v.is_string()) r.values.push_back(v.get<std::string>());
        }
      }
      bool needs_values = r.op == SelectorOp::kIn || r.op == SelectorOp::kNotIn;
      if (needs_values && r.values.empty()) {
        return ApiError::BadRequest("matchExpressions key \"" + r.key +
                                    "\": values must be non-empty for In/NotIn");
      }
      s.reqs_.push_back(std::move(r));
    }
  }
  return s;
}

bool LabelSelector::Matches(const json& labels) const {
  for (const auto& r : reqs_) {
    if (!MatchRequirement(r, labels)) return false;
  }
  return true;
}

std::optional<std::string> FieldValue(const std::string& store_id, const json& obj,
                                      const std::string& field) {
  if (field == "metadata.name") return Name(obj);
  if (field == "metadata.namespace") return Namespace(obj);
  if (store_id == "pods") {
    if (field == "spec.nodeName") return Str(obj, {"spec", "nodeName"});
    if (field == "status.phase") return Str(obj, {"status", "phase"});
    if (field == "spec.restartPolicy") return Str(obj, {"spec", "restartPolicy"});
    if (field == "spec.schedulerName") return Str(obj, {"spec", "schedulerName"});
    if (field == "spec.serviceAccountName") return Str(obj, {"spec", "serviceAccountName"});
    if (field == "status.podIP") return Str(obj, {"status", "podIP"});
    if (field == "status.nominatedNodeName") return Str(obj, {"status", "nominatedNodeName"});
  }
  if (store_id == "nodes" && field == "spec.unschedulable") {
    const json* u = Find(obj, {"spec", "unschedulable"});
    return u != nullptr && u->is_boolean() && u->get<bool>() ? "true" : "false";
  }
  if (store_id == "events") {
    static const std::set<std::string> kInvolved = {"kind", "namespace", "name", "uid",
                                                    "apiVersion", "resourceVersion", "fieldPath"};
    const std::string prefix = "involvedObject.";
    if (field.rfind(prefix, 0) == 0 && kInvolved.count(field.substr(prefix.size()))) {
      const json* v = Find(obj, {"involvedObject"});
      std::string key = field.substr(prefix.size());
      return v != nullptr && v->is_object() && v->contains(key) && (*v)[key].is_string()
                 ? (*v)[key].get<std::string>()
                 : std::string();
    }
    if (field == "reason") return Str(obj, {"reason"});
    if (field == "type") return Str(obj, {"type"});
    if (field == "source") return Str(obj, {"source", "component"});
  }
  if (store_id == "namespaces" && field == "status.phase") return Str(obj, {"status", "phase"});
  if (store_id == "apps/replicasets" && field == "status.replicas") {
    return std::to_string(Int(obj, {"status", "replicas"}, 0));
  }
  return std::nullopt;
}

Outcome<FieldSelector> FieldSelector::Parse(const std::string& text,
                                            const std::string& store_id) {
  FieldSelector s;
  s.store_id_ = store_id;
  // Split on unescaped commas, then each term on its first unescaped operator.
  std::vector<std::string> terms;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      cur.push_back(text[i]);
      cur.push_back(text[++i]);
    } else if (text[i] == ',') {
      terms.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(text[i]);
    }
  }
  if (!cur.empty() || !terms.empty()) terms.push_back(cur);
  for (const auto& term : terms) {
    size_t i = 0;
    std::string field;
    while (i < term.size() && term[i] != '=' && term[i] != '!') field.push_back(term[i++]);
    Requirement r;
    if (term.compare(i, 2, "!=") == 0) {
      r.op = SelectorOp::kNotEquals, i += 2;
    } else if (term.compare(i, 2, "==") == 0) {
      r.op = SelectorOp::kEquals, i += 2;
    } else if (term.compare(i, 1, "=") == 0) {
      r.op = SelectorOp::kEquals, i += 1;
    } else {
      return ApiError::BadRequest("invalid field selector: '" + term +
                                  "' is not in the form field=value");
    }
    std::string value;
    for (; i < term.size(); ++i) {
      if (term[i] == '\\' && i + 1 < term.size()) ++i;
      value.push_back(term[i]);
    }
    while (!field.empty() && std::isspace(static_cast<unsigned char>(field.back()))) field.pop_back();
    if (!FieldValue(store_id, json::object(), field).has_value()) {
      return ApiError::BadRequest("field label not supported: " + field);
    }
    r.key = field;
    r.values.push_back(value);
    s.reqs_.push_back(std::move(r));
  }
  return s;
}

bool FieldSelector::Matches(const json& obj) const {
  for (const auto& r : reqs_) {
    std::string have = FieldValue(store_id_, obj, r.key).value_or("");
    bool eq = have == r.values[0];
    if ((r.op == SelectorOp::kEquals) != eq) return false;
  }
  return true;
}

std::optional<std::string> FieldSelector::RequiredValue(const std::string& field) const {
  for (const auto& r : reqs_) {
    if (r.key == field && r.op == SelectorOp::kEquals) return r.values[0];
  }
  return std::nullopt;
}

bool MatchesNodeSelectorTerm(const json& term, const json& node) {
  bool any = false;
  if (auto it = term.find("matchExpressions"); it != term.end() && it->is_array()) {
    for (const auto& e : *it) {
      auto op = OpFromName(e.value("operator", ""));
      if (!op.ok()) return false;
      Requirement r{e.value("key", ""), op.value(), {}};
      if (auto vs = e.find("values"); vs != e.end() && vs->is_array()) {
        for (const auto& v : *vs) {
          if (v.is_string()) r.values.push_back(v.get<std::string>());
        }
      }
      if (!MatchRequirement(r, Labels(node))) return false;
      any = true;
    }
  }
  if (auto it = term.find("matchFields"); it != term.end() && it->is_array()) {
    json fields = {{"metadata.name", Name(node)}};
    for (const auto& e : *it) {
      auto op = OpFromName(e.value("operator", ""));
      if (!op.ok()) return false;
      Requirement r{e.value("key", ""), op.value(), {}};
      if (auto vs = e.find("values"); vs != e.end() && vs->is_array()) {
        for (const auto& v : *vs) {
          if (v.is_string()) r.values.push_back(v.get<std::string>());
        }
      }
      if (!MatchRequirement(r, fields)) return false;
      any = true;
    }
  }
  return any;
}

}  // namespace kubeon::kubesim
