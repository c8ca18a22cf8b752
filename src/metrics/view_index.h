// ViewIndex<T>: an insert-only map from byte strings the caller keeps alive
// to T* -- the history readers' series cache (a label block's text -> its
// resolved series) and their pods (a pod's namespace and name -> its slot).
//
// Built for ~10^5 keys of a few hundred bytes, each looked up about once
// (the readers predict most lines' series without a lookup): the table is
// open-addressed over 24-byte (key pointer, length, 32 bits of hash, value)
// slots, so a lookup touches one slot and, on a hash match, the key's bytes:
// no node per entry, no chain to walk, no second hash of a key that missed
// (the hash is computed once, by the caller, and passed to both calls).  A
// std::unordered_map of string_view spent ~10 % of an ingest on cache misses
// in its buckets and nodes and on rehashing them (BENCHMARKS.md (g)).
//
// Contract:
//   * Hash(key) is the hash Find and Insert expect; any other value works
//     too (tests pass colliding ones): keys are always compared byte by
//     byte, a hash match alone never counts.
//   * Find(key, hash): the value inserted under `key`, or nullptr.
//   * Insert(key, hash, value).  REQUIRES: Find(key, hash) == nullptr,
//     value != nullptr, key.size() < 2^32, and key's bytes unchanged and
//     alive until Clear() or destruction (the index keeps only a view).
//   * Clear() forgets every key.  Not thread-safe; no iteration order.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace kubeon::metrics::internal {

template <typename T>
class ViewIndex {
 public:
  // Eight bytes a step (an xor, a multiply and a rotate), then splitmix64's
  // finalizer, so that every byte reaches the low 32 bits the table uses:
  // about 60 % of std::hash's instructions on ~170-byte label sets
  // (measured 2026-12-06, bench/HISTORY.md (g)).  Not keyed: like std::hash, a
  // file built to collide slows its own read, nothing else.
  static uint64_t Hash(std::string_view key) {
    constexpr uint64_t kMul = 0xBF58476D1CE4E5B9ULL;
    const char* p = key.data();
    size_t n = key.size();
    uint64_t h = 0x9E3779B97F4A7C15ULL * (n + 1);
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = std::rotl((h ^ w) * kMul, 29);
    }
    if (n > 0) {
      uint64_t w = 0;
      for (size_t i = 0; i < n; ++i) w |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
      h = std::rotl((h ^ w) * kMul, 29);
    }
    h ^= h >> 30;
    h *= kMul;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
  }

  T* Find(std::string_view key, uint64_t hash) const {
    if (slots_.empty()) return nullptr;
    const auto h = static_cast<uint32_t>(hash);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.value == nullptr) return nullptr;
      // As views: an empty key may have a null data() (memcmp may not see it).
      if (s.hash == h && std::string_view(s.data, s.size) == key) {
        return s.value;
      }
    }
  }

  void Insert(std::string_view key, uint64_t hash, T* value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    const auto h = static_cast<uint32_t>(hash);
    const size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].value != nullptr) i = (i + 1) & mask;
    slots_[i] = Slot{key.data(), static_cast<uint32_t>(key.size()), h, value};
    ++size_;
  }

  void Clear() {
    slots_.clear();
    slots_.shrink_to_fit();
    size_ = 0;
  }

  size_t size() const { return size_; }

 private:
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t hash = 0;  // low 32 bits of the key's hash (also where it is probed from)
    T* value = nullptr;  // nullptr: unused
  };

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.value == nullptr) continue;
      size_t i = s.hash & mask;
      while (slots_[i].value != nullptr) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  // Size 0 or a power of two, at most 1/2 full.
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace kubeon::metrics::internal
