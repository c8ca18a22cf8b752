// RefOrder: the order of many WorkloadRefs by WorkloadRef::operator<
// (namespace, then kind, then name; bytes compared unsigned, as
// std::string::compare does), computed without comparing three strings per
// step.
//
// Why: the plan lists its workloads in that order; std::sort of 50,000 refs
// through operator< (three string compares, each a call, on refs scattered
// in memory) took ~60 M of planning's 2,360 M instructions at 80,000 GPUs,
// this 19 M (measured 2026-12-06, bench/HISTORY.md (g)).
//
// How: a cluster has few namespaces and fewer kinds.  Each distinct one is
// ranked once; each ref becomes a fixed-size key (namespace rank, kind rank,
// the name's first 8 bytes as a big-endian number, zero-padded), and whole
// names are compared only when two keys tie.  Zero padding orders a name
// before its extensions ("ab" < "ab-0"), as std::string does.
//
// Contract: RefOrder(refs)[k] is the index in `refs` of the k-th smallest
// ref; refs that compare equal keep their input order (a stable order).
// Pure.  REQUIRES: every pointer is valid.
#pragma once

#include <cstddef>
#include <vector>

#include "model/cluster.h"

namespace kubeon::plan {

std::vector<size_t> RefOrder(const std::vector<const model::WorkloadRef*>& refs);

}  // namespace kubeon::plan
