// Sizing: which slice one workload needs, from its measured peaks.
//
// Rules (DESIGN.md "Rules the planner follows"):
//  - need_memory = peak memory x (1 + headroom); need_compute = peak compute x (1 + headroom).
//  - MIG: the smallest profile allowed by the policy and defined for the model
//    whose memory >= need_memory and whose compute share (compute slices /
//    model compute slices) >= need_compute; "smallest" orders by memory
//    slices, then compute slices, then memory.  A profile that is the whole
//    GPU (all compute and memory slices) is no saving: the workload is busy.
//  - Time-slicing: the workload fits if need_memory < GPU memory and
//    need_compute < 1; the packer then decides how many share a GPU.
// Pure: no I/O.  Reasons are full sentences a reviewer can check by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mig/catalog.h"
#include "plan/plan.h"
#include "policy/gpu_policy.h"

namespace kubeon::plan {

struct SizingResult {
  Decision decision = Decision::kUnchanged;
  const mig::MigProfile* profile = nullptr;  // when kMig
  int64_t need_memory_mib = 0;
  double need_compute = 0;
  std::string reason;
};

// SizeForMig for one model under one policy, the profiles the policy allows
// picked once (a planner sizes every workload of a pool against one pair).
// REQUIRES: model and policy outlive the sizer.
class MigSizer {
 public:
  MigSizer(const mig::GpuModel& model, const policy::GpuPolicy& policy);
  // As SizeForMig(model, policy, peak_memory_mib, peak_compute).
  SizingResult Size(int64_t peak_memory_mib, double peak_compute) const;
  const mig::GpuModel& model() const { return model_; }

 private:
  const mig::GpuModel& model_;
  const policy::GpuPolicy& policy_;
  std::vector<const mig::MigProfile*> allowed_;  // in the model's order
};

// REQUIRES: peak_memory_mib >= 0, 0 <= peak_compute, gpu_memory_mib > 0.
SizingResult SizeForMig(const mig::GpuModel& model, const policy::GpuPolicy& policy, int64_t peak_memory_mib,
                        double peak_compute);
SizingResult SizeForTimeSlicing(int64_t gpu_memory_mib, const policy::GpuPolicy& policy, int64_t peak_memory_mib,
                                double peak_compute);

// Helpers shared with the report: "4,864 MiB", "12.5%".
std::string FormatMiB(int64_t mib);
std::string FormatPercent(double ratio);

}  // namespace kubeon::plan
