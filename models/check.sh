#!/usr/bin/env bash
# Model checks of the one-sided protocol (models/README.md): for each named
# configuration, spin turns models/hlrc_one_sided.pml into a verifier
# (pan.c), which is compiled and searched exhaustively.  A configuration
# expected to pass passes only if the whole state space was searched
# without a violation; one built to show a violation (broken_*, *_hang)
# passes only if the verifier finds it, and then prints the counterexample.
#
#   models/check.sh [--work DIR] CONFIG...    check configurations
#   models/check.sh --list                    name them
#   models/check.sh [--work DIR] --probes CONFIG...
#                                             which probe points of the
#                                             model each one reaches
#
# Exit status: 0 every configuration as expected, 1 not, 77 spin (or a C
# compiler) is not installed (ctest's SKIP_RETURN_CODE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
model=$here/hlrc_one_sided.pml

# name | spin defines | pan options | expected: pass, or violation
configs=(
  # Two nodes, any program of one operation before and one after the
  # migrating barrier, then the last barrier and reads of both pages.
  "n2|-DNN=2 -DB1=1 -DB2=1||pass"
  # A node writes a page another node writes and releases, and acquires
  # while its write is unreleased: its writes go home at the acquire.
  "n2_own_writes|-DNN=2 -DNO_FINAL_BARRIER -DB1=2 -DOPS1_0=W0+ACQ -DOPS1_1=W0+REL -DB2=1 -DOPS2_0=R0 -DOPS2_1=R0||pass"
  # Copies refreshed at an acquire instead of dropped.
  "n2_refresh|-DNN=2 -DNO_FINAL_BARRIER -DREFRESH -DB1=3 -DOPS1_0=R0+ACQ -DOPS1_1=W0+REL -DB2=1 -DOPS2_0=R0 -DOPS2_1=R0||pass"
  # Three nodes: page 0, claimed by node 2 or node 0, written by node 0
  # alone, moves to node 0; after the barrier node 1 writes it and releases
  # while node 0 may still be taking over, node 2 acquires and reads it,
  # node 0 reads or writes it.  Hangs are checked too; broken_move_order
  # stores the new home's versions in node order, as the code once did,
  # and a reader then retries for ever.
  "n3_migration|-DNN=3 -DNO_FINAL_BARRIER -DB1=0 -DB2=0 -DB1_0=1 -DOPS1_0=W0 -DB1_2=1 -DOPS1_2=R0 -DB2_0=1 -DOPS2_0=R0+W0 -DB2_1=2 -DOPS2_1=W0+REL -DB2_2=2 -DOPS2_2=ACQ+R0||pass"
  "broken_move_order|-DNN=3 -DNO_FINAL_BARRIER -DB1=0 -DB2=0 -DB1_0=1 -DOPS1_0=W0 -DB1_2=1 -DOPS1_2=R0 -DB2_0=1 -DOPS2_0=R0+W0 -DB2_1=2 -DOPS2_1=W0+REL -DB2_2=2 -DOPS2_2=ACQ+R0 -DBROKEN_MOVE_ORDER||violation"
  # Three nodes claim and write one page at once (false sharing), then
  # read it after the barrier.
  "n3_false_sharing|-DNN=3 -DNO_FINAL_BARRIER -DB1=1 -DOPS1_0=W0 -DOPS1_1=W0 -DOPS1_2=W0 -DB2=1 -DOPS2_0=R0 -DOPS2_1=R0 -DOPS2_2=R0||pass"
  # Whole-page writes: two nodes write, read and release one page (one of
  # them its home), then the barriers and reads of both pages.
  "whole_n2|-DNN=2 -DWHOLE -DB1=2 -DOPS1_0=W0+R0+REL -DOPS1_1=W0+R0+REL -DB2=0||pass"
  # Whole-page writes: page 0's home (node 0) and two other nodes write it
  # at once; runs writers meet a whole-page write.
  "whole_n3|-DNN=3 -DWHOLE -DPLACE0=0 -DNO_FINAL_BARRIER -DB1=1 -DOPS1_0=W0 -DOPS1_1=W0 -DOPS1_2=W0 -DB2=1 -DOPS2_0=R0 -DOPS2_1=R0 -DOPS2_2=R0||pass"
  # Deliberately broken orderings: each must be caught.
  "broken_order|-DNN=2 -DB1=1 -DB2=1 -DBROKEN_ORDER||violation"
  "broken_fetch_order|-DNN=2 -DB1=1 -DB2=1 -DBROKEN_FETCH_ORDER||violation"
  "broken_first_copy|-DNN=2 -DB1=1 -DB2=1 -DBROKEN_FIRST_COPY||violation"
  "broken_whole|-DNN=2 -DWHOLE -DB1=2 -DOPS1_0=W0+R0+REL -DOPS1_1=W0+R0+REL -DB2=0 -DBROKEN_WHOLE||violation"
  # Versions before the diff runs: not caught, because no reader learns of
  # an interval before its writer's flush_all (models/README.md).
  "diff_order_unneeded|-DNN=2 -DB1=1 -DB2=1 -DBROKEN_DIFF_ORDER||pass"
)
probes=10   # probe points of the model: PROBE(1) .. PROBE(10)

