// FindNestingBeyond: where a JSON text first nests arrays and objects deeper
// than a cap, found by one flat scan before the text is parsed.
//
// Every reader of outside JSON caps nesting before parsing: simdjson's
// on-demand parser checks no depth, and nlohmann::json parses, copies and
// prints nested values recursively, so a few hundred kilobytes of '[' would
// exhaust the stack.  Users: the snapshot reader (model/snapshot_json),
// Kubernetes API answers (kube/client, kube/list_page) and Prometheus answers
// (metrics/prometheus_client, metrics/memory_series).
//
// Contract:
//   * FindNestingBeyond(json, max_depth, start_depth) returns the offset of
//     the first '[' or '{' outside strings that opens nesting level
//     max_depth + 1, counting `start_depth` levels the text already sits in
//     (2 for one item of a List), or std::string_view::npos when the text
//     stays within max_depth levels.
//   * Strings are skipped with memchr, escapes honoured; an unterminated
//     string ends the scan (npos: the parser reports it).  Text that is not
//     JSON gives an unspecified offset or npos.  It validates nothing else.
//   * O(size), no allocation, no recursion.
#pragma once

#include <cstddef>
#include <string_view>

namespace kubeon::model {

size_t FindNestingBeyond(std::string_view json, size_t max_depth, size_t start_depth = 0);

}  // namespace kubeon::model
