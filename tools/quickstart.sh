#!/usr/bin/env bash
# From a fresh machine: installs what is missing, builds (into build/, or the
# directory given as $1), runs the main job — red-black SOR on 4 nodes over
# the single-host shm fabric, which verifies itself against a sequential run
# and prints the time breakdown — and ends with a parallel speedup: one app
# on 1 and 2 nodes under the default preset, async, genima and hw (processes
# on memory the machine keeps coherent, the limit), beside plain threads (one
# process of 2 threads), measured by `rdsm bench` and shown by
# `rdsm report --brief`.  Fails if any run fails.
set -euo pipefail

# APP:SIZE of tools/bench_apps.json for the closing speedup table; it should
# take well under a minute for all its runs together.
speedup_demo=sor:paper

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/tools/deps.sh"
echo "rdsm: building into $build" >&2
"$root/tools/build.sh" "$build"
"$build/rdsm" run -n 4 "$build/apps/sor" -m 1024 -n 1024 -i 20

app=${speedup_demo%%:*}
size=${speedup_demo#*:}
protocols=rdsm,async,genima
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdsm_quickstart.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo >&2
echo "rdsm: speedup of $app ($size) on 1 and 2 nodes: $protocols and hw, beside plain threads" >&2
# The sweep's own summary only names a temporary file; it is shown when a run failed.
status=0
# Three rounds, each protocol's median shown: a single run of a phase this
# short can be off by a third on a busy machine, and then ranks the presets
# wrongly.
"$build/rdsm" bench --build "$build" --apps "$app" --sizes "$size" --protocols "$protocols" --nodes 1,2 \
  --repeat 3 --timeout 120 --out "$tmp/bench.json" >"$tmp/bench.log" || status=$?
if [ ! -s "$tmp/bench.json" ]; then
  cat "$tmp/bench.log"
  exit $((status ? status : 1))
fi
echo
"$build/rdsm" report "$tmp/bench.json" --brief
if [ "$status" -ne 0 ]; then
  # The report named the failed runs; the sweep's list adds the end of their output.
  sed -n '/^FAILED runs:/,$p' "$tmp/bench.log"
  exit "$status"
fi
