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

void ComputeHistogram::AddBin(int bin) {
  if (bins_.empty() && small_.size() < static_cast<size_t>(kSmallSamples)) {
    // Room for a short history (10 samples a series is common) at once,
    // not 1, 2, 4, 8 and 16.
    if (small_.empty()) small_.reserve(kFirstSmallCapacity);
    small_.push_back(static_cast<uint16_t>(bin));
    return;
  }
  UseCounters();
  ++bins_[bin];
}

void ComputeHistogram::UseCounters() {
  if (!bins_.empty()) return;
  bins_.assign(kBins, 0);
  for (uint16_t b : small_) ++bins_[b];
  std::vector<uint16_t>().swap(small_);  // frees the small representation
}

void ComputeHistogram::Add(double ratio) {
  double r = std::clamp(ratio, 0.0, 1.0);
  AddBin(BinOf(r));
  if (count_ == 0 || r > max_) max_ = r;
  ++count_;
}

void ComputeHistogram::Merge(const ComputeHistogram& other) {
  if (other.count_ == 0) return;
  if (other.bins_.empty()) {
    for (uint16_t b : other.small_) AddBin(b);
  } else {
    UseCounters();
    for (int i = 0; i < kBins; ++i) bins_[i] += other.bins_[i];
  }
  if (count_ == 0 || other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
}

void ComputeHistogram::ReinterpretAsPercent(double top) {
  if (count_ == 0) return;
  // Bin i moves to the bin of its upper edge / 100 (the last bin: top / 100).
  auto moved_bin = [top](int i) {
    const double upper = i + 1 == kBins ? top : static_cast<double>(i + 1) / kBins;
    return BinOf(upper / 100.0);
  };
  if (bins_.empty()) {
    for (uint16_t& b : small_) b = static_cast<uint16_t>(moved_bin(b));
  } else {
    std::vector<uint64_t> moved(kBins, 0);
    for (int i = 0; i < kBins; ++i) moved[moved_bin(i)] += bins_[i];
    bins_ = std::move(moved);
  }
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
  int bin = kBins - 1;
  if (bins_.empty()) {
    std::vector<uint16_t> sorted = small_;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<ptrdiff_t>(rank - 1), sorted.end());
    bin = sorted[rank - 1];
  } else {
    uint64_t seen = 0;
    for (int i = 0; i < kBins; ++i) {
      seen += bins_[i];
      if (seen >= rank) {
        bin = i;
        break;
      }
    }
  }
  const double upper = static_cast<double>(bin + 1) / kBins;
  return std::min(upper, max_);
}

size_t ComputeHistogram::MemoryBytes() const {
  return sizeof(*this) + small_.capacity() * sizeof(uint16_t) + bins_.capacity() * sizeof(uint64_t);
}

}  // namespace kubeon::metrics
