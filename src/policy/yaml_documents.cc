// See yaml_documents.h.
#include "policy/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "net/printable.h"

namespace kubeon::policy {
namespace {

// Remembers the first and the furthest input position of one document's events.
class ProgressHandler : public YAML::EventHandler {
 public:
  void Reset() {
    first_ = YAML::Mark::null_mark();
    furthest_ = -1;
  }
  const YAML::Mark& first() const { return first_; }
  int furthest() const { return furthest_; }

  void OnDocumentStart(const YAML::Mark& mark) override { See(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { See(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { See(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    See(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    See(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    See(mark);
  }
  void OnMapEnd() override {}

 private:
  void See(const YAML::Mark& mark) {
    if (first_.is_null()) first_ = mark;
    furthest_ = std::max(furthest_, mark.pos);
  }

  YAML::Mark first_ = YAML::Mark::null_mark();
  int furthest_ = -1;
};

Status SyntaxError(std::string_view file, const YAML::Mark& mark, const std::string& what) {
  std::string where(file);
  if (mark.line >= 0) {
    where += ":" + std::to_string(mark.line + 1) + ": YAML syntax error at column " +
             std::to_string(mark.column + 1);
  } else {
    where += ": YAML syntax error";
  }
  return Status::Error(net::EscapeControl(where + ": " + what));  // yaml-cpp quotes the offending byte raw
}

// The pass that must terminate before LoadAll may run.
Status CheckProgress(const std::string& text, std::string_view file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ProgressHandler handler;
  int previous = -1;
  while (true) {
    handler.Reset();
    if (!parser.HandleNextDocument(handler)) return Status::Ok();
    if (handler.furthest() <= previous) {
      const YAML::Mark& at = handler.first();
      std::string what = "unexpected input";
      if (at.pos >= 0 && static_cast<size_t>(at.pos) < text.size()) {
        what = "unexpected '" + std::string(1, text[static_cast<size_t>(at.pos)]) + "'";
      }
      return SyntaxError(file, at, what);
    }
    previous = handler.furthest();
  }
}

}  // namespace

Result<std::vector<YAML::Node>> LoadYamlDocuments(std::string_view text, std::string_view file) {
  const std::string copy(text);
  try {
    if (Status s = CheckProgress(copy, file); !s.ok()) return s;
    return YAML::LoadAll(copy);
  } catch (const YAML::Exception& e) {
    return SyntaxError(file, e.mark, e.msg);
  }
}

}  // namespace kubeon::policy
