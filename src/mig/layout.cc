// The MIG layout validator (rules and costs in layout.h).
//
// Two independent ways to decide validity live here and are cross-checked by
// layout_test: a backtracking search for one placement (PlaceLayout), and an
// enumeration of every valid placed layout (LayoutChecker,
// EnumerateMaximalLayouts).  Both apply the same count rules
// (CheckCountRules / CountRulesHold).
#include "mig/layout.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace kubeon::mig {
namespace {

// Memory slices [start, start + size) as a bit mask.  Catalog invariant:
// start + size <= 32.
uint64_t SliceMask(int start, int size) { return ((uint64_t{1} << size) - 1) << start; }

enum class CountRule { kOk, kProfileMax, kTotalMax, kCompute, kMediaTwice };

struct CountVerdict {
  CountRule rule = CountRule::kOk;
  int profile = -1;  // for kProfileMax
  int value = 0;     // the offending total
};

// REQUIRES: counts.size() == model.profiles.size(), counts[i] >= 0.
CountVerdict EvaluateCountRules(const GpuModel& model, std::span<const int> counts) {
  int total = 0, compute = 0, media = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const MigProfile& p = model.profiles[i];
    const int n = counts[i];
    if (n > p.max_instances) return {CountRule::kProfileMax, static_cast<int>(i), n};
    total += n;
    compute += n * p.compute_slices;
    if (p.media_extensions) media += n;
  }
  if (total > model.max_instances) return {CountRule::kTotalMax, -1, total};
  if (compute > model.compute_slices) return {CountRule::kCompute, -1, compute};
  if (media > 1) return {CountRule::kMediaTwice, -1, media};
  return {};
}

Status CountVerdictToStatus(const GpuModel& model, const CountVerdict& v) {
  switch (v.rule) {
    case CountRule::kOk:
      return Status::Ok();
    case CountRule::kProfileMax: {
      const MigProfile& p = model.profiles[static_cast<size_t>(v.profile)];
      return Status::Error("too many " + p.name + " (" + std::to_string(v.value) + " > max " +
                           std::to_string(p.max_instances) + " per GPU on " + model.id + ")");
    }
    case CountRule::kTotalMax:
      return Status::Error("too many instances (" + std::to_string(v.value) + " > max " +
                           std::to_string(model.max_instances) + " per GPU on " + model.id + ")");
    case CountRule::kCompute:
      return Status::Error("compute slices " + std::to_string(v.value) + " > " +
                           std::to_string(model.compute_slices) + " on " + model.id);
    case CountRule::kMediaTwice:
      return Status::Error("at most one +me instance per GPU, got " + std::to_string(v.value));
  }
  return Status::Error("unreachable count rule");
}

