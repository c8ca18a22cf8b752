// ProjectedCapacity: how far to grow a vector that collects the items of one
// kind from a byte stream whose length is known (the snapshot reader's nodes,
// pods and controllers, read from a file).
//
// Why: std::vector doubles.  Each doubling moves every element into fresh
// memory, which the kernel zeroes on first touch; for the ~600-byte pods and
// controllers of a 150 MB List the moves and the zeroing of the outgrown
// blocks were ~15 % of the parse (measured 2026-12-06, bench/HISTORY.md (g)).
// Capacity that is reserved but never written costs address space only, so
// growing once to the projected final count moves each element about once.
//
// Contract:
//   * The projection assumes the kind's density (items per byte) seen so far
//     holds for the rest of the stream: count items spanning [first_start,
//     end) project to count * (total - first_start) / (end - first_start).
//   * The result is at least size + size / 2 + 1 (amortised O(1) appends,
//     however wrong the projection), at most 16 * size + 16 (a dense start
//     does not reserve for an implausible count at once), and
//     projection + 1/16 of slack in between.
//   * total == 0 (the length is unknown: a pipe) or an empty span: 2 * size
//     (at least 1), std::vector's own growth.
#pragma once

#include <cstddef>

namespace kubeon::model {

// Where the stream stands when the vector is full.
struct StreamSpan {
  size_t first_start = 0;  // byte offset where the kind's first item starts
  size_t end = 0;          // byte offset where the item being added ends
  size_t total = 0;        // the stream's length in bytes; 0: unknown
};

// The capacity to reserve for a full vector of `size` elements before the
// (size + 1)-th is added.
// REQUIRES: first_start <= end <= total when total > 0.
size_t ProjectedCapacity(size_t size, const StreamSpan& span);

}  // namespace kubeon::model
