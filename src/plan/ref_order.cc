// See ref_order.h for the contract.
#include "plan/ref_order.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace kubeon::plan {
namespace {

// Each distinct value of one field gets its rank among the distinct values.
class Ranks {
 public:
  // The value's slot (ranks are assigned by Rank() once all are added).
  uint32_t Add(std::string_view v) {
    auto [it, inserted] = slot_.try_emplace(v, static_cast<uint32_t>(values_.size()));
    if (inserted) values_.push_back(v);
    return it->second;
  }
  // rank_of_slot[s]: the rank of the value added in slot s.
  std::vector<uint32_t> Rank() const {
    std::vector<uint32_t> by_value(values_.size());
    for (uint32_t i = 0; i < by_value.size(); ++i) by_value[i] = i;
    std::sort(by_value.begin(), by_value.end(), [&](uint32_t a, uint32_t b) { return values_[a] < values_[b]; });
    std::vector<uint32_t> rank_of_slot(values_.size());
    for (uint32_t r = 0; r < by_value.size(); ++r) rank_of_slot[by_value[r]] = r;
    return rank_of_slot;
  }

 private:
  std::unordered_map<std::string_view, uint32_t> slot_;
  std::vector<std::string_view> values_;
};

// The first 8 bytes of s as a big-endian number, zero-padded: numbers
// compare as the prefixes do (unsigned bytes).
uint64_t Prefix(std::string_view s) {
  uint64_t p = 0;
  for (size_t i = 0; i < 8; ++i) p = p << 8 | (i < s.size() ? static_cast<unsigned char>(s[i]) : 0u);
  return p;
}

struct Key {
  uint64_t group;   // namespace rank << 32 | kind rank
  uint64_t prefix;  // Prefix(name)
  std::string_view name;
  size_t index;
};

}  // namespace

std::vector<size_t> RefOrder(const std::vector<const model::WorkloadRef*>& refs) {
  Ranks namespaces, kinds;
  std::vector<Key> keys(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    const model::WorkloadRef& r = *refs[i];
    keys[i] = Key{uint64_t{namespaces.Add(r.namespace_)} << 32 | kinds.Add(r.kind), Prefix(r.name), r.name, i};
  }
  const std::vector<uint32_t> ns_rank = namespaces.Rank(), kind_rank = kinds.Rank();
  for (Key& k : keys) {
    k.group = uint64_t{ns_rank[k.group >> 32]} << 32 | kind_rank[k.group & 0xFFFFFFFF];
  }
  std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.group != b.group) return a.group < b.group;
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    return a.name < b.name;
  });
  std::vector<size_t> order(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) order[k] = keys[k].index;
  return order;
}

}  // namespace kubeon::plan
