// Packs MIG slice requests of one GPU model onto as few GPUs as possible.
//
// Pack solves the cutting-stock program of plan/cutting_stock.h over the
// model's valid layouts: the layouts are enumerated once per packer (every
// valid count vector, by memoised mig::LayoutFits calls, i.e. real
// placements, not sums; validity is downward closed), reduced to the maximal
// ones over the profiles the pool asks for (a few dozen), and the pool is
//  - solved exactly (branch and bound from the LP bound) when it has at most
//    kExactMaxItems items, within a deterministic node budget;
//  - otherwise covered by the LP solution rounded down plus an exact repair
//    of the residual, which stays within a GPU or so of the LP bound.
// Best-fit decreasing (PackBestFit, the previous method) gives the starting
// upper bound, so Pack never uses more GPUs than best fit.  Output is
// deterministic: bins heaviest first, each bin's items in input order.
//
// PackBestFit: items largest first (memory slices, then compute slices); each
// goes to the open GPU whose layout becomes fullest while staying valid, else
// to a new GPU; open GPUs are grouped by layout signature, so the cost per
// item is the number of distinct layouts, not the number of GPUs.
//
// Invariants: every returned bin is a valid layout for the model; every item
// is in exactly one bin.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "mig/catalog.h"

namespace kubeon::plan {

struct MigBin {
  std::vector<int> items;    // indices into the input
  std::vector<int> counts;   // per profile index of the model
};

class MigPacker {
 public:
  // REQUIRES: model.mig_capable, model.profiles.size() <= 16, outlives the packer.
  explicit MigPacker(const mig::GpuModel& model);

  // Pools with more items are solved by LP rounding plus an exact repair.
  static constexpr int64_t kExactMaxItems = 400;

  // item_profiles[i] is an index into model.profiles.  Returns the GPUs used:
  // the fewest possible (proved) unless the pool is large or the search
  // budget ran out; never more than PackBestFit.
  std::vector<MigBin> Pack(const std::vector<int>& item_profiles);

  // The previous greedy method, kept as Pack's starting point and as the
  // benchmark's reference.
  std::vector<MigBin> PackBestFit(const std::vector<int>& item_profiles);

  // Of the last Pack call: the LP bound and whether the result is proved optimal.
  double last_lp_bound() const { return last_lp_bound_; }
  bool last_optimal() const { return last_optimal_; }

  // Optimum of the LP relaxation for these items (a lower bound on GPUs).
  double LpBound(const std::vector<int>& item_profiles);

  // Whether the multiset given by counts fits one GPU (memoised).
  bool Fits(const std::vector<int>& counts);

  // Profile names of a bin, largest first (the order mig-parted lists them).
  std::vector<std::string> Names(const std::vector<int>& counts) const;

  int validator_calls() const { return validator_calls_; }

 private:
  uint64_t Key(const std::vector<int>& counts) const;
  // Every valid count vector of the model (enumerated on first use).
  const std::vector<std::vector<int>>& ValidLayouts();
  // The maximal valid layouts restricted to the profiles with demand > 0
  // (memoised per set of profiles).
  const std::vector<std::vector<int>>& MaximalLayouts(const std::vector<int>& demand);
  std::vector<int> Demand(const std::vector<int>& item_profiles) const;

  const mig::GpuModel& model_;
  std::unordered_map<uint64_t, bool> memo_;
  std::vector<std::vector<int>> valid_;
  std::unordered_map<uint32_t, std::vector<std::vector<int>>> maximal_;  // profile mask -> layouts
  bool valid_done_ = false;
  int validator_calls_ = 0;
  double last_lp_bound_ = 0;
  bool last_optimal_ = false;
};

// max(ceil(sum compute slices / GPU compute slices), ceil(sum memory slices / GPU memory slices)).
int MigLowerBound(const mig::GpuModel& model, const std::vector<int>& item_profiles);

// The LP relaxation of the fewest-GPU program for these items (fractional
// GPUs; plan/cutting_stock.h).  Always >= MigLowerBound's sums, and the
// number of GPUs any packing needs is >= CeilBound(MigLpBound(...)).
// REQUIRES: as MigPacker; item_profiles index model.profiles.
double MigLpBound(const mig::GpuModel& model, const std::vector<int>& item_profiles);

// CeilBound(MigLpBound(model, item_profiles)): a lower bound on GPUs.
int MigLpLowerBound(const mig::GpuModel& model, const std::vector<int>& item_profiles);

}  // namespace kubeon::plan
