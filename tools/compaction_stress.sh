#!/usr/bin/env bash
# Runs a command again and again while the kernel compacts memory without
# pause (every page that can move is migrated, over and over), and counts
# the runs that fail.  A job's pages then change their physical frames
# under it while it runs, as they do now and then on a machine short of
# contiguous memory (a busy CI host).  A page being moved holds every
# process that touches it until the move ends, so a process is held at
# random memory accesses, in the middle of a protocol step: a race between
# two steps of different nodes that ordinary runs hit once in thousands
# shows here within minutes (a second copy of an untracked home page taken
# while the first was not yet announced did, first_copy_log.cpp), as would
# a memory backend that loses a write when a page moves.
#
#   usage: tools/compaction_stress.sh RUNS PATTERN command [args...]
#   e.g.   tools/compaction_stress.sh 300 '^PASS' build/rdsm run -n 4 --quiet \
#            --protocol genima build/tests/mp/progs/lock_counters 200 500
#
# A run fails when its output does not match PATTERN (grep -E) or has a
# line starting with FAIL; the first lines of each failure are printed.
# Needs root (it writes /proc/sys/vm/compact_memory).  Exits 1 if any run
# failed.
set -uo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
runs=$1 pattern=$2
shift 2
if [ ! -w /proc/sys/vm/compact_memory ]; then
  echo "compaction_stress.sh: cannot write /proc/sys/vm/compact_memory (run as root)" >&2
  exit 2
fi
(while :; do echo 1 >/proc/sys/vm/compact_memory; done) 2>/dev/null &
compactor=$!
trap 'kill $compactor 2>/dev/null; wait $compactor 2>/dev/null' EXIT
failed=0
for ((i = 1; i <= runs; i++)); do
  out=$("$@" 2>&1)
  if ! grep -qE "$pattern" <<<"$out" || grep -q '^FAIL' <<<"$out"; then
    failed=$((failed + 1))
    echo "--- run $i failed:"
    head -n 12 <<<"$out"
  fi
done
migrated=$(awk '/^pgmigrate_success/ {print $2}' /proc/vmstat)
echo "compaction_stress.sh: $failed of $runs runs failed (pages migrated since boot: $migrated)"
[ "$failed" -eq 0 ]
