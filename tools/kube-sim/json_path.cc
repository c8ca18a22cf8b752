// See json_path.h.
#include "json_path.h"

#include <optional>

namespace kubeon::kubesim {

namespace {

struct Step {
  enum Kind { kField, kIndex, kAll, kFilter } kind = kField;
  std::string field;  // kField: the name; kFilter: the compared field
  size_t index = 0;   // kIndex
  std::string value;  // kFilter: the compared value
};

std::optional<std::vector<Step>> Parse(std::string path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
  if (path.empty() || path[0] != '.') return std::nullopt;
  std::vector<Step> steps;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t j = i + 1;
      while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
      if (j == i + 1) return std::nullopt;
      steps.push_back({Step::kField, path.substr(i + 1, j - i - 1), 0, ""});
      i = j;
    } else if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string::npos) return std::nullopt;
      std::string in = path.substr(i + 1, close - i - 1);
      if (in == "*") {
        steps.push_back({Step::kAll, "", 0, ""});
      } else if (!in.empty() && in.find_first_not_of("0123456789") == std::string::npos) {
        steps.push_back({Step::kIndex, "", std::stoul(in), ""});
      } else if (in.rfind("?(@.", 0) == 0 && in.back() == ')') {
        std::string cond = in.substr(4, in.size() - 5);  // field=="value"
        size_t eq = cond.find("==");
        if (eq == std::string::npos) return std::nullopt;
        std::string value = cond.substr(eq + 2);
        if (value.size() < 2 || (value.front() != '"' && value.front() != '\'') || value.back() != value.front()) {
          return std::nullopt;
        }
        steps.push_back({Step::kFilter, cond.substr(0, eq), 0, value.substr(1, value.size() - 2)});
      } else {
        return std::nullopt;
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

}  // namespace

bool IsSimpleJsonPath(const std::string& path) { return Parse(path).has_value(); }

std::vector<const json*> EvalJsonPath(const json& obj, const std::string& path) {
  auto steps = Parse(path);
  if (!steps) return {};
  std::vector<const json*> cur = {&obj};
  for (const Step& s : *steps) {
    std::vector<const json*> next;
    for (const json* v : cur) {
      switch (s.kind) {
        case Step::kField:
          if (v->is_object() && v->contains(s.field)) next.push_back(&(*v)[s.field]);
          break;
        case Step::kIndex:
          if (v->is_array() && s.index < v->size()) next.push_back(&(*v)[s.index]);
          break;
        case Step::kAll:
        case Step::kFilter:
          if (!v->is_array()) break;
          for (const auto& e : *v) {
            if (s.kind == Step::kAll) {
              next.push_back(&e);
              continue;
            }
            if (!e.is_object() || !e.contains(s.field)) continue;
            const json& f = e[s.field];
            if ((f.is_string() && f.get<std::string>() == s.value) || (!f.is_string() && f.dump() == s.value)) {
              next.push_back(&e);
            }
          }
          break;
      }
    }
    cur = std::move(next);
  }
  return cur;
}

}  // namespace kubeon::kubesim