std::string ProfileList(const GpuModel& model) {
  std::string out;
  for (const MigProfile& p : model.profiles) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

// Maps names to profile indices; *unknown receives the first unknown name.
bool ResolveNames(const GpuModel& model, const std::vector<std::string>& names, std::vector<int>* indices,
                  std::string* unknown) {
  indices->clear();
  indices->reserve(names.size());
  for (const std::string& name : names) {
    const int i = ProfileIndex(model, name);
    if (i < 0) {
      if (unknown != nullptr) *unknown = name;
      return false;
    }
    indices->push_back(i);
  }
  return true;
}

// Backtracking placement of instances (profile indices), largest first.
class Placer {
 public:
  Placer(const GpuModel& model, std::vector<int> instances) : model_(model), items_(std::move(instances)) {
    std::sort(items_.begin(), items_.end(), [&](int a, int b) {
      const MigProfile& pa = model_.profiles[static_cast<size_t>(a)];
      const MigProfile& pb = model_.profiles[static_cast<size_t>(b)];
      if (pa.memory_slices != pb.memory_slices) return pa.memory_slices > pb.memory_slices;
      if (pa.compute_slices != pb.compute_slices) return pa.compute_slices > pb.compute_slices;
      return a < b;
    });
    starts_.assign(items_.size(), -1);
  }

  bool Run() { return Place(0, 0); }

  // After a failed Run(): the instance the deepest partial placement could not place.
  int stuck_profile() const { return items_[deepest_]; }

  // After a successful Run(): the instances sorted by start.
  std::vector<PlacedInstance> Result() const {
    std::vector<PlacedInstance> out;
    for (size_t k = 0; k < items_.size(); ++k) {
      const MigProfile& p = model_.profiles[static_cast<size_t>(items_[k])];
      out.push_back(PlacedInstance{p.name, starts_[k], p.memory_slices});
    }
    std::sort(out.begin(), out.end(), [](const PlacedInstance& a, const PlacedInstance& b) { return a.start < b.start; });
    return out;
  }

 private:
  bool Place(size_t k, uint64_t used) {
    if (k == items_.size()) return true;
    deepest_ = std::max(deepest_, k);
    const MigProfile& p = model_.profiles[static_cast<size_t>(items_[k])];
    // Equal instances are interchangeable: give them increasing starts.
    const int min_start = (k > 0 && items_[k - 1] == items_[k]) ? starts_[k - 1] + 1 : 0;
    for (int s : p.starts) {
      if (s < min_start) continue;
      const uint64_t mask = SliceMask(s, p.memory_slices);
      if ((used & mask) != 0) continue;
      starts_[k] = s;
      if (Place(k + 1, used | mask)) return true;
    }
    starts_[k] = -1;
    return false;
  }

  const GpuModel& model_;
  std::vector<int> items_;
  std::vector<int> starts_;
  size_t deepest_ = 0;
};

std::vector<int> CountsOf(const GpuModel& model, const std::vector<int>& indices) {
  std::vector<int> counts(model.profiles.size(), 0);
  for (int i : indices) ++counts[static_cast<size_t>(i)];
  return counts;
}

// Visits every valid placed layout that uses only the allowed profiles, each
// exactly once (an instance is identified by its start, and the walk decides
// slice by slice, left to right, which instance, if any, starts there).
class PlacedLayoutWalker {
 public:
  // visit(counts, used_mask) is called for each valid placed layout.
  template <typename Visit>
  static void Walk(const GpuModel& model, const std::vector<bool>& allowed, Visit&& visit) {
    std::vector<int> counts(model.profiles.size(), 0);
    WalkFrom(model, allowed, 0, 0, counts, visit);
  }

 private:
  template <typename Visit>
  static void WalkFrom(const GpuModel& model, const std::vector<bool>& allowed, int slice, uint64_t used,
                       std::vector<int>& counts, Visit& visit) {
    if (slice == model.memory_slices) {
      visit(static_cast<const std::vector<int>&>(counts), used);
      return;
    }
    WalkFrom(model, allowed, slice + 1, used, counts, visit);  // nothing starts here
    if ((used >> slice) & 1) return;
    for (size_t i = 0; i < model.profiles.size(); ++i) {
      const MigProfile& p = model.profiles[i];
      if (!allowed[i] || !std::binary_search(p.starts.begin(), p.starts.end(), slice)) continue;
      const uint64_t mask = SliceMask(slice, p.memory_slices);
      if ((used & mask) != 0) continue;
      ++counts[i];
      if (EvaluateCountRules(model, counts).rule == CountRule::kOk) {  // rules are monotone: prune
        WalkFrom(model, allowed, slice + 1, used | mask, counts, visit);
      }
      --counts[i];
    }
  }
};

// True when some allowed profile could still be added to the placed layout.
bool CanGrow(const GpuModel& model, const std::vector<bool>& allowed, std::vector<int>& counts, uint64_t used) {
  for (size_t i = 0; i < model.profiles.size(); ++i) {
    if (!allowed[i]) continue;
    const MigProfile& p = model.profiles[i];
    ++counts[i];
    const bool rules_ok = EvaluateCountRules(model, counts).rule == CountRule::kOk;
    --counts[i];
    if (!rules_ok) continue;
    for (int s : p.starts) {
      if ((used & SliceMask(s, p.memory_slices)) == 0) return true;
    }
  }
  return false;
}

}  // namespace

Status CheckCountRules(const GpuModel& model, std::span<const int> counts) {
  return CountVerdictToStatus(model, EvaluateCountRules(model, counts));
}

