// Whether a set of MIG instances fits one GPU: placements, not sums.
//
// A layout is a multiset of profile names for one GPU of a model.  It is
// valid when
//  (a) every name is a profile of the model and the model has MIG;
//  (b) count rules: per profile count <= its max_instances; total instances
//      <= model.max_instances; total compute slices <= model.compute_slices;
//      at most one +me instance (every +me profile has max_instances 1:
//      the MIG User Guide gives the media extensions to a single instance).
//      A 1g+me instance may share the GPU with other 1g instances: NVIDIA
//      documents no rule against it (mig-parted's generated known configs
//      leave such sets out, which is not a driver restriction);
//  (c) placement: each instance can be given one of its profile's starts so
//      that the memory-slice ranges [start, start + memory_slices) of all
//      instances are pairwise disjoint.
// Driver R510 or newer is assumed: 4g + 3g on one GPU is valid (the MIG User
// Guide says older drivers refused it; the catalog notes the assumption).
// Rules (b) are monotone (adding an instance never repairs a violation); the
// enumeration below relies on that to prune.
//
// Costs (8-memory-slice GPU; layout_test's CostFigures prints them; on the
// 2-core build machine, -O2: checker build 0.35 ms for the whole built-in
// catalog, Table::Fits 37 ns, LayoutFits 0.65 us averaged over 29,160 A100
// multisets, most of them rejected early by the count rules):
//  - PlaceLayout / LayoutFits: name look-ups O(n * profiles), then a
//    backtracking search over starts, instances ordered largest first with
//    equal instances at increasing starts; a few hundred steps at most
//    (<= 7 instances), about a microsecond.  Allocates.
//  - LayoutChecker: built once from a catalog (enumerates every valid placed
//    layout of every MIG model, well under a millisecond in total); then
//    Table::Fits(counts) is an O(profiles) encoding plus one hash probe
//    (tens of nanoseconds), allocation-free and safe to call from several
//    threads.  Use it when checking layouts millions of times.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mig/catalog.h"
#include "model/status.h"

namespace kubeon::mig {

struct PlacedInstance {
  std::string profile;
  int start = 0;  // first memory slice
  int size = 0;   // memory slices occupied
};

// Places the instances, or says why they do not fit: "model L4 has no MIG",
// "unknown profile \"9g.1gb\" for model A100-40GB (...)", "too many 1g.5gb
// (8 > max 7 per GPU)", "compute slices 8 > 7", "no free placement for
// 3g.20gb ...".  The result is deterministic: instances are placed largest
// first (memory slices, then compute slices, then catalog order), each at the
// lowest start that still lets the rest fit; it is returned sorted by start.
Result<std::vector<PlacedInstance>> PlaceLayout(const GpuModel& model, const std::vector<std::string>& profiles);

// PlaceLayout(model, profiles).ok(), without building messages.
bool LayoutFits(const GpuModel& model, const std::vector<std::string>& profiles);

// Count rules (b) for counts[i] instances of model.profiles[i].
// REQUIRES: model.mig_capable, counts.size() == model.profiles.size(), counts[i] >= 0.
Status CheckCountRules(const GpuModel& model, std::span<const int> counts);

// All placement-maximal valid layouts over the given profiles, as multisets:
// the multisets of those valid placed layouts to which no instance of a given
// profile can be added (at a free start without breaking a count rule).
// Because it looks at placements, the multiset of one maximal layout may be
// contained in another's: on A100-40GB, 3g.20gb at start 0 plus 1g.5gb at 4,
// 5, 6 is maximal, yet 3g.20gb at 4 leaves room for four 1g.5gb.  Every valid
// layout is contained in at least one result.  Names that are not profiles of
// the model, and repeated names, are ignored; a model without MIG gives an
// empty list.  Each multiset lists its names in the order of profile_names;
// the list is sorted by descending counts in that order (so 7 x 1g first).
std::vector<std::vector<std::string>> EnumerateMaximalLayouts(const GpuModel& model,
                                                              const std::vector<std::string>& profile_names);

// Precomputed answers for repeated checks: the set of every valid count
// vector of every MIG model of a catalog, keyed by model id.
class LayoutChecker {
 public:
  class Table {
   public:
    // counts[i] = number of instances of model.profiles[i].  False when the
    // size differs from the model's profile count or a count is negative.
    bool Fits(std::span<const int> counts) const;
    // Number of valid multisets, the empty layout included.
    size_t valid_layouts() const { return valid_.size(); }

   private:
    friend class LayoutChecker;
    size_t profile_count_ = 0;
    std::unordered_set<uint64_t> valid_;
  };

  explicit LayoutChecker(const std::vector<GpuModel>& models);
  explicit LayoutChecker(const MigCatalog& catalog) : LayoutChecker(catalog.models()) {}

  // nullptr for an unknown model id or a model without MIG.
  const Table* ForModel(std::string_view model_id) const;

  // Convenience: ForModel(model.id)->Fits(counts of the names); false for
  // unknown names.  Does the name look-ups on every call.
  bool Fits(const GpuModel& model, const std::vector<std::string>& profiles) const;

  // Packs counts into 4 bits each.
  // REQUIRES: counts.size() <= 16 and every count in [0, 15].
  static uint64_t EncodeCounts(std::span<const int> counts);

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Table, NameHash, std::equal_to<>> tables_;
};

}  // namespace kubeon::mig
