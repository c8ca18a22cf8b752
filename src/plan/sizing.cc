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

// FormatMiB and FormatPercent appended to *out (they run several times per
// workload: one string is built instead of a temporary per part).
void AppendMiB(std::string* out, int64_t mib) {
  char digits[24];
  const uint64_t magnitude = mib < 0 ? 0 - static_cast<uint64_t>(mib) : static_cast<uint64_t>(mib);
  const std::to_chars_result r = std::to_chars(digits, digits + sizeof(digits), magnitude);
  const size_t n = static_cast<size_t>(r.ptr - digits);
  if (mib < 0) *out += '-';
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) *out += ',';
    *out += digits[i];
  }
  out->append(" MiB");
}

void AppendPercent(std::string* out, double ratio) {
  const double x = ratio * 100.0;
  if (x >= 0 && x < 1e15 && !std::signbit(x)) {
    // Tenths by integer arithmetic: y = 20x is exact in long double (x's 53
    // bits times 5 fit its 64), so the nearest tenth is (floor(y) + 1) / 2,
    // except at an exact half (y an odd integer), left to to_chars below.
    const long double y = static_cast<long double>(x) * 20;
    const auto k = static_cast<int64_t>(y);
    if (static_cast<long double>(k) != y || k % 2 == 0) {
      const int64_t tenths = (k + 1) / 2;
      char buf[24];
      const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf) - 3, tenths / 10);
      char* end = r.ptr;
      *end++ = '.';
      *end++ = static_cast<char>('0' + tenths % 10);
      *end++ = '%';
      out->append(buf, end);
      return;
    }
  }
  // to_chars with a precision prints as printf("%.1f") does, without printf's
  // format parsing.
  char buf[400];  // the longest double in fixed notation, and "%"
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf) - 1, ratio * 100.0, std::chars_format::fixed, 1);
  *r.ptr = '%';
  out->append(buf, r.ptr + 1);
}

// "peak M and C compute; with H headroom it needs M' and C' compute".
std::string Measured(int64_t peak_memory_mib, double peak_compute, int64_t need_memory_mib, double need_compute,
                     const policy::GpuPolicy& policy) {
  std::string s;
  s.reserve(128);
  s.append("peak ");
  AppendMiB(&s, peak_memory_mib);
  s.append(" and ");
  AppendPercent(&s, peak_compute);
  s.append(" compute; with ");
  s.append(policy.headroom_text);
  s.append(" headroom it needs ");
  AppendMiB(&s, need_memory_mib);
  s.append(" and ");
  AppendPercent(&s, need_compute);
  s.append(" compute");
  return s;
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
  std::string out;
  AppendMiB(&out, mib);
  return out;
}

std::string FormatPercent(double ratio) {
  std::string out;
  AppendPercent(&out, ratio);
  return out;
}

MigSizer::MigSizer(const mig::GpuModel& model, const policy::GpuPolicy& policy) : model_(model), policy_(policy) {
  for (const auto& p : model.profiles) {
    if (!policy.AllowsProfile(p.name)) continue;
    if (p.media_extensions && !policy.allowed_profiles_set) continue;  // +me only when asked for
    allowed_.push_back(&p);
  }
}

SizingResult SizeForMig(const mig::GpuModel& model, const policy::GpuPolicy& policy, int64_t peak_memory_mib,
                        double peak_compute) {
  return MigSizer(model, policy).Size(peak_memory_mib, peak_compute);
}

SizingResult MigSizer::Size(int64_t peak_memory_mib, double peak_compute) const {
  const mig::GpuModel& model = model_;
  const policy::GpuPolicy& policy = policy_;
  SizingResult r;
  r.need_memory_mib = WithHeadroom(peak_memory_mib, policy.headroom);
  r.need_compute = peak_compute * (1.0 + policy.headroom);
  const mig::MigProfile* best = nullptr;
  const mig::MigProfile* largest_allowed = nullptr;
  for (const mig::MigProfile* allowed : allowed_) {
    const mig::MigProfile& p = *allowed;
    if (!largest_allowed || p.memory_mib > largest_allowed->memory_mib) largest_allowed = &p;
    const double share = static_cast<double>(p.compute_slices) / model.compute_slices;
    if (p.memory_mib < r.need_memory_mib || share + 1e-9 < r.need_compute) continue;
    auto key = [](const mig::MigProfile* x) { return std::make_tuple(x->memory_slices, x->compute_slices, x->memory_mib); };
    if (!best || key(&p) < key(best)) best = &p;
  }
  std::string measured = Measured(peak_memory_mib, peak_compute, r.need_memory_mib, r.need_compute, policy);
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
  r.reason = std::move(measured);
  r.reason.append(" -> ");
  r.reason.append(best->name);
  r.reason.append(" (");
  AppendMiB(&r.reason, best->memory_mib);
  r.reason.append(", ");
  r.reason.append(std::to_string(best->compute_slices));
  r.reason += '/';
  r.reason.append(std::to_string(model.compute_slices));
  r.reason.append(" compute)");
  return r;
}

SizingResult SizeForTimeSlicing(int64_t gpu_memory_mib, const policy::GpuPolicy& policy, int64_t peak_memory_mib,
                                double peak_compute) {
  SizingResult r;
  r.need_memory_mib = WithHeadroom(peak_memory_mib, policy.headroom);
  r.need_compute = peak_compute * (1.0 + policy.headroom);
  const std::string measured = Measured(peak_memory_mib, peak_compute, r.need_memory_mib, r.need_compute, policy);
  if (r.need_memory_mib >= gpu_memory_mib || r.need_compute >= 1.0 - 1e-9) {
    r.reason = "busy: " + measured + ", the whole " + FormatMiB(gpu_memory_mib) + " GPU";
    return r;
  }
  r.decision = Decision::kTimeSlicing;
  r.reason = measured + " of a " + FormatMiB(gpu_memory_mib) + " GPU";
  return r;
}

}  // namespace kubeon::plan
