#!/bin/bash
# stats_threads_forked.sh RDSM SPLASH_LU
#
# Per-thread statistics of a fork-join (SPLASH) program's forked workers:
# LU with 6 workers on nodes of 2 threads is the master's node and two
# forked workers, each running two CREATE'd functions.  With --stats, every
# one of the three (0, w1, w2) has a row per thread in the JSON (per_thread)
# and in the summary (0.t1, w1.t0, w2.t1, ...), and the rows add up to their
# node as a launched node's do (thread_rows.sh).
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: stats_threads_forked.sh RDSM SPLASH_LU"
RDSM=$1
LU=$2

. "$(dirname "$0")/thread_rows.sh"

JSON="$MP_TMP/lu.json"
run_cmd 120 "$RDSM" run -n 1 --threads 2 --stats "$JSON" "$LU" -p6 -n256 -b16
expect_status 0
grep -q '^PASS splash_lu' "$MP_TMP/out" || fail "LU did not pass"
expect_stderr '^rdsm: fork-join program: 1 job, up to 2 forked workers'
check_rows "$JSON" 2 0 w1 w2
check_summary 2 0 w1 w2
echo "PASS stats_threads_forked"
