// FirstIndex: an insert-only map from byte strings to the index they were
// first added with -- how the snapshot reader finds an object listed twice
// among a List's items (key "kind \0 namespace \0 name").
//
// Built for ~10^5 keys read once each: each key's index and bytes live in one
// arena and the table is open-addressed over 16-byte (arena offset, 32 bits
// of hash, length) slots, four to a cache line, so an insert allocates
// nothing but the arena's and the table's amortised growth, and a lookup
// touches one or two cache lines of the table and, on a hash match, one of
// the arena (a std::unordered_map of std::string spent ~0.1 us a key on
// allocation and cache misses at that size).
//
// Contract:
//   * FindOrAdd(key, index): when `key` was added before, returns the index it
//     was first added with (the table is unchanged); otherwise adds it with
//     `index` and returns std::nullopt.  Keys are compared byte by byte (a
//     hash match alone never counts), any bytes allowed, "" included.
//     REQUIRES: key.size() < 2^32 (the snapshot reader's keys are bounded by
//     its 64 MiB item cap).
//   * AddAll(other) adds other's keys with their indices; false when one of
//     them was here already (that one keeps the index it had here).
//   * Clear() forgets every key.
//   * Not thread-safe; no iteration order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kubeon::model {

class FirstIndex {
 public:
  std::optional<size_t> FindOrAdd(std::string_view key, size_t index);
  // REQUIRES: &other != this.
  bool AddAll(const FirstIndex& other);
  void Clear();
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t entry = 0;  // 1 + the offset of the key's entry in arena_; 0: unused
    uint32_t hash = 0;   // the key's hash, low 32 bits (also where it is probed from)
    uint32_t length = 0;
  };
  void Grow();

  // Size a power of two (at most 2^32: the hash's 32 bits place a key), at
  // most 1/2 full.
  std::vector<Slot> slots_;
  // Every key's entry, back to back: its index (8 bytes), then its bytes.
  std::string arena_;
  size_t size_ = 0;
};

}  // namespace kubeon::model
