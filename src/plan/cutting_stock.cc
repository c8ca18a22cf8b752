// See cutting_stock.h.
#include "plan/cutting_stock.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace kubeon::plan {
namespace {

constexpr double kEps = 1e-9;

struct VectorHash {
  size_t operator()(const CountVector& v) const {
    uint64_t h = 1469598103934665603ull;
    for (int c : v) h = (h ^ static_cast<uint64_t>(static_cast<uint32_t>(c))) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

bool IsZero(const CountVector& v) {
  return std::all_of(v.begin(), v.end(), [](int c) { return c == 0; });
}

int64_t Total(const CountVector& v) {
  int64_t n = 0;
  for (int c : v) n += c;
  return n;
}

// True when a <= b componentwise.
bool Within(const CountVector& a, const CountVector& b) {
  for (size_t j = 0; j < a.size(); ++j) {
    if (a[j] > b[j]) return false;
  }
  return true;
}

// Branch and bound over demand vectors (see the header).
class Search {
 public:
  Search(const std::vector<CountVector>& layouts, const CoverOptions& options, int64_t budget)
      : layouts_(layouts), options_(options), budget_(budget) {}

  // Covers d with at most k bins, appending them to *out; false when it
  // cannot (or when the budget ran out: see aborted()).
  bool Feasible(const CountVector& d, int k, std::vector<CountVector>* out) {
    if (IsZero(d)) return true;
    if (k <= 0 || aborted_) return false;
    if (LowerBound(d) > k) return false;
    if (++nodes_ > budget_) {
      aborted_ = true;
      return false;
    }
    for (const CountVector& c : Candidates(d)) {
      CountVector rest = d;
      for (size_t j = 0; j < d.size(); ++j) rest[j] -= c[j];
      if (Feasible(rest, k - 1, out)) {
        out->push_back(c);
        return true;
      }
      if (aborted_) return false;
    }
    int& lb = memo_[d];
    lb = std::max(lb, k + 1);
    return false;
  }

  int LowerBound(const CountVector& d) {
    auto it = memo_.find(d);
    if (it != memo_.end()) return it->second;
    const int lb = CeilBound(SolveCoverLp(layouts_, d).value);
    memo_.emplace(d, lb);
    return lb;
  }

  bool aborted() const { return aborted_; }
  int64_t nodes() const { return nodes_; }

 private:
  // The bins that may hold the first demanded item of the priority order,
  // cut to d, without duplicates or dominated ones, heaviest first.
  std::vector<CountVector> Candidates(const CountVector& d) const {
    int first = -1;
    for (int j : options_.priority) {
      if (d[static_cast<size_t>(j)] > 0) {
        first = j;
        break;
      }
    }
    std::vector<CountVector> cut;
    if (first < 0) return cut;
    for (const CountVector& l : layouts_) {
      if (l[static_cast<size_t>(first)] == 0) continue;
      CountVector c(d.size());
      for (size_t j = 0; j < d.size(); ++j) c[j] = std::min(l[j], d[j]);
      cut.push_back(std::move(c));
    }
    std::sort(cut.begin(), cut.end());
    cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
    std::vector<CountVector> kept;
    for (size_t a = 0; a < cut.size(); ++a) {
      bool dominated = false;
      for (size_t b = 0; b < cut.size() && !dominated; ++b) dominated = b != a && Within(cut[a], cut[b]);
      if (!dominated) kept.push_back(cut[a]);
    }
    auto weight = [&](const CountVector& c) {
      int64_t w = 0;
      for (size_t j = 0; j < c.size(); ++j) w += c[j] * options_.weight[j];
      return w;
    };
    std::stable_sort(kept.begin(), kept.end(),
                     [&](const CountVector& a, const CountVector& b) { return weight(a) > weight(b); });
    return kept;
  }

  const std::vector<CountVector>& layouts_;
  const CoverOptions& options_;
  const int64_t budget_;
  int64_t nodes_ = 0;
  bool aborted_ = false;
  std::unordered_map<CountVector, int, VectorHash> memo_;  // demand -> proven lower bound
};

// Exact search for d from its LP bound up to (excluding) upper.size() bins.
// Returns the bins found (or upper), setting *optimal when proved.
std::vector<CountVector> SearchExact(const std::vector<CountVector>& layouts, const CountVector& d,
                                     const CoverOptions& options, int64_t budget, std::vector<CountVector> upper,
                                     bool* optimal) {
  Search search(layouts, options, budget);
  *optimal = false;
  const int ub = static_cast<int>(upper.size());
  for (int k = search.LowerBound(d); k < ub; ++k) {
    std::vector<CountVector> bins;
    if (search.Feasible(d, k, &bins)) {
      *optimal = true;  // every smaller k failed, or k is the LP bound
      std::reverse(bins.begin(), bins.end());
      return bins;
    }
    if (search.aborted()) return upper;
  }
  *optimal = true;  // every k below the upper bound is infeasible
  return upper;
}

}  // namespace

int CeilBound(double value) { return static_cast<int>(std::ceil(value - 1e-6)); }

CoverLp SolveCoverLp(const std::vector<CountVector>& layouts, const CountVector& demand) {
  CoverLp out;
  out.x.assign(layouts.size(), 0.0);
  std::vector<int> kinds;  // dual variables: kinds with demand
  for (size_t j = 0; j < demand.size(); ++j) {
    if (demand[j] > 0) kinds.push_back(static_cast<int>(j));
  }
  if (kinds.empty()) return out;
  const size_t m = layouts.size();
  const size_t n = kinds.size();
  // Dictionary: basic[r] = rhs[r] + sum_c a[r][c] * var nonbasic[c];
  //             z = z0 + sum_c cost[c] * var nonbasic[c].
  // Variable ids: 0..n-1 dual y (per kind), n..n+m-1 slack of layout row.
  std::vector<double> rhs(m, 1.0);
  std::vector<double> a(m * n);
  for (size_t r = 0; r < m; ++r) {
    for (size_t c = 0; c < n; ++c) a[r * n + c] = -static_cast<double>(layouts[r][static_cast<size_t>(kinds[c])]);
  }
  std::vector<double> cost(n);
  for (size_t c = 0; c < n; ++c) cost[c] = static_cast<double>(demand[static_cast<size_t>(kinds[c])]);
  double z = 0;
  std::vector<size_t> basic(m), nonbasic(n);
  for (size_t r = 0; r < m; ++r) basic[r] = n + r;
  for (size_t c = 0; c < n; ++c) nonbasic[c] = c;
  std::vector<double> pivot_row(n);
  for (;;) {
    // Bland's rule: the improving variable with the smallest id enters ...
    size_t enter = n;
    for (size_t c = 0; c < n; ++c) {
      if (cost[c] > kEps && (enter == n || nonbasic[c] < nonbasic[enter])) enter = c;
    }
    if (enter == n) break;
    // ... and the tightest row with the smallest basic id leaves.
    size_t leave = m;
    double best = std::numeric_limits<double>::infinity();
    for (size_t r = 0; r < m; ++r) {
      const double coef = a[r * n + enter];
      if (coef >= -kEps) continue;
      const double ratio = rhs[r] / -coef;
      if (leave == m || ratio < best - kEps || (ratio <= best + kEps && basic[r] < basic[leave])) {
        best = std::min(best, ratio);
        leave = r;
      }
    }
    if (leave == m) {  // unbounded: some demanded kind is in no layout (REQUIRES violated)
      out.value = std::numeric_limits<double>::infinity();
      return out;
    }
    // Solve row `leave` for the entering variable.
    const double p = a[leave * n + enter];
    const double new_rhs = -rhs[leave] / p;
    for (size_t c = 0; c < n; ++c) pivot_row[c] = c == enter ? 1.0 / p : -a[leave * n + c] / p;
    rhs[leave] = std::max(0.0, new_rhs);
    for (size_t c = 0; c < n; ++c) a[leave * n + c] = pivot_row[c];
    for (size_t r = 0; r < m; ++r) {
      if (r == leave) continue;
      const double f = a[r * n + enter];
      if (f == 0) continue;
      rhs[r] = std::max(0.0, rhs[r] + f * new_rhs);
      for (size_t c = 0; c < n; ++c) {
        const double v = c == enter ? f * pivot_row[c] : a[r * n + c] + f * pivot_row[c];
        a[r * n + c] = std::abs(v) < 1e-12 ? 0.0 : v;
      }
    }
    const double f = cost[enter];
    z += f * new_rhs;
    for (size_t c = 0; c < n; ++c) {
      const double v = c == enter ? f * pivot_row[c] : cost[c] + f * pivot_row[c];
      cost[c] = std::abs(v) < 1e-12 ? 0.0 : v;
    }
    std::swap(basic[leave], nonbasic[enter]);
  }
  out.value = z;
  for (size_t c = 0; c < n; ++c) {
    if (nonbasic[c] >= n) out.x[nonbasic[c] - n] = std::max(0.0, -cost[c]);
  }
  return out;
}

std::vector<CountVector> TrimToDemand(const std::vector<CountVector>& bins, const CountVector& demand) {
  CountVector left = demand;
  std::vector<CountVector> out;
  for (const CountVector& b : bins) {
    CountVector c(demand.size());
    for (size_t j = 0; j < demand.size(); ++j) {
      c[j] = std::min(b[j], left[j]);
      left[j] -= c[j];
    }
    if (!IsZero(c)) out.push_back(std::move(c));
  }
  return out;
}

Cover SolveCover(const std::vector<CountVector>& layouts, const CountVector& demand, const CoverOptions& options,
                 std::vector<CountVector> upper) {
  Cover cover;
  upper = TrimToDemand(upper, demand);
  if (IsZero(demand)) {
    cover.optimal = true;
    return cover;
  }
  const CoverLp lp = SolveCoverLp(layouts, demand);
  cover.lp_bound = lp.value;
  cover.lower_bound = CeilBound(lp.value);
  bool optimal = false;
  if (Total(demand) <= options.exact_max_items) {
    cover.bins = SearchExact(layouts, demand, options, options.node_budget, std::move(upper), &optimal);
    if (optimal) cover.lower_bound = static_cast<int>(cover.bins.size());
  } else {
    // LP rounding: floor(x_L) copies of every layout, then the residual.
    std::vector<CountVector> rounded;
    CountVector residual = demand;
    for (size_t l = 0; l < layouts.size(); ++l) {
      const auto copies = static_cast<int64_t>(std::floor(lp.x[l] + 1e-7));
      for (int64_t k = 0; k < copies; ++k) {
        rounded.push_back(layouts[l]);
        for (size_t j = 0; j < residual.size(); ++j) residual[j] = std::max(0, residual[j] - layouts[l][j]);
      }
    }
    // The repair: the residual solved exactly, starting from a greedy cover
    // of it (one maximal layout cut to what is left, repeatedly).
    std::vector<CountVector> greedy;
    CountVector left = residual;
    while (!IsZero(left)) {
      size_t best = 0;
      int64_t best_w = -1;
      for (size_t l = 0; l < layouts.size(); ++l) {
        int64_t w = 0;
        for (size_t j = 0; j < left.size(); ++j) w += std::min(layouts[l][j], left[j]) * options.weight[j];
        if (w > best_w) {
          best_w = w;
          best = l;
        }
      }
      greedy.push_back(layouts[best]);
      for (size_t j = 0; j < left.size(); ++j) left[j] = std::max(0, left[j] - layouts[best][j]);
    }
    bool residual_optimal = false;
    std::vector<CountVector> rest =
        SearchExact(layouts, residual, options, options.node_budget, TrimToDemand(greedy, residual), &residual_optimal);
    rounded.insert(rounded.end(), rest.begin(), rest.end());
    if (rounded.size() <= upper.size()) {
      cover.bins = TrimToDemand(rounded, demand);
    } else {
      cover.bins = std::move(upper);
    }
  }
  cover.optimal = static_cast<int>(cover.bins.size()) == cover.lower_bound;
  return cover;
}

}  // namespace kubeon::plan
