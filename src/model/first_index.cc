// See first_index.h for the contract.
#include "model/first_index.h"

#include <functional>

namespace kubeon::model {

std::optional<size_t> FirstIndex::FindOrAdd(std::string_view key, size_t index) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const uint64_t hash = std::hash<std::string_view>{}(key);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (!s.used) {
      s = Slot{hash, arena_.size(), static_cast<uint32_t>(key.size()), true, index};
      arena_.append(key);
      ++size_;
      return std::nullopt;
    }
    if (s.hash == hash && std::string_view(arena_).substr(s.offset, s.length) == key) return s.index;
  }
}

void FirstIndex::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (!s.used) continue;
    size_t i = s.hash & mask;
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void FirstIndex::Clear() {
  slots_.clear();
  arena_.clear();
  size_ = 0;
}

}  // namespace kubeon::model
