#!/usr/bin/env bash
# Compares DCGM history ingest with `wc -l` on the same file (target: ingest
# within 2x of wc -l, BENCHMARKS.md (a)).
#
#   bench/ingest_vs_wc.sh [BUILD_DIR]
#
# Environment: SERIES (default 2000) x SAMPLES (default 10000) = 20 M samples;
# FORMAT openmetrics|csv; ORDER series|time; FILE (default
# /tmp/kubeon-ingest-<SERIES>x<SAMPLES>-<FORMAT>-<ORDER>.<ext>, kept for
# reruns; REGEN=1 rewrites it); RUNS (best of, default 3); THREADS (the
# ingest's IngestOptions::threads: 0 = all cores, the default; 1 = one thread).
# Both commands read the file from the page cache (one warm-up read first);
# the ingest runs BM_ReadHistoryFile of ingest_bench for one iteration
# (1 MiB read() buffer, the full parser and per-pod summaries), its History
# left to the exit as `plan` leaves it (KUBEON_INGEST_KEEP=1; KEEP=0 frees
# it before the exit instead).  Printed:
# wall and CPU (user+sys) seconds of each, and the ratios.
set -euo pipefail

BUILD=${1:-${BUILD:-build}}
SERIES=${SERIES:-2000}
SAMPLES=${SAMPLES:-10000}
FORMAT=${FORMAT:-openmetrics}
ORDER=${ORDER:-series}
RUNS=${RUNS:-3}
ext=om
[[ $FORMAT == csv ]] && ext=csv
FILE=${FILE:-/tmp/kubeon-ingest-${SERIES}x${SAMPLES}-${FORMAT}-${ORDER}.${ext}}

GEN=$BUILD/tools/gen-history/gen-history
BENCH=$BUILD/bench/ingest_bench
for b in "$GEN" "$BENCH"; do
  [[ -x $b ]] || { echo "missing $b: build gen-history and ingest_bench first" >&2; exit 2; }
done

if [[ ! -s $FILE || ${REGEN:-0} == 1 ]]; then
  echo "generating $FILE ($SERIES series x $SAMPLES samples, $FORMAT, $ORDER order)"
  "$GEN" --series "$SERIES" --samples-per-series "$SAMPLES" --interval 30 \
    --format "$FORMAT" --order "$ORDER" --out "$FILE"
fi
bytes=$(stat -c %s "$FILE")
cat "$FILE" >/dev/null  # warm the page cache

# best_of CMD...: prints "wall cpu" of the fastest (by wall) of RUNS runs.
best_of() {
  local best_wall="" best_cpu="" out wall user sys
  for ((i = 0; i < RUNS; i++)); do
    out=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1)
    read -r wall user sys <<<"$out"
    if [[ -z $best_wall ]] || awk -v a="$wall" -v b="$best_wall" 'BEGIN{exit !(a<b)}'; then
      best_wall=$wall
      best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.3f", u+s}')
    fi
  done
  echo "$best_wall $best_cpu"
}

read -r wc_wall wc_cpu <<<"$(best_of wc -l "$FILE")"
read -r in_wall in_cpu <<<"$(best_of env KUBEON_INGEST_FILE="$FILE" KUBEON_INGEST_THREADS="${THREADS:-0}" KUBEON_INGEST_KEEP="${KEEP:-1}" "$BENCH" \
  --benchmark_filter='^BM_ReadHistoryFile' --benchmark_min_time=0.01)"
lines=$(wc -l <"$FILE")

awk -v f="$FILE" -v bytes="$bytes" -v lines="$lines" -v ww="$wc_wall" -v wcpu="$wc_cpu" \
  -v iw="$in_wall" -v icpu="$in_cpu" 'BEGIN {
  printf "file:    %s  (%.2f GiB, %d lines)\n", f, bytes / 2^30, lines
  printf "wc -l:   %6.2f s wall  %6.2f s cpu  (%.2f GiB/s wall)\n", ww, wcpu, bytes / 2^30 / ww
  printf "ingest:  %6.2f s wall  %6.2f s cpu  (%.2f GiB/s, %.1f M lines/s wall)\n", iw, icpu, bytes / 2^30 / iw, lines / iw / 1e6
  printf "ratio ingest / wc -l: %.2fx wall, %.2fx cpu\n", iw / ww, icpu / wcpu
}'
