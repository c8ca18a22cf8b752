// See cel.h.
#include "cel.h"

#include <algorithm>
#include <vector>

namespace kubeon::kubesim {

struct CelNode {
  enum class Kind { kLiteral, kList, kIdent, kSelect, kIndex, kHas, kSize, kNot, kNeg, kBinary, kCond };
  Kind kind = Kind::kLiteral;
  json value;        // kLiteral
  std::string name;  // kIdent, kSelect (field), kBinary (operator)
  std::vector<std::shared_ptr<const CelNode>> kids;
};

namespace {

using NodePtr = std::shared_ptr<const CelNode>;

const std::vector<std::string> kVariables = {"object", "oldObject", "request"};

ApiError Unsupported(const std::string& why) { return ApiError::BadRequest("unsupported CEL: " + why); }
ApiError EvalError(const std::string& why) { return ApiError::BadRequest(why); }

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  Outcome<NodePtr> Parse() {
    auto e = Expr();
    if (!e.ok()) return e;
    Skip();
    if (pos_ != s_.size()) return Unsupported("unexpected \"" + s_.substr(pos_) + "\"");
    return e;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(const std::string& tok) {
    Skip();
    if (s_.compare(pos_, tok.size(), tok) != 0) return false;
    // "in" is a keyword: not a prefix of an identifier.
    if (std::isalpha(static_cast<unsigned char>(tok[0])) && pos_ + tok.size() < s_.size() &&
        (std::isalnum(static_cast<unsigned char>(s_[pos_ + tok.size()])) || s_[pos_ + tok.size()] == '_')) {
      return false;
    }
    pos_ += tok.size();
    return true;
  }
  static NodePtr Make(CelNode::Kind k, std::string name, std::vector<NodePtr> kids, json value = nullptr) {
    auto n = std::make_shared<CelNode>();
    n->kind = k;
    n->name = std::move(name);
    n->kids = std::move(kids);
    n->value = std::move(value);
    return n;
  }

  Outcome<NodePtr> Expr() {
    auto c = Or();
    if (!c.ok()) return c;
    if (!Eat("?")) return c;
    auto a = Expr();
    if (!a.ok()) return a;
    if (!Eat(":")) return Unsupported("expected ':'");
    auto b = Expr();
    if (!b.ok()) return b;
    return Make(CelNode::Kind::kCond, "", {c.value(), a.value(), b.value()});
  }
  Outcome<NodePtr> Or() {
    auto l = And();
    while (l.ok() && Eat("||")) {
      auto r = And();
      if (!r.ok()) return r;
      l = Make(CelNode::Kind::kBinary, "||", {l.value(), r.value()});
    }
    return l;
  }
  Outcome<NodePtr> And() {
    auto l = Rel();
    while (l.ok() && Eat("&&")) {
      auto r = Rel();
      if (!r.ok()) return r;
      l = Make(CelNode::Kind::kBinary, "&&", {l.value(), r.value()});
    }
    return l;
  }
  Outcome<NodePtr> Rel() {
    auto l = Unary();
    if (!l.ok()) return l;
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">", "in"}) {
      if (Eat(op)) {
        auto r = Unary();
        if (!r.ok()) return r;
        return Make(CelNode::Kind::kBinary, op, {l.value(), r.value()});
      }
    }
    return l;
  }
  Outcome<NodePtr> Unary() {
    if (Eat("!")) {
      auto e = Unary();
      if (!e.ok()) return e;
      return Make(CelNode::Kind::kNot, "", {e.value()});
    }
    if (Eat("-")) {
      auto e = Unary();
      if (!e.ok()) return e;
      return Make(CelNode::Kind::kNeg, "", {e.value()});
    }
    return Member();
  }
  Outcome<NodePtr> Member() {
    auto e = Primary();
    while (e.ok()) {
      if (Eat(".")) {
        std::string id = Ident();
        if (id.empty()) return Unsupported("expected a field name after '.'");
        Skip();
        if (pos_ < s_.size() && s_[pos_] == '(') return Unsupported("method ." + id + "()");
        e = Make(CelNode::Kind::kSelect, id, {e.value()});
      } else if (Eat("[")) {
        auto i = Expr();
        if (!i.ok()) return i;
        if (!Eat("]")) return Unsupported("expected ']'");
        e = Make(CelNode::Kind::kIndex, "", {e.value(), i.value()});
      } else {
        break;
      }
    }
    return e;
  }
  std::string Ident() {
    Skip();
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (start == pos_ || std::isdigit(static_cast<unsigned char>(s_[start]))) {
      pos_ = start;
      return "";
    }
    return s_.substr(start, pos_ - start);
  }
  Outcome<NodePtr> Primary() {
    Skip();
    if (pos_ >= s_.size()) return Unsupported("unexpected end of expression");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto e = Expr();
      if (!e.ok()) return e;
      if (!Eat(")")) return Unsupported("expected ')'");
      return e;
    }
    if (c == '[') {
      ++pos_;
      std::vector<NodePtr> items;
      if (!Eat("]")) {
        do {
          auto e = Expr();
          if (!e.ok()) return e;
          items.push_back(e.value());
        } while (Eat(","));
        if (!Eat("]")) return Unsupported("expected ']'");
      }
      return Make(CelNode::Kind::kList, "", items);
    }
    if (c == '\'' || c == '"') {
      ++pos_;
      std::string out;
      while (pos_ < s_.size() && s_[pos_] != c) {
        if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
        out.push_back(s_[pos_++]);
      }
      if (pos_ >= s_.size()) return Unsupported("unterminated string");
      ++pos_;
      return Make(CelNode::Kind::kLiteral, "", {}, out);
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.')) ++pos_;
      std::string num = s_.substr(start, pos_ - start);
      if (num.find('.') != std::string::npos) return Make(CelNode::Kind::kLiteral, "", {}, std::stod(num));
      return Make(CelNode::Kind::kLiteral, "", {}, static_cast<int64_t>(std::stoll(num)));
    }
    std::string id = Ident();
    if (id.empty()) return Unsupported("unexpected \"" + s_.substr(pos_, 1) + "\"");
    if (id == "true" || id == "false") return Make(CelNode::Kind::kLiteral, "", {}, id == "true");
    if (id == "null") return Make(CelNode::Kind::kLiteral, "", {}, nullptr);
    Skip();
    if (pos_ < s_.size() && s_[pos_] == '(') {
      if (id != "has" && id != "size") return Unsupported("function " + id + "()");
      ++pos_;
      auto arg = Expr();
      if (!arg.ok()) return arg;
      if (!Eat(")")) return Unsupported(id + "() takes one argument");
      if (id == "has" && arg.value()->kind != CelNode::Kind::kSelect) {
        return Unsupported("has() needs a field selection");
      }
      return Make(id == "has" ? CelNode::Kind::kHas : CelNode::Kind::kSize, "", {arg.value()});
    }
    if (std::find(kVariables.begin(), kVariables.end(), id) == kVariables.end()) {
      return Unsupported("variable " + id);
    }
    return Make(CelNode::Kind::kIdent, id, {});
  }

  const std::string& s_;
  size_t pos_ = 0;
};

