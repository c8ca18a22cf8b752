// See compute_histogram.h for the contract.
#include "metrics/compute_histogram.h"

#include <algorithm>
#include <cmath>

namespace kubeon::metrics {

int ComputeHistogram::BinOf(double ratio) {
  if (!(ratio > 0)) return 0;  // also maps a (forbidden) NaN to bin 0
  if (ratio >= 1) return kBins - 1;
  int bin = static_cast<int>(ratio * kBins);
  return std::min(bin, kBins - 1);
}

void ComputeHistogram::Add(double ratio) {
  double r = std::clamp(ratio, 0.0, 1.0);
  if (bins_.empty()) bins_.assign(kBins, 0);
  ++bins_[BinOf(r)];
  if (count_ == 0 || r > max_) max_ = r;
  ++count_;
}

void ComputeHistogram::Merge(const ComputeHistogram& other) {
  if (other.count_ == 0) return;
  if (bins_.empty()) bins_.assign(kBins, 0);
  for (int i = 0; i < kBins; ++i) bins_[i] += other.bins_[i];
  if (count_ == 0 || other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
}

void ComputeHistogram::ReinterpretAsPercent(double top) {
  if (count_ == 0) return;
  std::vector<uint64_t> moved(kBins, 0);
  for (int i = 0; i < kBins; ++i) {
    const double upper = i + 1 == kBins ? top : static_cast<double>(i + 1) / kBins;
    moved[BinOf(upper / 100.0)] += bins_[i];
  }
  bins_ = std::move(moved);
  max_ = (max_ >= 1.0 ? top : max_) / 100.0;
}

double ComputeHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  double clamped = std::clamp(q, 0.0, 1.0);
  // Rank ceil(q * n); the tiny relative slack keeps 0.99 * 100 at rank 99
  // although the product may round to 99.00000000000001.
  double x = clamped * static_cast<double>(count_);
  uint64_t rank = static_cast<uint64_t>(std::ceil(x - x * 1e-12));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int i = 0; i < kBins; ++i) {
    seen += bins_[i];
    if (seen >= rank) {
      double upper = static_cast<double>(i + 1) / kBins;
      return std::min(upper, max_);
    }
  }
  return max_;  // unreachable: the bins sum to count_
}

size_t ComputeHistogram::MemoryBytes() const {
  return sizeof(*this) + bins_.capacity() * sizeof(uint64_t);
}

}  // namespace kubeon::metrics
