#!/bin/bash
# Whole `plan -o json` command, baseline vs new, on the compact and realistic
# gen-cluster 10,000-node files (BENCHMARKS.md (g)):
#   gen-cluster --preset scale --nodes 10000 --gpus-per-node 8 --out /tmp/scale
#   gen-cluster --preset scale --nodes 10000 --gpus-per-node 8 --compact --no-history --out /tmp/i13compact
#   (then link /tmp/scale/history.om into /tmp/i13compact)
# Baseline binary: /tmp/i13base/build/kubeon-gpu (main at 9c451e3); new: build/kubeon-gpu.
for d in i13compact scale; do
  for which in base new; do
    if [ $which = base ]; then B=${BASELINE:-/tmp/i13base/build/kubeon-gpu}; else B=${NEW:-build/kubeon-gpu}; fi
    rm -f /tmp/i13-out-$which-$d.json
    /usr/bin/time -f "$which $d: wall %e s, user %U s, sys %S s, peak RSS %M KB" $B plan --cluster /tmp/$d/cluster.json --metrics /tmp/$d/history.om --policy /tmp/$d/policy.yaml --prices /tmp/$d/prices.yaml -o json --output-file /tmp/i13-out-$which-$d.json 2>&1 | grep -E "^(base|new)"
  done
  cmp /tmp/i13-out-base-$d.json /tmp/i13-out-new-$d.json && echo "$d: outputs identical ($(stat -c %s /tmp/i13-out-new-$d.json) bytes)"
done
