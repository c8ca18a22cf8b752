#!/usr/bin/env bash
# Peaks of GPUS GPUs x DAYS days at 30 s from a real Prometheus:
# ReadPrometheusHistory (server-side PromQL, a handful of queries) against a
# naive client downloading every pod's samples with query_range.
#
#   bench/prometheus_vs_naive.sh [BUILD_DIR]
#
# BUILD_DIR needs tools/gen-history/gen-history and bench/prometheus_bench
# (cmake -DKUBEON_BENCH=ON; cmake --build BUILD --target gen-history prometheus_bench).
# Environment: GPUS (default 2000), DAYS (default 2), WORK (default
# /tmp/kubeon-prometheus-bench-<GPUS>x<DAYS>d: the TSDB is kept there for
# reruns; REGEN=1 rebuilds it), PORT (default 19090).
#
# Data: gen-history writes 4 series per GPU (FB_USED, FB_FREE,
# GR_ENGINE_ACTIVE, GPU_UTIL or DRAM_ACTIVE on MIG slices; 10% idle GPUs, 20%
# MIG slices, 2 pods per workload), 2 hours at a time (promtool re-parses
# its whole input once per 2-hour block, so one file per block keeps the
# backfill linear); every 2-hour chunk holds the same values (gen-history's
# values depend on the sample index), which does not change the cost of
# either reader.  Prometheus runs with its defaults (--query.max-samples
# 50M, --query.timeout 2m) after compacting the backfilled blocks.
set -euo pipefail

BUILD=${1:-${BUILD:-build}}
GPUS=${GPUS:-2000}
DAYS=${DAYS:-2}
PORT=${PORT:-19090}
WORK=${WORK:-/tmp/kubeon-prometheus-bench-${GPUS}x${DAYS}d}
SCRAPE=30
START=1793527200  # 2026-11-01T10:00:00Z
CHUNK_S=7200

GEN=$BUILD/tools/gen-history/gen-history
BENCH=$BUILD/bench/prometheus_bench
for b in "$GEN" "$BENCH" /usr/bin/prometheus /usr/bin/promtool; do
  [[ -x $b ]] || { echo "missing $b" >&2; exit 2; }
done

mkdir -p "$WORK"
if [[ ! -f $WORK/data/complete || ${REGEN:-0} == 1 ]]; then
  rm -rf "$WORK/data"
  chunks=$((DAYS * 86400 / CHUNK_S))
  echo "backfilling $GPUS GPUs x $DAYS days at ${SCRAPE}s: $chunks chunks of 2h into $WORK/data"
  t0=$(date +%s)
  for ((c = 0; c < chunks; c++)); do
    "$GEN" --series $((GPUS * 4)) --samples-per-series $((CHUNK_S / SCRAPE)) --interval $SCRAPE \
      --start $((START + c * CHUNK_S)) --order time --out "$WORK/chunk.om" 2>/dev/null
    promtool tsdb create-blocks-from openmetrics -q "$WORK/chunk.om" "$WORK/data" >/dev/null
    printf '\r  chunk %d/%d (%ds)' $((c + 1)) "$chunks" $(($(date +%s) - t0))
  done
  rm -f "$WORK/chunk.om"
  echo
  touch "$WORK/data/complete"
fi
END=$((START + DAYS * 86400 - SCRAPE))

cat >"$WORK/prometheus.yml" <<'EOF'
# No scrape targets: the data is backfilled.
global:
  scrape_interval: 1h
EOF
/usr/bin/prometheus --storage.tsdb.path="$WORK/data" --web.listen-address=127.0.0.1:$PORT \
  --config.file="$WORK/prometheus.yml" --storage.tsdb.retention.time=3650d >"$WORK/prometheus.log" 2>&1 &
PROM=$!
trap 'kill $PROM 2>/dev/null; wait $PROM 2>/dev/null || true' EXIT
for ((i = 0; i < 600; i++)); do
  curl -sf "http://127.0.0.1:$PORT/-/ready" >/dev/null 2>&1 && break
  kill -0 $PROM 2>/dev/null || { echo "prometheus exited:" >&2; tail -20 "$WORK/prometheus.log" >&2; exit 1; }
  sleep 1
done
# Let the first compactions of the backfilled blocks finish (they start a
# minute after startup): wait until the block list has not changed for 90 s.
echo "waiting for Prometheus to compact the backfilled blocks..."
last=""; quiet=0
while ((quiet < 90)); do
  now=$(ls "$WORK/data" | sort | tr '\n' ' ')
  if [[ $now == "$last" ]]; then quiet=$((quiet + 5)); else quiet=0; last=$now; fi
  sleep 5
done
echo "blocks: $(ls -d "$WORK"/data/01* | wc -l)"
# Both readers then find every sample in the page cache: one query reading all.
curl -s --data-urlencode "query=count(count_over_time({__name__=~\"DCGM_.*\"}[${DAYS}d]))" \
  --data-urlencode "time=$END" "http://127.0.0.1:$PORT/api/v1/query" >/dev/null

KUBEON_PROMETHEUS_URL=http://127.0.0.1:$PORT KUBEON_PROMETHEUS_END=$END \
KUBEON_PROMETHEUS_LOOKBACK_S=$((DAYS * 86400)) KUBEON_PROMETHEUS_SCRAPE_S=$SCRAPE \
  "$BENCH" --benchmark_format=json --benchmark_out="$WORK/result.json" --benchmark_out_format=json \
  >"$WORK/bench.out" 2>"$WORK/bench.err" || { cat "$WORK/bench.err" >&2; exit 1; }
grep '^prometheus:' "$WORK/bench.err" || true

python3 - "$WORK/result.json" "$GPUS" "$DAYS" <<'EOF'
import json, sys
r = {b["name"].split("/")[0]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
s, n = r["BM_PrometheusServerSidePeaks"], r["BM_NaivePerPodQueryRange"]
for b in (s, n):
    if b.get("error_occurred"):
        sys.exit("%s: %s" % (b["name"], b.get("error_message")))
gpus, days = int(sys.argv[2]), int(sys.argv[3])
print("%d GPUs x %d days at 30 s, %d pods" % (gpus, days, s["pods"]))
print("  server-side PromQL : %8.2f s  %6d queries  %9.1f MB  (%d refused and split)"
      % (s["real_time"], s["queries"], s["MB"], s["refused"]))
print("  naive query_range  : %8.2f s  %6d queries  %9.1f MB  (peak mismatches: %d)"
      % (n["real_time"], n["queries"], n["MB"], n["peak_mismatch"]))
print("  ratio naive/server : %8.1fx time  %6.0fx queries  %9.0fx bytes"
      % (n["real_time"] / s["real_time"], n["queries"] / s["queries"], n["MB"] / max(s["MB"], 1e-9)))
EOF