std::string TypeName(const json& v) {
  if (v.is_null()) return "null_type";
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "int";
  if (v.is_number()) return "double";
  if (v.is_string()) return "string";
  if (v.is_array()) return "list";
  return "map";
}

Outcome<json> Eval(const CelNode& n, const json& vars);

Outcome<bool> Bool(const CelNode& n, const json& vars) {
  auto v = Eval(n, vars);
  if (!v.ok()) return v.error();
  if (!v.value().is_boolean()) return EvalError("no matching overload: expected bool, got " + TypeName(v.value()));
  return v.value().get<bool>();
}

Outcome<json> Binary(const std::string& op, const json& a, const json& b) {
  if (op == "==" || op == "!=") {
    bool eq = (a.is_number() && b.is_number()) ? a.get<double>() == b.get<double>() : a == b;
    return json(op == "==" ? eq : !eq);
  }
  if (op == "in") {
    if (b.is_object()) {
      if (!a.is_string()) return EvalError("no matching overload for 'in' on map with " + TypeName(a) + " key");
      return json(b.contains(a.get<std::string>()));
    }
    if (b.is_array()) {
      for (const auto& e : b) {
        if (e == a) return json(true);
      }
      return json(false);
    }
    return EvalError("no matching overload for 'in' on " + TypeName(b));
  }
  if (a.is_number() && b.is_number()) {
    double x = a.get<double>(), y = b.get<double>();
    return json(op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y);
  }
  if (a.is_string() && b.is_string()) {
    const auto& x = a.get_ref<const std::string&>();
    const auto& y = b.get_ref<const std::string&>();
    return json(op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y);
  }
  return EvalError("no matching overload for '" + op + "' on " + TypeName(a) + " and " + TypeName(b));
}

