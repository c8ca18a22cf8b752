// See sizing.h.
#include "plan/sizing.h"

#include <charconv>
#include <cmath>

namespace kubeon::plan {
namespace {

int64_t WithHeadroom(int64_t mib, double headroom) {
  return static_cast<int64_t>(std::ceil(static_cast<double>(mib) * (1.0 + headroom)));
}

bool IsWholeGpu(const mig::GpuModel& model, const mig::MigProfile& p) {
  return p.compute_slices >= model.compute_slices && p.memory_slices >= model.memory_slices;
}

std::string Needs(int64_t mem, double compute, const policy::GpuPolicy& policy) {
  return "with " + policy.headroom_text + " headroom it needs " + FormatMiB(mem) + " and " + FormatPercent(compute) +
         " compute";
}

}  // namespace

const char* DecisionName(Decision d) {
  switch (d) {
    case Decision::kMig:
      return "mig";
    case Decision::kTimeSlicing:
      return "time-slicing";
    case Decision::kUnchanged:
      return "unchanged";
  }
  return "unchanged";
}

std::string FormatMiB(int64_t mib) {
  std::string digits = std::to_string(mib < 0 ? -mib : mib);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (mib < 0 ? "-" : "") + out + " MiB";
}

std::string FormatPercent(double ratio) {
  // to_chars with a precision prints as printf("%.1f") does, without printf's
  // format parsing (it runs per workload).
  char buf[400];  // the longest double in fixed notation, and "%"
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf) - 1, ratio * 100.0, std::chars_format::fixed, 1);
  *r.ptr = '%';
  return std::string(buf, r.ptr + 1);
}

SizingResult SizeForMig(const mig::GpuModel& model, const policy::GpuPolicy& policy, int64_t peak_memory_mib,
                        double peak_compute) {
  SizingResult r;
  r.need_memory_mib = WithHeadroom(peak_memory_mib, policy.headroom);
  r.need_compute = peak_compute * (1.0 + policy.headroom);
  const mig::MigProfile* best = nullptr;
  const mig::MigProfile* largest_allowed = nullptr;
  for (const auto& p : model.profiles) {
    if (!policy.AllowsProfile(p.name)) continue;
    if (p.media_extensions && !policy.allowed_profiles_set) continue;  // +me only when asked for
    if (!largest_allowed || p.memory_mib > largest_allowed->memory_mib) largest_allowed = &p;
    const double share = static_cast<double>(p.compute_slices) / model.compute_slices;
    if (p.memory_mib < r.need_memory_mib || share + 1e-9 < r.need_compute) continue;
    auto key = [](const mig::MigProfile* x) { return std::make_tuple(x->memory_slices, x->compute_slices, x->memory_mib); };
    if (!best || key(&p) < key(best)) best = &p;
  }
  const std::string measured = "peak " + FormatMiB(peak_memory_mib) + " and " + FormatPercent(peak_compute) +
                               " compute; " + Needs(r.need_memory_mib, r.need_compute, policy);
  if (r.need_compute > 1.0 + 1e-9 || r.need_memory_mib > model.memory_mib) {
    r.reason = "busy: " + measured + ", more than a whole " + model.id;
    return r;
  }
  if (!best) {
    r.reason = "no allowed MIG profile is big enough: " + measured +
               (largest_allowed ? "; the largest allowed on " + model.id + " is " + largest_allowed->name + " (" +
                                      FormatMiB(largest_allowed->memory_mib) + ")"
                                : "; the policy allows no profile of " + model.id);
    return r;
  }
  if (IsWholeGpu(model, *best)) {
    r.reason = "busy: " + measured + "; only the whole GPU (" + best->name + ") fits";
    return r;
  }
  r.decision = Decision::kMig;
  r.profile = best;
  r.reason = measured + " -> " + best->name + " (" + FormatMiB(best->memory_mib) + ", " +
             std::to_string(best->compute_slices) + "/" + std::to_string(model.compute_slices) + " compute)";
  return r;
}

SizingResult SizeForTimeSlicing(int64_t gpu_memory_mib, const policy::GpuPolicy& policy, int64_t peak_memory_mib,
                                double peak_compute) {
  SizingResult r;
  r.need_memory_mib = WithHeadroom(peak_memory_mib, policy.headroom);
  r.need_compute = peak_compute * (1.0 + policy.headroom);
  const std::string measured = "peak " + FormatMiB(peak_memory_mib) + " and " + FormatPercent(peak_compute) +
                               " compute; " + Needs(r.need_memory_mib, r.need_compute, policy);
  if (r.need_memory_mib >= gpu_memory_mib || r.need_compute >= 1.0 - 1e-9) {
    r.reason = "busy: " + measured + ", the whole " + FormatMiB(gpu_memory_mib) + " GPU";
    return r;
  }
  r.decision = Decision::kTimeSlicing;
  r.reason = measured + " of a " + FormatMiB(gpu_memory_mib) + " GPU";
  return r;
}

}  // namespace kubeon::plan
