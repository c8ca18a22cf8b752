// The nesting cap of Prometheus answers.
//
// nlohmann::json parses, copies and prints nested values recursively, so a
// server answer of a few hundred kilobytes of '[' would exhaust the stack.
// The Prometheus readers refuse any answer nested deeper than kMaxJsonDepth
// before they parse it (a Prometheus answer nests 5 levels), with the flat
// scan of model/json_nesting.h.
#pragma once

#include <cstddef>
#include <string_view>

#include "model/json_nesting.h"

namespace kubeon::metrics {

// Deepest nesting of an answer the Prometheus readers parse.
inline constexpr size_t kMaxJsonDepth = 64;

// True when `body` nests arrays and objects deeper than kMaxJsonDepth.
inline bool NestedBeyondCap(std::string_view body) {
  return model::FindNestingBeyond(body, kMaxJsonDepth) != std::string_view::npos;
}

}  // namespace kubeon::metrics
