// FirstIndex: an insert-only map from byte strings to the index they were
// first added with -- how the snapshot reader finds an object listed twice
// among a List's items (key "kind \0 namespace \0 name").
//
// Built for ~10^5 keys read once each: the keys' bytes live in one arena and
// the table is open-addressed over (hash, arena offset) slots, so an insert
// allocates nothing but the arena's and the table's amortised growth, and a
// lookup touches one or two cache lines (a std::unordered_map of std::string
// spent ~0.1 us a key on allocation and cache misses at that size).
//
// Contract:
//   * FindOrAdd(key, index): when `key` was added before, returns the index it
//     was first added with (the table is unchanged); otherwise adds it with
//     `index` and returns std::nullopt.  Keys are compared byte by byte (a
//     hash match alone never counts), any bytes allowed, "" included.
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
  void Clear();
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint64_t offset = 0;  // of the key in arena_
    uint32_t length = 0;
    bool used = false;
    size_t index = 0;
  };
  void Grow();

  std::vector<Slot> slots_;  // size a power of two, at most 1/2 full
  std::string arena_;        // every key's bytes, back to back
  size_t size_ = 0;
};

}  // namespace kubeon::model
