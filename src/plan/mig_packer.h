// Packs MIG slice requests of one GPU model onto as few GPUs as possible.
//
// Best-fit decreasing over layout signatures: items are placed largest first
// (memory slices, then compute slices); each item goes to the open GPU whose
// layout becomes fullest while staying valid (mig::LayoutFits, i.e. real
// placements, not sums), else to a new GPU.  Open GPUs are grouped by their
// layout signature (counts per profile), so the cost per item is the number
// of distinct layouts (a few hundred at most), not the number of GPUs:
// O(items x signatures) plus one memoised validator call per (signature, profile).
//
// Invariant: every returned bin is a valid layout for the model.
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

  // item_profiles[i] is an index into model.profiles.  Returns the GPUs used.
  std::vector<MigBin> Pack(const std::vector<int>& item_profiles);

  // Whether the multiset given by counts fits one GPU (memoised).
  bool Fits(const std::vector<int>& counts);

  // Profile names of a bin, largest first (the order mig-parted lists them).
  std::vector<std::string> Names(const std::vector<int>& counts) const;

  int validator_calls() const { return validator_calls_; }

 private:
  uint64_t Key(const std::vector<int>& counts) const;

  const mig::GpuModel& model_;
  std::unordered_map<uint64_t, bool> memo_;
  int validator_calls_ = 0;
};

// max(ceil(sum compute slices / GPU compute slices), ceil(sum memory slices / GPU memory slices)).
int MigLowerBound(const mig::GpuModel& model, const std::vector<int>& item_profiles);

}  // namespace kubeon::plan
