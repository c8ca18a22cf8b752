#!/usr/bin/env bash
# BENCHMARKS.md (h): reading a cluster through the Kubernetes API.  `kubeon-gpu snapshot -o FILE`,
# `kubeon-gpu plan --from-cluster` and `kubectl get nodes,pods,poddisruptionbudgets,deployments,
# statefulsets,replicasets -A -o json > FILE`, all against the same kube-sim serving gen-cluster's
# scale cluster, run alternately; optionally a baseline kubeon-gpu (e.g. main's) in the same run.
#
#   bench/snapshot_vs_kubectl.sh BUILD_DIR [BASELINE_KUBEON_GPU]
#
# BUILD_DIR holds kubeon-gpu, tools/kube-sim/kube-sim and tools/gen-cluster/gen-cluster of this tree
# (KUBE_SIM and GEN_CLUSTER may name other builds of those two).  Environment: NODES (5000 GPU nodes,
# 8 GPUs each), RUNS (3 of each command), KUBECTL (kubectl), PERF=1 records `perf record -g` of
# one more `plan --from-cluster` of this tree and prints the top self-time symbols.
# Output, one row per run: what, wall s, user s, sys s, peak RSS MB, HTTP requests (kube-sim's
# request log), kube-sim CPU s; then the pages' bytes (JSON and on the wire with gzip), fetched
# again with curl from one run's request list.
set -euo pipefail

build=$(cd "${1:?usage: $0 BUILD_DIR [BASELINE_KUBEON_GPU]}" && pwd)
base=${2:-}
nodes=${NODES:-5000}
runs=${RUNS:-3}
kubectl=${KUBECTL:-kubectl}
work=$(mktemp -d /tmp/snapshot-vs-kubectl.XXXXXX)
sim_pid=
cleanup() {
  if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"${GEN_CLUSTER:-$build/tools/gen-cluster/gen-cluster}" --preset scale --nodes "$nodes" --gpus-per-node 8 --history-samples 2 \
  --out "$work/gen" >/dev/null
"${KUBE_SIM:-$build/tools/kube-sim/kube-sim}" --listen 127.0.0.1:0 --snapshot "$work/gen/cluster.json" --kubeconfig-out "$work/kubeconfig" \
  --log-requests >"$work/sim.out" 2>"$work/sim.log" &
sim_pid=$!
for _ in $(seq 1 1200); do
  grep -q "listening on" "$work/sim.out" 2>/dev/null && break
  kill -0 "$sim_pid" 2>/dev/null || { echo "kube-sim died:"; cat "$work/sim.log"; exit 1; }
  sleep 0.5
done
url=$(sed -n 's/^kube-sim listening on //p' "$work/sim.out")
[ -n "$url" ] || { echo "kube-sim did not start"; exit 1; }
sleep 5  # let the simulated operator settle (its DaemonSet pods are created at start)

tck=$(getconf CLK_TCK)
sim_cpu() { awk -v t="$tck" '{printf "%.2f", ($14 + $15) / t}' "/proc/$sim_pid/stat"; }
gets() { grep -c "^kube-sim: GET " "$work/sim.log" || true; }

# run NAME COMMAND...: one timed run, one row.
run() {
  local name=$1; shift
  local before_req before_cpu after_cpu
  before_req=$(gets); before_cpu=$(sim_cpu)
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out.stdout" 2>"$work/out.stderr" ||
    { echo "$name failed:"; tail -3 "$work/out.stderr"; exit 1; }
  after_cpu=$(sim_cpu)
  read -r wall user sys rss <"$work/time"
  printf "%-34s %7.2f %7.2f %6.2f %7.0f %6d %7.2f\n" "$name" "$wall" "$user" "$sys" "$((rss / 1024))" \
    "$(($(gets) - before_req))" "$(echo "$after_cpu - $before_cpu" | bc)"
}

kc="$work/kubeconfig"
g="$work/gen"
plan_args=(plan --from-cluster --kubeconfig "$kc" --metrics "$g/history.om" --policy "$g/policy.yaml"
  --prices "$g/prices.yaml" -o json --output-file "$work/plan.json")
printf "%-34s %7s %7s %6s %7s %6s %7s\n" "what" "wall s" "user s" "sys s" "RSS MB" "reqs" "sim s"
for _ in $(seq 1 "$runs"); do
  run "kubectl get ... -A -o json" sh -c "$kubectl --kubeconfig $kc get \
nodes,pods,poddisruptionbudgets,deployments,statefulsets,replicasets -A -o json >$work/kubectl.json"
  run "kubeon-gpu snapshot" "$build/kubeon-gpu" snapshot --kubeconfig "$kc" -o "$work/snapshot.json"
  run "kubeon-gpu plan --from-cluster" "$build/kubeon-gpu" "${plan_args[@]}"
  if [ -n "$base" ]; then
    run "baseline snapshot" "$base" snapshot --kubeconfig "$kc" -o "$work/base-snapshot.json"
    run "baseline plan --from-cluster" "$base" "${plan_args[@]/$work\/plan.json/$work/base-plan.json}"
  fi
done
if [ -n "$base" ] && [ "$runs" -gt 0 ]; then
  cmp -s "$work/plan.json" "$work/base-plan.json" && echo "plans: identical to the baseline's" ||
    echo "plans: DIFFER from the baseline's"
fi
if [ "$runs" -gt 0 ]; then
  echo "files: kubectl $(stat -c %s "$work/kubectl.json") bytes, snapshot $(stat -c %s "$work/snapshot.json") bytes," \
    "items $(grep -c '^        {$' "$work/snapshot.json" || true)"
fi

# The pages of one `kubeon-gpu snapshot` run, fetched again: JSON bytes and gzip bytes on the wire.
before=$(gets)
"$build/kubeon-gpu" snapshot --kubeconfig "$kc" -o /dev/null
token=$(sed -n 's/^ *token: "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$kc" | head -1)
tail -n +"$((before + 1))" "$work/sim.log" | sed -n 's/^kube-sim: GET \([^ ]*\) -> 200$/\1/p' >"$work/targets"
json_bytes=0; gzip_bytes=0
while read -r t; do
  j=$(curl -sk -H "Authorization: Bearer $token" -o /dev/null -w '%{size_download}' "$url$t")
  z=$(curl -sk -H "Authorization: Bearer $token" -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' "$url$t")
  json_bytes=$((json_bytes + j)); gzip_bytes=$((gzip_bytes + z))
done <"$work/targets"
echo "pages: $(wc -l <"$work/targets") answered GETs, $json_bytes bytes of JSON, $gzip_bytes bytes with gzip"

if [ "${PERF:-0}" = 1 ]; then
  perf record -F 499 -g -o "$work/perf.data" -- "$build/kubeon-gpu" "${plan_args[@]}" 2>/dev/null >/dev/null
  short() { sed -E 's/\(anonymous namespace\):://g; s/(\[[.k]\] [^<(]*)[<(].*/\1/; s/ +- +- *$//; s/ +$//'; }
  echo "profile of plan --from-cluster, self time by library:"
  perf report -i "$work/perf.data" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | short |
    head -8 || true
  echo "self time by symbol:"
  perf report -i "$work/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' |
    short | head -25 || true
  echo "time including callees (kubeon functions):"
  perf report -i "$work/perf.data" --children --sort symbol --stdio -g none 2>/dev/null | grep -E '^ +[0-9.]+%' |
    grep -E 'kubeon::' | short | head -25 || true
fi