Outcome<json> Eval(const CelNode& n, const json& vars) {
  switch (n.kind) {
    case CelNode::Kind::kLiteral:
      return n.value;
    case CelNode::Kind::kList: {
      json out = json::array();
      for (const auto& k : n.kids) {
        auto v = Eval(*k, vars);
        if (!v.ok()) return v;
        out.push_back(std::move(v).value());
      }
      return out;
    }
    case CelNode::Kind::kIdent: {
      auto it = vars.find(n.name);
      if (it == vars.end()) return EvalError("undeclared reference to '" + n.name + "'");
      return *it;
    }
    case CelNode::Kind::kSelect: {
      auto base = Eval(*n.kids[0], vars);
      if (!base.ok()) return base;
      if (!base.value().is_object()) return EvalError("no such key: " + n.name);
      auto it = base.value().find(n.name);
      if (it == base.value().end()) return EvalError("no such key: " + n.name);
      return *it;
    }
    case CelNode::Kind::kIndex: {
      auto base = Eval(*n.kids[0], vars);
      if (!base.ok()) return base;
      auto key = Eval(*n.kids[1], vars);
      if (!key.ok()) return key;
      const json& b = base.value();
      const json& k = key.value();
      if (b.is_object() && k.is_string()) {
        auto it = b.find(k.get<std::string>());
        if (it == b.end()) return EvalError("no such key: " + k.get<std::string>());
        return *it;
      }
      if (b.is_array() && k.is_number_integer()) {
        int64_t i = k.get<int64_t>();
        if (i < 0 || i >= static_cast<int64_t>(b.size())) return EvalError("index out of bounds: " + std::to_string(i));
        return b[static_cast<size_t>(i)];
      }
      return EvalError("no matching overload for index on " + TypeName(b) + " with " + TypeName(k));
    }
    case CelNode::Kind::kHas: {
      const CelNode& sel = *n.kids[0];
      auto base = Eval(*sel.kids[0], vars);
      if (!base.ok()) return base;
      if (!base.value().is_object()) return EvalError("invalid type for field selection: " + TypeName(base.value()));
      return json(base.value().contains(sel.name));
    }
    case CelNode::Kind::kSize: {
      auto v = Eval(*n.kids[0], vars);
      if (!v.ok()) return v;
      if (v.value().is_string()) return json(static_cast<int64_t>(v.value().get<std::string>().size()));
      if (v.value().is_array() || v.value().is_object()) return json(static_cast<int64_t>(v.value().size()));
      return EvalError("no matching overload for size on " + TypeName(v.value()));
    }
    case CelNode::Kind::kNot: {
      auto b = Bool(*n.kids[0], vars);
      if (!b.ok()) return b.error();
      return json(!b.value());
    }
    case CelNode::Kind::kNeg: {
      auto v = Eval(*n.kids[0], vars);
      if (!v.ok()) return v;
      if (v.value().is_number_integer()) return json(-v.value().get<int64_t>());
      if (v.value().is_number()) return json(-v.value().get<double>());
      return EvalError("no matching overload for '-' on " + TypeName(v.value()));
    }
    case CelNode::Kind::kCond: {
      auto c = Bool(*n.kids[0], vars);
      if (!c.ok()) return c.error();
      return Eval(*n.kids[c.value() ? 1 : 2], vars);
    }
    case CelNode::Kind::kBinary: {
      if (n.name == "&&" || n.name == "||") {
        const bool decides = n.name == "||";  // the value that decides alone
        auto l = Bool(*n.kids[0], vars);
        if (l.ok() && l.value() == decides) return json(decides);
        auto r = Bool(*n.kids[1], vars);
        if (r.ok() && r.value() == decides) return json(decides);
        if (!l.ok()) return l.error();
        if (!r.ok()) return r.error();
        return json(!decides);
      }
      auto l = Eval(*n.kids[0], vars);
      if (!l.ok()) return l;
      auto r = Eval(*n.kids[1], vars);
      if (!r.ok()) return r;
      return Binary(n.name, l.value(), r.value());
    }
  }
  return EvalError("bad expression");
}

}  // namespace

Outcome<CelProgram> CelProgram::Compile(const std::string& expression) {
  Parser p(expression);
  auto root = p.Parse();
  if (!root.ok()) return root.error();
  CelProgram prog;
  prog.root_ = root.value();
  return prog;
}

Outcome<json> CelProgram::Evaluate(const json& vars) const { return Eval(*root_, vars); }

}  // namespace kubeon::kubesim
