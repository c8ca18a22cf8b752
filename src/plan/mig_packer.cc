// See mig_packer.h.
#include "plan/mig_packer.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "mig/layout.h"

namespace kubeon::plan {

MigPacker::MigPacker(const mig::GpuModel& model) : model_(model) {}

uint64_t MigPacker::Key(const std::vector<int>& counts) const {
  uint64_t key = 0;
  for (size_t i = 0; i < counts.size(); ++i) key |= static_cast<uint64_t>(counts[i] & 0xF) << (4 * i);
  return key;
}

std::vector<std::string> MigPacker::Names(const std::vector<int>& counts) const {
  std::vector<int> order(counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& pa = model_.profiles[a];
    const auto& pb = model_.profiles[b];
    return std::tie(pb.memory_slices, pb.compute_slices) < std::tie(pa.memory_slices, pa.compute_slices);
  });
  std::vector<std::string> names;
  for (int i : order) {
    for (int k = 0; k < counts[i]; ++k) names.push_back(model_.profiles[i].name);
  }
  return names;
}

bool MigPacker::Fits(const std::vector<int>& counts) {
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 15) return false;  // beyond any GPU (and the key's 4 bits)
  }
  const uint64_t key = Key(counts);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  ++validator_calls_;
  const bool fits = mig::LayoutFits(model_, Names(counts));
  memo_.emplace(key, fits);
  return fits;
}

std::vector<MigBin> MigPacker::Pack(const std::vector<int>& item_profiles) {
  const size_t np = model_.profiles.size();
  std::vector<int> order(item_profiles.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& pa = model_.profiles[item_profiles[a]];
    const auto& pb = model_.profiles[item_profiles[b]];
    return std::tie(pb.memory_slices, pb.compute_slices) < std::tie(pa.memory_slices, pa.compute_slices);
  });

  std::vector<MigBin> bins;
  std::map<uint64_t, std::vector<int>> open;  // signature -> open bins with that layout
  std::map<uint64_t, std::vector<int>> counts_of;  // signature -> counts
  auto fullness = [&](const std::vector<int>& counts) {
    int cs = 0, ms = 0;
    for (size_t i = 0; i < np; ++i) {
      cs += counts[i] * model_.profiles[i].compute_slices;
      ms += counts[i] * model_.profiles[i].memory_slices;
    }
    return std::make_pair(cs, ms);
  };
  for (int item : order) {
    const int p = item_profiles[item];
    uint64_t best_sig = 0;
    bool found = false;
    std::pair<int, int> best_full{-1, -1};
    for (const auto& [sig, members] : open) {
      if (members.empty()) continue;
      std::vector<int> c = counts_of[sig];
      ++c[p];
      if (!Fits(c)) continue;
      auto f = fullness(c);
      if (!found || f > best_full) {
        found = true;
        best_full = f;
        best_sig = sig;
      }
    }
    int bin;
    if (found) {
      auto& members = open[best_sig];
      bin = members.back();
      members.pop_back();
    } else {
      bin = static_cast<int>(bins.size());
      bins.push_back(MigBin{{}, std::vector<int>(np, 0)});
      std::vector<int> one(np, 0);
      one[p] = 1;
      if (!Fits(one)) {  // cannot happen for a profile of the model; keep the invariant anyway
        bins.pop_back();
        continue;
      }
    }
    bins[bin].items.push_back(item);
    ++bins[bin].counts[p];
    const uint64_t sig = Key(bins[bin].counts);
    counts_of.emplace(sig, bins[bin].counts);
    open[sig].push_back(bin);
  }
  return bins;
}

int MigLowerBound(const mig::GpuModel& model, const std::vector<int>& item_profiles) {
  int64_t cs = 0, ms = 0;
  for (int p : item_profiles) {
    cs += model.profiles[p].compute_slices;
    ms += model.profiles[p].memory_slices;
  }
  auto ceil_div = [](int64_t a, int64_t b) { return static_cast<int>((a + b - 1) / b); };
  return std::max(ceil_div(cs, model.compute_slices), ceil_div(ms, model.memory_slices));
}

}  // namespace kubeon::plan
