// Labels: a map from strings to strings (metadata.labels and annotations,
// spec.nodeSelector, a selector's matchLabels), stored flat.
//
// A cluster holds ~10^6 of these entries (46 labels a node at 10,000 nodes,
// plus every pod's and controller's), and as a std::map each entry cost a
// tree node and up to two string allocations.  Here a map is two arrays: the
// keys' and values' bytes in one buffer, and the entries, sorted by key, as
// views into it.  Reading one from a snapshot allocates twice (FromEntries
// sizes both arrays exactly).
//
// Contract:
//   * Keys are unique; iteration is in increasing key order (bytewise, as
//     std::string compares), like the std::map it replaces.
//   * Iterators, entries and every string_view handed out (Get, at, an
//     entry's first/second) point into the map: they stay valid until the
//     map is modified (Set, Insert, erase, clear, assignment) or destroyed.
//     Moving a map keeps them valid (they then belong to the new owner).
//   * Set and erase leave the replaced bytes in the buffer until there are
//     more of them than live ones (and over 4 KiB); a copy holds only live bytes.
//   * Equality compares keys and values, not the buffer.
//   * Not thread-safe for writers; const members may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kubeon::model {

class Labels {
 public:
  struct Entry {
    std::string_view first;   // the key
    std::string_view second;  // the value
  };
  using value_type = Entry;
  using const_iterator = const Entry*;
  using iterator = const Entry*;
  using size_type = size_t;

  Labels() = default;
  // From (key, value) pairs in any order; of duplicate keys the last wins.
  Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> entries);
  Labels(const Labels& other);
  Labels& operator=(const Labels& other);
  Labels(Labels&& other) noexcept;
  Labels& operator=(Labels&& other) noexcept;

  // From (key, value) views in any order (sorted in place; of duplicate keys
  // the last wins), copying their bytes: how readers build a map from views
  // into their input.  REQUIRES: the views stay valid during the call.
  static Labels FromEntries(std::vector<std::pair<std::string_view, std::string_view>>* entries);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  const_iterator begin() const { return entries_.data(); }
  const_iterator end() const { return entries_.data() + entries_.size(); }

  // The entry with `key`, or end().
  const_iterator find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }
  size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }
  // The value of `key`; throws std::out_of_range when absent (as std::map::at).
  std::string_view at(std::string_view key) const;
  // The value of `key`, "" when absent.
  std::string_view Get(std::string_view key) const;

  // key = value, replacing any value key had.
  void Set(std::string_view key, std::string_view value);
  // key = value when key is absent; returns whether it was added (std::map::emplace).
  bool Insert(std::string_view key, std::string_view value);
  // m[key] = value sets (Set); reading m[key] gives Get(key) and, unlike
  // std::map, adds nothing.
  class Slot {
   public:
    Slot(Labels* map, std::string_view key) : map_(map), key_(key) {}
    Slot& operator=(std::string_view value) {
      map_->Set(key_, value);
      return *this;
    }
    operator std::string_view() const { return map_->Get(key_); }

   private:
    Labels* map_;
    std::string key_;
  };
  Slot operator[](std::string_view key) { return Slot(this, key); }
  // Removes key; returns how many entries were removed (0 or 1).
  size_t erase(std::string_view key);
  void clear();

  friend bool operator==(const Labels& a, const Labels& b);

 private:
  // The index of the first entry whose key is not less than `key`.
  size_t LowerIndex(std::string_view key) const;
  // After Set or erase: Compact when the dead bytes outnumber the live ones.
  void CompactIfMostlyDead();
  // Copies s into the buffer (growing it, and moving every view, when it is
  // full) and returns the copy; "" is the empty view.
  std::string_view Store(std::string_view s);
  void Grow(size_t bytes);
  // Rebuilds the buffer with the live bytes only.
  void Compact();

  // Keys' and values' bytes (text_size_ of text_capacity_ used); the views
  // in entries_ point here.
  // 32-bit sizes keep a map as small as the std::map it replaces (48 bytes);
  // Grow throws std::length_error past 4 GiB.
  std::unique_ptr<char[]> text_;
  uint32_t text_size_ = 0;
  uint32_t text_capacity_ = 0;
  uint32_t dead_ = 0;           // bytes in text_ no entry refers to
  std::vector<Entry> entries_;  // sorted by key, keys unique
};

// For nlohmann::json (found by argument-dependent lookup): a JSON object of
// strings.  A template, so that this header needs no JSON library.
template <typename Json>
void to_json(Json& j, const Labels& labels) {
  j = Json::object();
  for (const auto& [k, v] : labels) j[std::string(k)] = std::string(v);
}

}  // namespace kubeon::model
