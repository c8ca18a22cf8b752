// Fewest bins covering a demand vector: the cutting-stock integer program.
//
// A "layout" is a count vector (layout[j] = items of kind j one bin holds).
// The family of valid layouts must be downward closed (removing items from a
// valid layout leaves a valid layout; MIG layouts are, see mig/layout.h), so
// it is described by its maximal members.  The problem is
//   min sum_L x_L   s.t.  sum_L x_L * L >= demand,  x_L >= 0 integer,
// over the maximal layouts L; a covering is trimmed to an exact partition of
// the demand afterwards (TrimToDemand), every trimmed bin staying inside a
// maximal layout and hence valid.
//
// SolveCoverLp solves the LP relaxation exactly enough to give a lower bound:
// it runs the simplex method (Bland's rule, so it terminates) on the dual
//   max demand . y   s.t.  L . y <= 1 for every layout L,  y >= 0,
// whose origin is feasible, so no phase 1 is needed; the primal x is read off
// the final dictionary.  Cost: O(pivots x layouts x kinds), a few microseconds
// for the few dozen maximal MIG layouts of a GPU model.
//
// SolveCover:
//  - pools of at most options.exact_max_items items: branch and bound over the
//    demand vector, iterative deepening from ceil(LP) up to the given upper
//    bound.  The first bin is the one holding an item of the first kind (in
//    options.priority) still demanded; its candidates are the maximal layouts
//    holding that kind, cut to the demand, dominated candidates dropped.
//    Each demand vector visited is memoised with its lower bound (its LP
//    bound, raised to k + 1 once covering it with k bins failed).
//  - larger pools: the LP solution rounded down (floor(x_L) copies of L) plus
//    the residual demand solved by the same exact search (the repair step);
//    the result is within the residual's integrality gap of ceil(LP).
//  - either way the search is limited to options.node_budget nodes
//    (deterministic: a count, not a clock); when the budget runs out the best
//    covering found so far (at worst the caller's upper bound) is returned
//    with optimal = false.
// The result is deterministic for given inputs.
#pragma once

#include <cstdint>
#include <vector>

namespace kubeon::plan {

using CountVector = std::vector<int>;

struct CoverLp {
  double value = 0;        // optimum of the relaxation; 0 for zero demand
  std::vector<double> x;   // per layout (same order as the input), x >= 0
};

// REQUIRES: every layout and the demand have the same size; counts >= 0;
// every kind j with demand[j] > 0 appears in some layout.
CoverLp SolveCoverLp(const std::vector<CountVector>& layouts, const CountVector& demand);

// ceil(value) with a tolerance for floating-point error (value 2.0000001 -> 2).
int CeilBound(double value);

struct CoverOptions {
  std::vector<int> priority;         // every kind, the order items are branched on (largest first)
  std::vector<int64_t> weight;       // per kind: candidates holding more weight are tried first
  int64_t exact_max_items = 400;     // larger pools: LP rounding + exact residual
  int64_t node_budget = 50000;       // search nodes per SolveCover call
};

struct Cover {
  std::vector<CountVector> bins;  // sum of bins == demand; each bin <= some layout
  double lp_bound = 0;            // SolveCoverLp(layouts, demand).value
  int lower_bound = 0;            // proven lower bound on the number of bins
  bool optimal = false;           // bins.size() == lower_bound (proved optimal)
};

// upper: a covering of the demand by bins each inside some layout (e.g. a
// greedy packing); returned (trimmed) when nothing better is found.
// REQUIRES: layouts are the maximal layouts of a downward-closed family over
// the kinds of demand, as SolveCoverLp; options.priority lists every kind
// with demand > 0; options.weight.size() == demand.size().
Cover SolveCover(const std::vector<CountVector>& layouts, const CountVector& demand, const CoverOptions& options,
                 std::vector<CountVector> upper);

// Cuts a covering down to an exact partition of demand: bins in order, each
// takes min(its count, what is still demanded) of every kind; bins left
// empty are dropped.  REQUIRES: the bins together cover demand.
std::vector<CountVector> TrimToDemand(const std::vector<CountVector>& bins, const CountVector& demand);

}  // namespace kubeon::plan
