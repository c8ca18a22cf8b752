#!/usr/bin/env bash
# Compile time of the CI's optimised build, by kind of target (BENCHMARKS.md (i)).
#
#   bench/build_times.sh [BUILD_DIR]      (default /tmp/kubeon-build-times; deleted first)
#   EXTRA="-DKUBEON_TEST_OPTIMIZE=" bench/build_times.sh   (extra CMake arguments, e.g. the
#                                                          tests at the build type's -O2)
#
# Configures the source tree as scripts/test does (-O2, no debug info) with
# Ninja and no compiler cache, builds with -j$(nproc), and sums Ninja's log
# (.ninja_log: start and end of every step) into CPU-side seconds for the
# tests' objects, the other objects and the links, plus the wall time and the
# ten slowest steps.  REQUIRES: ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/kubeon-build-times}
command -v ninja >/dev/null || { echo "build_times.sh: ninja is not installed (apt-get install ninja-build)" >&2; exit 1; }
rm -rf "$dir"
# shellcheck disable=SC2086
CCACHE_DISABLE=1 cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" ${EXTRA:-} >/dev/null
start=$(date +%s)
CCACHE_DISABLE=1 ninja -C "$dir" -j"$(nproc)" >"$dir/build.log"
echo "wall: $(( $(date +%s) - start )) s on $(nproc) cores"
awk 'NR > 1 { d = ($2 - $1) / 1000
              if ($4 ~ /\.o$/ && $4 ~ /test/) t += d; else if ($4 ~ /\.o$/) o += d; else l += d }
     END { printf "test objects: %.0f s, other objects: %.0f s, links and other steps: %.0f s\n", t, o, l }' \
  "$dir/.ninja_log"
echo "slowest steps (s):"
awk 'NR > 1 { printf "%8.1f %s\n", ($2 - $1) / 1000, $4 }' "$dir/.ninja_log" | sort -rn | head -10
