#!/bin/bash
# The whole `plan -o json` command, baseline vs new in the same run (BENCHMARKS.md (g)).
# Files (gen-cluster, 10,000 nodes / 80,000 GPUs, full dcgm-exporter label set):
#   /tmp/i13issue   the shape: compact List (149 MB) + 10 samples a series (2.06 M lines, 691 MB)
#     gen-cluster --preset scale --nodes 10000 --gpus-per-node 8 --compact --history-samples 10 --out /tmp/i13issue
#   /tmp/i13compact compact List + 24 samples a series (4.94 M lines, 1.66 GB; history.om linked from /tmp/scale)
#     gen-cluster --preset scale --nodes 10000 --gpus-per-node 8 --compact --no-history --out /tmp/i13compact
#   /tmp/scale      kubectl-shaped List (764 MB) + the same 1.66 GB history
#     gen-cluster --preset scale --nodes 10000 --gpus-per-node 8 --out /tmp/scale
# BASELINE (default /tmp/i13base/build/kubeon-gpu: main at 9c451e3, Release), optionally PREV
# (a third build, e.g. the previous commit's), and NEW (default build/kubeon-gpu), run in turn.
# `-o json > FILE` is the command the issue times; the `--output-file` run adds the atomic
# write's fsync.  RUNS (default 3) runs each; all printed.
set -u
BASELINE=${BASELINE:-/tmp/i13base/build/kubeon-gpu}
NEW=${NEW:-build/kubeon-gpu}
PREV=${PREV:-}
BUILDS="base${PREV:+ prev} new"
RUNS=${RUNS:-3}
for d in ${DIRS:-i13issue i13compact scale}; do
  D=/tmp/$d
  cat $D/cluster.json $D/history.om > /dev/null  # page cache, as for every run below
  for run in $(seq "$RUNS"); do
    for which in $BUILDS; do
      case $which in base) B=$BASELINE ;; prev) B=$PREV ;; new) B=$NEW ;; esac
      /usr/bin/time -f "$d $which run $run: wall %e s, user %U s, sys %S s, peak RSS %M KB" \
        $B plan --cluster $D/cluster.json --metrics $D/history.om --policy $D/policy.yaml \
        --prices $D/prices.yaml -o json -q > /tmp/i13-out-$which-$d.json
    done
  done
  /usr/bin/time -f "$d new --output-file (fsync): wall %e s, user %U s, sys %S s, peak RSS %M KB" \
    $NEW plan --cluster $D/cluster.json --metrics $D/history.om --policy $D/policy.yaml \
    --prices $D/prices.yaml -o json -q --output-file /tmp/i13-out-new-file-$d.json
  cmp /tmp/i13-out-new-$d.json /tmp/i13-out-new-file-$d.json || echo "$d: stdout and --output-file differ"
  if [ -n "$PREV" ]; then
    cmp -s /tmp/i13-out-prev-$d.json /tmp/i13-out-new-$d.json && echo "$d: prev and new outputs identical" ||
      echo "$d: prev and new outputs differ"
  fi
  if cmp -s /tmp/i13-out-base-$d.json /tmp/i13-out-new-$d.json; then
    echo "$d: baseline and new outputs identical ($(stat -c %s /tmp/i13-out-new-$d.json) bytes)"
  else
    echo "$d: baseline and new outputs differ"
  fi
done