Result<std::vector<PlacedInstance>> PlaceLayout(const GpuModel& model, const std::vector<std::string>& profiles) {
  if (!model.mig_capable) return Status::Error("model " + model.id + " has no MIG");
  std::vector<int> indices;
  std::string unknown;
  if (!ResolveNames(model, profiles, &indices, &unknown)) {
    return Status::Error("unknown profile \"" + unknown + "\" for model " + model.id + " (profiles: " +
                         ProfileList(model) + ")");
  }
  Status rules = CheckCountRules(model, CountsOf(model, indices));
  if (!rules.ok()) return rules;
  Placer placer(model, std::move(indices));
  if (!placer.Run()) {
    const MigProfile& p = model.profiles[static_cast<size_t>(placer.stuck_profile())];
    std::string starts;
    for (int s : p.starts) starts += (starts.empty() ? "" : ",") + std::to_string(s);
    return Status::Error("no free placement for " + p.name + " on " + model.id + ": it may start only at memory slice {" +
                         starts + "} and takes " + std::to_string(p.memory_slices) + " of " +
                         std::to_string(model.memory_slices) + " slices, which overlap the other instances");
  }
  return placer.Result();
}

bool LayoutFits(const GpuModel& model, const std::vector<std::string>& profiles) {
  if (!model.mig_capable) return false;
  std::vector<int> indices;
  if (!ResolveNames(model, profiles, &indices, nullptr)) return false;
  if (EvaluateCountRules(model, CountsOf(model, indices)).rule != CountRule::kOk) return false;
  return Placer(model, std::move(indices)).Run();
}

std::vector<std::vector<std::string>> EnumerateMaximalLayouts(const GpuModel& model,
                                                              const std::vector<std::string>& profile_names) {
  std::vector<std::vector<std::string>> out;
  if (!model.mig_capable) return out;
  std::vector<int> order;  // profile indices in the order of profile_names, without repeats
  std::vector<bool> allowed(model.profiles.size(), false);
  for (const std::string& name : profile_names) {
    const int i = ProfileIndex(model, name);
    if (i < 0 || allowed[static_cast<size_t>(i)]) continue;
    allowed[static_cast<size_t>(i)] = true;
    order.push_back(i);
  }
  std::vector<std::vector<int>> maximal;  // counts, in `order`
  PlacedLayoutWalker::Walk(model, allowed, [&](const std::vector<int>& counts, uint64_t used) {
    std::vector<int> scratch = counts;
    if (CanGrow(model, allowed, scratch, used)) return;
    std::vector<int> key;
    for (int i : order) key.push_back(counts[static_cast<size_t>(i)]);
    if (std::find(maximal.begin(), maximal.end(), key) == maximal.end()) maximal.push_back(std::move(key));
  });
  std::sort(maximal.begin(), maximal.end(), std::greater<>());
  for (const std::vector<int>& key : maximal) {
    std::vector<std::string> names;
    for (size_t k = 0; k < order.size(); ++k) {
      for (int n = 0; n < key[k]; ++n) names.push_back(model.profiles[static_cast<size_t>(order[k])].name);
    }
    out.push_back(std::move(names));
  }
  return out;
}

uint64_t LayoutChecker::EncodeCounts(std::span<const int> counts) {
  uint64_t code = 0;
  for (size_t i = 0; i < counts.size(); ++i) code |= static_cast<uint64_t>(counts[i]) << (4 * i);
  return code;
}

LayoutChecker::LayoutChecker(const std::vector<GpuModel>& models) {
  for (const GpuModel& model : models) {
    if (!model.mig_capable) continue;
    Table& table = tables_[model.id];
    table.profile_count_ = model.profiles.size();
    const std::vector<bool> all(model.profiles.size(), true);
    PlacedLayoutWalker::Walk(model, all, [&](const std::vector<int>& counts, uint64_t /*used*/) {
      table.valid_.insert(EncodeCounts(counts));
    });
  }
}

bool LayoutChecker::Table::Fits(std::span<const int> counts) const {
  if (counts.size() != profile_count_) return false;
  for (int n : counts) {
    if (n < 0 || n > 15) return false;
  }
  return valid_.count(EncodeCounts(counts)) > 0;
}

const LayoutChecker::Table* LayoutChecker::ForModel(std::string_view model_id) const {
  auto it = tables_.find(model_id);
  return it == tables_.end() ? nullptr : &it->second;
}

bool LayoutChecker::Fits(const GpuModel& model, const std::vector<std::string>& profiles) const {
  const Table* table = ForModel(model.id);
  std::vector<int> indices;
  if (table == nullptr || !ResolveNames(model, profiles, &indices, nullptr)) return false;
  const std::vector<int> counts = CountsOf(model, indices);
  return table->Fits(counts);
}

}  // namespace kubeon::mig
