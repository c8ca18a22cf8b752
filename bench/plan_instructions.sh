#!/bin/bash
# Instructions executed by planning (plan::MakePlan and all it calls), counted
# by valgrind's callgrind: a figure that does not move with the machine's load
# or its page-zeroing speed, so that two builds compare in one number
# (BENCHMARKS.md (b), (g)).  Each build's plan_phases_bench reads DIR
# (gen-cluster's output) and plans once; only MakePlan is counted, or the
# function FUNCTION names (callgrind's --toggle-collect pattern; e.g.
# 'kubeon::model::LoadClusterFile*' for the snapshot parse).
#
#   BUILDS="/tmp/head/bench/plan_phases_bench build/bench/plan_phases_bench" \
#     DIRS="/tmp/i13small /tmp/i13issue" bench/plan_instructions.sh
#
# DIRS default: /tmp/i13issue (gen-cluster --preset scale --nodes 10000
# --gpus-per-node 8 --compact --history-samples 10 --out /tmp/i13issue).
# Under valgrind a 10,000-node plan takes about 3 minutes per build.
set -eu
BUILDS=${BUILDS:-build/bench/plan_phases_bench}
DIRS=${DIRS:-/tmp/i13issue}
FUNCTION=${FUNCTION:-kubeon::plan::MakePlan*}
command -v valgrind > /dev/null || { echo "plan_instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for d in $DIRS; do
  for b in $BUILDS; do
    valgrind --tool=callgrind --callgrind-out-file="$out/cg" --collect-atstart=no \
      --toggle-collect="$FUNCTION" "$b" "$d" json 1 1 > /dev/null 2> "$out/log" ||
      { cat "$out/log" >&2; exit 1; }
    n=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/log")
    printf '%s  %s: %s instructions in %s\n' "$d" "$b" "$n" "$FUNCTION"
  done
done
