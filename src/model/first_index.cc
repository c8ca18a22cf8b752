// See first_index.h for the contract.
#include "model/first_index.h"

#include <cstring>
#include <functional>

namespace kubeon::model {

std::optional<size_t> FirstIndex::FindOrAdd(std::string_view key, size_t index) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const auto hash = static_cast<uint32_t>(std::hash<std::string_view>{}(key));
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.entry == 0) {
      const uint64_t at = arena_.size();
      const uint64_t stored = index;
      arena_.append(reinterpret_cast<const char*>(&stored), sizeof(stored));
      arena_.append(key);
      s = Slot{at + 1, hash, static_cast<uint32_t>(key.size())};
      ++size_;
      return std::nullopt;
    }
    if (s.hash != hash || s.length != key.size()) continue;
    const char* entry = arena_.data() + (s.entry - 1);
    if (std::string_view(entry + sizeof(uint64_t), s.length) != key) continue;
    uint64_t first = 0;
    std::memcpy(&first, entry, sizeof(first));
    return static_cast<size_t>(first);
  }
}

bool FirstIndex::AddAll(const FirstIndex& other) {
  bool none_here = true;
  for (const Slot& s : other.slots_) {
    if (s.entry == 0) continue;
    const char* entry = other.arena_.data() + (s.entry - 1);
    uint64_t index = 0;
    std::memcpy(&index, entry, sizeof(index));
    if (FindOrAdd(std::string_view(entry + sizeof(uint64_t), s.length), static_cast<size_t>(index))) none_here = false;
  }
  return none_here;
}

void FirstIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.entry == 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].entry != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void FirstIndex::Clear() {
  slots_.clear();
  arena_.clear();
  size_ = 0;
}

}  // namespace kubeon::model
