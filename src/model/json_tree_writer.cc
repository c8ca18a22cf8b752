// See json_tree_writer.h.
#include "model/json_tree_writer.h"

#include <cstdlib>
#include <utility>

namespace kubeon::model {

void JsonTreeWriter::Key(std::string_view key) {
  if (stack_.empty() || !stack_.back()->is_object() || after_key_) std::abort();  // REQUIRES: inside an object
  key_.assign(key);
  after_key_ = true;
}

nlohmann::json* JsonTreeWriter::Put(nlohmann::json v) {
  if (stack_.empty()) {
    if (wrote_root_) std::abort();  // REQUIRES: one top-level value
    wrote_root_ = true;
    root_ = std::move(v);
    return &root_;
  }
  nlohmann::json& parent = *stack_.back();
  if (parent.is_object()) {
    if (!after_key_) std::abort();  // REQUIRES: Key() before a value in an object
    after_key_ = false;
    nlohmann::json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }
  parent.push_back(std::move(v));
  return &parent.back();
}

void JsonTreeWriter::Open(nlohmann::json empty) { stack_.push_back(Put(std::move(empty))); }

void JsonTreeWriter::Close(bool object) {
  if (stack_.empty() || stack_.back()->is_object() != object || after_key_) std::abort();  // REQUIRES: matched
  stack_.pop_back();
}

nlohmann::json JsonTreeWriter::Take() {
  if (!Complete()) std::abort();  // REQUIRES: a finished value
  wrote_root_ = false;
  return std::move(root_);
}

}  // namespace kubeon::model
