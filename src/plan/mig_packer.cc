// See mig_packer.h.
#include "plan/mig_packer.h"

#include <algorithm>
#include <functional>
#include <set>
#include <map>
#include <numeric>

#include "mig/layout.h"
#include "plan/cutting_stock.h"

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

std::vector<MigBin> MigPacker::PackBestFit(const std::vector<int>& item_profiles) {
  const size_t np = model_.profiles.size();
  // Items largest first (memory slices, then compute slices), equal sizes in
  // input order: a stable counting sort over the profiles' distinct sizes.
  std::vector<std::pair<int, int>> sizes;  // (memory slices, compute slices), largest first
  for (const auto& prof : model_.profiles) sizes.push_back({prof.memory_slices, prof.compute_slices});
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  std::vector<size_t> rank_of(np);
  for (size_t j = 0; j < np; ++j) {
    const std::pair<int, int> size{model_.profiles[j].memory_slices, model_.profiles[j].compute_slices};
    rank_of[j] = static_cast<size_t>(std::lower_bound(sizes.begin(), sizes.end(), size, std::greater<>()) - sizes.begin());
  }
  std::vector<size_t> start(sizes.size() + 1, 0);
  for (int p : item_profiles) ++start[rank_of[static_cast<size_t>(p)] + 1];
  for (size_t k = 0; k < sizes.size(); ++k) start[k + 1] += start[k];
  std::vector<int> order(item_profiles.size());
  for (size_t i = 0; i < item_profiles.size(); ++i) {
    order[start[rank_of[static_cast<size_t>(item_profiles[i])]]++] = static_cast<int>(i);
  }

  // Open GPUs grouped by layout signature, in signature order; per group the
  // layout's counts and, per profile, whether one more still fits (-1 unknown)
  // and the fullness it then reaches.
  struct Group {
    std::vector<int> counts;
    std::vector<int> members;     // open bins with this layout
    std::vector<int8_t> fits;     // per profile: 1 fits, 0 not, -1 not asked yet
    std::vector<std::pair<int, int>> full;  // per profile: (compute, memory) slices with one more
  };
  std::vector<MigBin> bins;
  std::map<uint64_t, Group> open;
  auto fullness = [&](const std::vector<int>& counts) {
    int cs = 0, ms = 0;
    for (size_t i = 0; i < np; ++i) {
      cs += counts[i] * model_.profiles[i].compute_slices;
      ms += counts[i] * model_.profiles[i].memory_slices;
    }
    return std::make_pair(cs, ms);
  };
  std::vector<int> c(np);
  for (int item : order) {
    const int p = item_profiles[item];
    Group* best = nullptr;
    std::pair<int, int> best_full{-1, -1};
    for (auto& [sig, g] : open) {
      if (g.members.empty()) continue;
      int8_t& fits = g.fits[static_cast<size_t>(p)];
      if (fits < 0) {
        c = g.counts;
        ++c[p];
        fits = Fits(c) ? 1 : 0;
        if (fits) g.full[static_cast<size_t>(p)] = fullness(c);
      }
      if (!fits) continue;
      const std::pair<int, int>& f = g.full[static_cast<size_t>(p)];
      if (best == nullptr || f > best_full) {
        best_full = f;
        best = &g;
      }
    }
    int bin;
    if (best != nullptr) {
      bin = best->members.back();
      best->members.pop_back();
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
    auto [it, added] = open.try_emplace(sig);
    if (added) {
      it->second.counts = bins[bin].counts;
      it->second.fits.assign(np, -1);
      it->second.full.assign(np, {0, 0});
    }
    it->second.members.push_back(bin);
  }
  return bins;
}

std::vector<int> MigPacker::Demand(const std::vector<int>& item_profiles) const {
  std::vector<int> demand(model_.profiles.size(), 0);
  for (int p : item_profiles) ++demand[static_cast<size_t>(p)];
  return demand;
}

const std::vector<std::vector<int>>& MigPacker::ValidLayouts() {
  if (valid_done_) return valid_;
  valid_done_ = true;
  // Validity is downward closed, so every valid vector is reached by raising
  // one profile's count at a time, profile by profile, while it still fits.
  std::vector<int> counts(model_.profiles.size(), 0);
  std::function<void(size_t)> go = [&](size_t i) {
    if (i == counts.size()) {
      valid_.push_back(counts);
      return;
    }
    for (counts[i] = 0; counts[i] == 0 || Fits(counts); ++counts[i]) go(i + 1);
    counts[i] = 0;
  };
  go(0);
  return valid_;
}

const std::vector<std::vector<int>>& MigPacker::MaximalLayouts(const std::vector<int>& demand) {
  uint32_t mask = 0;
  for (size_t j = 0; j < demand.size(); ++j) mask |= demand[j] > 0 ? uint32_t{1} << j : 0;
  auto it = maximal_.find(mask);
  if (it != maximal_.end()) return it->second;
  std::set<std::vector<int>> restricted;
  for (const std::vector<int>& v : ValidLayouts()) {
    std::vector<int> r = v;
    for (size_t j = 0; j < r.size(); ++j) {
      if ((mask >> j & 1) == 0) r[j] = 0;
    }
    restricted.insert(std::move(r));
  }
  // Largest totals first: a vector can only be dominated by a maximal one
  // with a larger total, which is then already kept.
  std::vector<std::vector<int>> all(restricted.begin(), restricted.end());
  auto total = [](const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); };
  std::stable_sort(all.begin(), all.end(),
                   [&](const std::vector<int>& a, const std::vector<int>& b) { return total(a) > total(b); });
  std::vector<std::vector<int>> maximal;
  for (const std::vector<int>& v : all) {
    bool dominated = false;
    for (const std::vector<int>& k : maximal) {
      bool within = true;
      for (size_t j = 0; j < v.size() && within; ++j) within = v[j] <= k[j];
      if (within) {
        dominated = true;
        break;
      }
    }
    if (!dominated) maximal.push_back(v);
  }
  std::sort(maximal.begin(), maximal.end());
  return maximal_.emplace(mask, std::move(maximal)).first->second;
}