work=${TMPDIR:-/tmp}
mode=check
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --work) work=$2; shift 2 ;;
    --list) for c in "${configs[@]}"; do echo "${c%%|*}"; done; exit 0 ;;
    --probes) mode=probes; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || { echo "usage: $0 [--work DIR] [--probes] CONFIG... | --list" >&2; exit 2; }

if ! command -v spin >/dev/null; then
  echo "SKIP: spin is not installed (tools/deps.sh installs it)"
  exit 77
fi
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null; then
  echo "SKIP: no C compiler ($cc) to build the verifier"
  exit 77
fi

mkdir -p "$work"
dir=$(mktemp -d "$work/model.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# verify RUNDIR DEFINES PANOPTS: builds and runs the verifier in RUNDIR;
# sets `errors` (empty if the verifier did not build or the search did not
# complete) and `summary`.
verify() {
  local run=$1 defines=$2 panopts=$3 start ms cpu stored trans
  mkdir -p "$run"
  start=$(date +%s%N)
  errors=
  # -DCOLLAPSE: compressed state vectors, a third of the memory.  -O0: the
  # verifier's source is large, and optimising it costs more time than it
  # saves at these state counts.
  if ! (cd "$run" && spin $defines -a "$model" >spin.log 2>&1 &&
          $cc -O0 -w -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o pan pan.c >cc.log 2>&1); then
    summary="the verifier did not build: $(cat "$run"/spin.log "$run"/cc.log 2>/dev/null | head -5)"
    return
  fi
  (cd "$run" && ./pan -m1000000 $panopts >pan.log 2>&1) || true
  ms=$((($(date +%s%N) - start) / 1000000))
  cpu=$(sed -n 's/^pan: elapsed time \([0-9.e+]*\) seconds/\1/p' "$run/pan.log")
  stored=$(sed -n 's/^ *\([0-9e.+]*\) states, stored.*/\1/p' "$run/pan.log")
  trans=$(sed -n 's/^ *\([0-9e.+]*\) transitions.*/\1/p' "$run/pan.log")
  summary=$(printf '%s states, %s transitions; search %s s, with the build %d.%d s' \
    "${stored:-?}" "${trans:-?}" "${cpu:-?}" $((ms / 1000)) $((ms % 1000 / 100)))
  if grep -q "reached -DMEMLIM bound\|max search depth too small" "$run/pan.log"; then
    summary="the search did not complete ($summary)"
    return
  fi
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$run/pan.log")
}

# The counterexample of the last run in RUNDIR, as the model's trace lines.
trace() {
  (cd "$1" && spin $2 -T -k hlrc_one_sided.pml.trail -t "$model" 2>&1 | grep -E '^node|^spin:' | head -80 |
     sed 's/^/     /') || true
}

failed=0
for name in "${names[@]}"; do
  line=
  for c in "${configs[@]}"; do [ "${c%%|*}" = "$name" ] && line=$c; done
  if [ -z "$line" ]; then
    echo "FAIL $name: no such configuration (models/check.sh --list)"
    failed=1
    continue
  fi
  IFS='|' read -r _ defines panopts expect <<<"$line"
  if [ $mode = probes ]; then
    reached=
    for p in $(seq 1 $probes); do
      verify "$dir/$name.p$p" "$defines -DPROBE_AT=$p" "$panopts -E"
      grep -q "assertion violated ($p!=$p)" "$dir/$name.p$p/pan.log" 2>/dev/null && reached="$reached $p"
    done
    echo "$name: probe points reached:${reached:- none}"
    continue
  fi
  verify "$dir/$name" "$defines" "$panopts"
  if [ -z "$errors" ]; then
    echo "FAIL $name: $summary"
    tail -20 "$dir/$name/pan.log" 2>/dev/null || true
    failed=1
  elif [ "$expect" = pass ]; then
    if [ "$errors" = 0 ]; then
      echo "ok   $name: no violation, search complete ($summary)"
    else
      echo "FAIL $name: $(grep -m1 '^pan:1:' "$dir/$name/pan.log" | sed 's/^pan:1: //') ($summary)"
      trace "$dir/$name" "$defines"
      failed=1
    fi
  elif [ "$errors" != 0 ]; then
    echo "ok   $name: violation found as expected: $(grep -m1 '^pan:1:' "$dir/$name/pan.log" | sed 's/^pan:1: //') ($summary)"
    trace "$dir/$name" "$defines"
  else
    echo "FAIL $name: the checker found no violation ($summary)"
    failed=1
  fi
done
[ $mode = probes ] && exit 0
[ $failed = 0 ] && echo "PASS" || echo "FAIL"
exit $failed
