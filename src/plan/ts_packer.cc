// See ts_packer.h.
#include "plan/ts_packer.h"

#include <algorithm>
#include <functional>

namespace kubeon::plan {
namespace {

template <typename T>
void InsertTop(std::vector<T>* desc, T v, size_t keep) {
  desc->insert(std::upper_bound(desc->begin(), desc->end(), v, std::greater<T>()), v);
  if (desc->size() > keep) desc->pop_back();
}

}  // namespace

TsNodeFill::TsNodeFill(int gpus, int64_t gpu_memory_mib, int max_replicas)
    : gpus_(gpus), gpu_memory_mib_(gpu_memory_mib), max_replicas_(max_replicas) {}

int TsNodeFill::MaxSafeReplicas(const std::vector<int64_t>& mem_desc, const std::vector<double>& compute_desc) const {
  constexpr double kEps = 1e-9;
  int64_t mem = 0;
  double compute = 0;
  int r = 0;
  for (int k = 0; k < max_replicas_; ++k) {
    if (k < static_cast<int>(mem_desc.size())) mem += mem_desc[k];
    if (k < static_cast<int>(compute_desc.size())) compute += compute_desc[k];
    if (mem > gpu_memory_mib_ || compute > 1.0 + kEps) break;
    r = k + 1;
  }
  return r;
}

bool TsNodeFill::TryAdd(int index, const TsItem& item) {
  std::vector<int64_t> mem = mem_desc_;
  std::vector<double> compute = compute_desc_;
  InsertTop(&mem, item.memory_mib, static_cast<size_t>(max_replicas_));
  InsertTop(&compute, item.compute, static_cast<size_t>(max_replicas_));
  const int r = MaxSafeReplicas(mem, compute);
  const int64_t count = static_cast<int64_t>(items_.size()) + 1;
  if (r < 1 || count > static_cast<int64_t>(gpus_) * r) return false;
  items_.push_back(index);
  mem_desc_ = std::move(mem);
  compute_desc_ = std::move(compute);
  return true;
}

int TsNodeFill::replicas() const {
  if (items_.empty()) return 0;
  const int n = static_cast<int>(items_.size());
  return std::max(1, (n + gpus_ - 1) / gpus_);
}

int TsNodeFill::gpus_used() const { return std::min(gpus_, static_cast<int>(items_.size())); }

}  // namespace kubeon::plan
