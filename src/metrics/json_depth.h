// JsonNestingDepth: how deeply a JSON text nests arrays and objects, found by
// a flat scan before the text is parsed.
//
// nlohmann::json parses, copies and prints nested values recursively, so a
// server answer of a few hundred kilobytes of '[' exhausts the stack.  The
// Prometheus readers refuse any answer nested deeper than kMaxJsonDepth
// before they parse it (a Prometheus answer nests 5 levels).
//
// Contract:
//   * JsonNestingDepth(text, limit) returns the greatest number of '[' and
//     '{' open at once outside strings (string escapes honoured), scanning
//     no further than the first point where that number exceeds `limit`
//     (it then returns limit + 1).  It does not validate the JSON: the parser
//     does that afterwards.  O(size), no allocation, no recursion.
#pragma once

#include <cstddef>
#include <string_view>

namespace kubeon::metrics {

// Deepest nesting of an answer the Prometheus readers parse.
inline constexpr size_t kMaxJsonDepth = 64;

size_t JsonNestingDepth(std::string_view text, size_t limit);

}  // namespace kubeon::metrics
