// ComputeHistogram: a fixed-size histogram of compute-utilisation ratios.
//
// Contract:
//   * Values are ratios in [0, 1] (DCGM_FI_PROF_GR_ENGINE_ACTIVE, or
//     DCGM_FI_DEV_GPU_UTIL / 100).  Values above 1 are clamped to 1 (DCGM
//     reports 1.0000001 now and then).  Negative values and NaN are the
//     reader's job to reject; Add() REQUIRES 0 <= ratio.
//   * kBins equal-width bins: bin i holds [i/kBins, (i+1)/kBins), the last bin
//     also holds 1.0.  The exact maximum and the sample count are kept beside
//     the bins.
//   * Quantile(q) is conservative: it returns the UPPER edge of the bin that
//     holds the sample of rank ceil(q * count) (1-based, at least 1), capped at
//     the exact maximum.  So for the exact q-quantile x of the samples added,
//     x <= Quantile(q) <= x + 1/kBins.
//   * Memory is bounded, independent of the number of samples: up to
//     kSmallSamples samples are kept as their bin numbers (2 bytes each; a
//     dcgm-exporter history of a few days has tens of samples per pod), then
//     as kBins counters (kBins * 8 bytes), never more.  MemoryBytes() <=
//     kMaxMemoryBytes.  Quantile(), max() and count() do not depend on the
//     representation (both hold the same bins).
//   * Merge() of two histograms equals adding both sample sets to one.
//   * ReinterpretAsPercent(top) re-reads every sample added so far as a
//     percentage (value / 100), for a series found to be exported in percent
//     after some of its samples were added: each sample moves to the bin of
//     its old bin's upper edge / 100 (never lower than the exact value), and
//     samples clamped at 1 are taken as `top` percent (the caller's bound on
//     what it added unconverted).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kubeon::metrics {

class ComputeHistogram {
 public:
  static constexpr int kBins = 400;
  static constexpr double kBinWidth = 1.0 / kBins;
  static constexpr int kSmallSamples = 64;
  static constexpr size_t kFirstSmallCapacity = 16;  // the small form's first allocation

  // REQUIRES: ratio >= 0 (NaN is not allowed).
  void Add(double ratio);
  void Merge(const ComputeHistogram& other);
  // REQUIRES: top >= 1; every sample added so far was at most top.
  void ReinterpretAsPercent(double top);
  // REQUIRES: 0 <= q <= 1.  Returns 0 when count() == 0.
  double Quantile(double q) const;
  // Exact maximum of the (clamped) samples; 0 when count() == 0.
  double max() const { return max_; }
  uint64_t count() const { return count_; }
  // Bytes held by this histogram, bins included (for memory tests).
  size_t MemoryBytes() const;
  static const size_t kMaxMemoryBytes;  // defined below the class

  // Index of the bin holding ratio (clamped to [0, 1]).
  static int BinOf(double ratio);

 private:
  // Moves the samples from small_ into kBins counters (once).
  void UseCounters();
  void AddBin(int bin);

  // Exactly one representation holds the samples: small_ (bin numbers, at
  // most kSmallSamples) while bins_ is empty, else bins_ (kBins counters).
  std::vector<uint16_t> small_;
  std::vector<uint64_t> bins_;
  uint64_t count_ = 0;
  double max_ = 0;
};

inline constexpr size_t ComputeHistogram::kMaxMemoryBytes =
    sizeof(ComputeHistogram) + ComputeHistogram::kBins * sizeof(uint64_t);

}  // namespace kubeon::metrics
