// See node_choice.h.
#include "plan/node_choice.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kubeon::plan {
namespace {

// Dollars per hour as whole micro-dollars, so that equal choices compare equal.
int64_t Micro(double usd) { return std::llround(usd * 1e6); }

int64_t ValueWith(const NodeCandidate& n, int gpus) {
  return Micro(HourlyValueFreed(n.gpus_before, n.gpus_staying + gpus, n.gpu_count, n.hourly_price));
}

struct Score {
  int64_t value = std::numeric_limits<int64_t>::min();  // min: infeasible
  int64_t disrupted = 0;
  bool feasible() const { return value != std::numeric_limits<int64_t>::min(); }
  bool BetterThan(const Score& o) const {
    if (!feasible()) return false;
    if (!o.feasible()) return true;
    if (value != o.value) return value > o.value;
    return disrupted < o.disrupted;
  }
};

// Exact: f_t[j] = best score placing j GPUs on nodes t..M-1, computed from the
// last node back, so that reading choices forward gives earlier nodes the
// most GPUs among equal scores (more GPUs are tried first, ties keep them).
NodeChoice Exact(const std::vector<NodeCandidate>& nodes, int wanted) {
  const size_t m = nodes.size();
  const size_t w = static_cast<size_t>(wanted);
  std::vector<uint8_t> choice(m * (w + 1), 0);
  std::vector<Score> next(w + 1), cur(w + 1);
  std::vector<int64_t> value;  // value[b]: the node's ValueWith(n, b), computed once per node
  next[0] = Score{0, 0};
  for (size_t t = m; t-- > 0;) {
    const NodeCandidate& n = nodes[t];
    const size_t capacity = static_cast<size_t>(std::max(0, n.capacity));
    value.resize(std::min(capacity, w) + 1);
    for (size_t b = 0; b < value.size(); ++b) value[b] = ValueWith(n, static_cast<int>(b));
    std::fill(cur.begin(), cur.end(), Score{});
    for (size_t j = 0; j <= w; ++j) {
      const int top = static_cast<int>(std::min(j, capacity));
      for (int b = top; b >= 0; --b) {
        const Score& rest = next[j - static_cast<size_t>(b)];
        if (!rest.feasible()) continue;
        Score s{rest.value + value[static_cast<size_t>(b)], rest.disrupted + (b > 0 ? n.disrupted_pods : 0)};
        if (s.BetterThan(cur[j])) {
          cur[j] = s;
          choice[t * (w + 1) + j] = static_cast<uint8_t>(b);
        }
      }
    }
    std::swap(cur, next);
  }
  NodeChoice out;
  out.gpus.assign(m, 0);
  size_t j = w;
  for (size_t t = 0; t < m; ++t) {
    const int b = choice[t * (w + 1) + j];
    out.gpus[t] = b;
    out.placed += b;
    j -= static_cast<size_t>(b);
  }
  return out;
}

// Greedy for large pools: whole nodes in order of dollars lost per GPU they
// take (then disrupted pods per GPU, then the caller's order); the remainder
// goes to the unused node that loses the least for it.
NodeChoice Greedy(const std::vector<NodeCandidate>& nodes, int wanted) {
  const size_t m = nodes.size();
  struct Rank {
    double loss_per_gpu;
    double disrupted_per_gpu;
    size_t index;
  };
  std::vector<Rank> ranks;
  for (size_t i = 0; i < m; ++i) {
    const NodeCandidate& n = nodes[i];
    if (n.capacity <= 0) continue;
    const double loss = static_cast<double>(ValueWith(n, 0) - ValueWith(n, n.capacity));
    ranks.push_back({loss / n.capacity, static_cast<double>(n.disrupted_pods) / n.capacity, i});
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](const Rank& a, const Rank& b) {
    if (a.loss_per_gpu != b.loss_per_gpu) return a.loss_per_gpu < b.loss_per_gpu;
    if (a.disrupted_per_gpu != b.disrupted_per_gpu) return a.disrupted_per_gpu < b.disrupted_per_gpu;
    return a.index < b.index;
  });
  NodeChoice out;
  out.gpus.assign(m, 0);
  int left = wanted;
  for (const Rank& r : ranks) {
    if (left >= nodes[r.index].capacity) {
      out.gpus[r.index] = nodes[r.index].capacity;
      left -= nodes[r.index].capacity;
    }
  }
  while (left > 0) {
    size_t best = m;
    Score best_score;
    int best_take = 0;
    for (const Rank& r : ranks) {
      const NodeCandidate& n = nodes[r.index];
      if (out.gpus[r.index] != 0) continue;
      const int take = std::min(left, n.capacity);
      Score s{ValueWith(n, take) - ValueWith(n, 0), n.disrupted_pods};
      if (s.BetterThan(best_score)) {
        best_score = s;
        best = r.index;
        best_take = take;
      }
    }
    if (best == m) break;  // every node is full
    out.gpus[best] = best_take;
    left -= best_take;
  }
  out.placed = wanted - left;
  return out;
}

}  // namespace

double HourlyValueFreed(int gpus_before, int gpus_after, int gpu_count, double hourly_price) {
  if (gpus_before > 0 && gpus_after == 0) return hourly_price;
  if (gpu_count <= 0 || gpus_after >= gpus_before) return 0;
  return (gpus_before - gpus_after) * (hourly_price / gpu_count);
}

NodeChoice ChooseNodes(const std::vector<NodeCandidate>& nodes, int wanted) {
  int64_t total = 0;
  int max_capacity = 0;
  for (const auto& n : nodes) {
    total += std::max(0, n.capacity);
    max_capacity = std::max(max_capacity, n.capacity);
  }
  const int placeable = static_cast<int>(std::min<int64_t>(wanted, total));
  const int64_t work = static_cast<int64_t>(nodes.size()) * (placeable + 1) * std::max(1, max_capacity);
  if (max_capacity <= 255 && work <= kExactLimit) return Exact(nodes, placeable);
  return Greedy(nodes, placeable);
}

}  // namespace kubeon::plan