double MigPacker::LpBound(const std::vector<int>& item_profiles) {
  const std::vector<int> demand = Demand(item_profiles);
  return SolveCoverLp(MaximalLayouts(demand), demand).value;
}

std::vector<MigBin> MigPacker::Pack(const std::vector<int>& item_profiles) {
  last_lp_bound_ = 0;
  last_optimal_ = true;
  if (item_profiles.empty()) return {};
  const size_t np = model_.profiles.size();
  std::vector<MigBin> greedy = PackBestFit(item_profiles);
  const std::vector<int> demand = Demand(item_profiles);
  CoverOptions options;
  options.exact_max_items = kExactMaxItems;
  options.priority.resize(np);
  std::iota(options.priority.begin(), options.priority.end(), 0);
  std::stable_sort(options.priority.begin(), options.priority.end(), [&](int a, int b) {
    const auto& pa = model_.profiles[a];
    const auto& pb = model_.profiles[b];
    return std::tie(pb.memory_slices, pb.compute_slices) < std::tie(pa.memory_slices, pa.compute_slices);
  });
  options.weight.resize(np);
  for (size_t j = 0; j < np; ++j) {
    options.weight[j] = int64_t{model_.profiles[j].memory_slices} * 64 + model_.profiles[j].compute_slices;
  }
  std::vector<CountVector> upper;
  for (const MigBin& b : greedy) upper.push_back(b.counts);
  Cover cover = SolveCover(MaximalLayouts(demand), demand, options, std::move(upper));
  last_lp_bound_ = cover.lp_bound;
  last_optimal_ = cover.optimal;
  // Heaviest bins first, ties by counts (deterministic).
  auto weight = [&](const CountVector& c) {
    int64_t w = 0;
    for (size_t j = 0; j < np; ++j) w += c[j] * options.weight[j];
    return w;
  };
  // Equal bins are equal vectors, so sorting the distinct layouts, each with
  // its count, gives the same sequence (a pool has thousands of bins and a
  // few dozen layouts).
  {
    std::map<CountVector, size_t> distinct;
    for (CountVector& c : cover.bins) ++distinct[std::move(c)];
    std::vector<std::pair<int64_t, std::map<CountVector, size_t>::const_iterator>> order;
    for (auto it = distinct.cbegin(); it != distinct.cend(); ++it) order.push_back({weight(it->first), it});
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second->first > b.second->first;
    });
    cover.bins.clear();
    for (const auto& [w, it] : order) {
      if (!Fits(it->first)) return greedy;  // cannot happen (bins lie inside valid layouts); keep the invariant
      cover.bins.insert(cover.bins.end(), it->second, it->first);
    }
  }
  // Items of each profile, in input order, handed out bin by bin.
  std::vector<std::vector<int>> queue(np);
  for (size_t i = 0; i < item_profiles.size(); ++i) queue[static_cast<size_t>(item_profiles[i])].push_back(static_cast<int>(i));
  std::vector<size_t> next(np, 0);
  std::vector<MigBin> bins;
  for (const CountVector& c : cover.bins) {
    MigBin bin{{}, c};
    for (size_t j = 0; j < np; ++j) {
      for (int k = 0; k < c[j]; ++k) bin.items.push_back(queue[j][next[j]++]);
    }
    std::sort(bin.items.begin(), bin.items.end());
    bins.push_back(std::move(bin));
  }
  return bins;
}

double MigLpBound(const mig::GpuModel& model, const std::vector<int>& item_profiles) {
  MigPacker packer(model);
  return packer.LpBound(item_profiles);
}

int MigLpLowerBound(const mig::GpuModel& model, const std::vector<int>& item_profiles) {
  return CeilBound(MigLpBound(model, item_profiles));
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
