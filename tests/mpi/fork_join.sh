#!/bin/bash
# fork_join.sh MODE RDSM PROGRAM [ARGS...]
#
# A SPLASH (fork-join) program on the mpi fabric, whose workers are the
# other ranks of the MPI job (src/api/fork_join_ranks.hpp):
#   globals   PROGRAM is tests/splash/globals.C at 3 ranks: it passes, and
#             the master is warned, by name, about its global that points
#             into its private heap;
#   killed    worker rank 1 is killed at its sixth barrier (RDSM_FAULT):
#             the job ends non-zero within 10 s, naming node 1, with nothing
#             left running and nothing left in /dev/shm;
#   stripped  a stripped copy of PROGRAM (its symbol table gone) is refused,
#             with the cause and what to do.
# ARGS go to the program.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -ge 3 ] || fail "usage: fork_join.sh MODE RDSM PROGRAM [ARGS...]"
MODE=$1
RDSM=$2
PROG=$3
shift 3

case $MODE in
  globals)
    run_cmd 120 "$RDSM" run --fabric mpi -n 3 --quiet "$PROG" -p 3 "$@"
    expect_status 0
    grep -q "PASS globals" "$MP_TMP/out" || fail "no PASS: $(cat "$MP_TMP/out" "$MP_TMP/err")"
    expect_stderr "warning: CREATE: the global master_notes holds a pointer into the master's private heap"
    [ "$(grep -c "warning: CREATE" "$MP_TMP/err")" -eq 1 ] || fail "the warning is not given once: $(cat "$MP_TMP/err")"
    # The workers' output before MAIN_INITENV is not printed again.
    [ "$(grep -c "PASS globals" "$MP_TMP/out")" -eq 1 ] || fail "the result is printed more than once"
    echo "PASS: globals shipped to 2 worker ranks in 2 rounds, the heap pointer named"
    ;;
  killed)
    shm_snapshot
    start_bg env RDSM_FAULT=barrier:1:6 "$RDSM" run --fabric mpi -n 2 "$PROG" "$@"
    t0=$(now_us)
    wait_bg 60
    expect_status nonzero
    grep -Eq "node 1|rank 1" "$MP_TMP/err" || fail "node 1 is not named: $(cat "$MP_TMP/err")"
    sleep 0.5
    left=$(pgrep -f -- "^$PROG") && fail "processes of the job are still running: $left"
    check_shm
    echo "PASS: killed: worker rank 1 killed at its sixth barrier, exit status $STATUS, $(elapsed_ms "$t0" "$END_US") ms"
    ;;
  stripped)
    objcopy --strip-all "$PROG" "$MP_TMP/stripped" || fail "objcopy cannot strip $PROG"
    run_cmd 60 "$RDSM" run --fabric mpi -n 2 "$MP_TMP/stripped" "$@"
    expect_status nonzero
    expect_stderr "ships the master's globals to the workers of other ranks, but the executable has no symbol table \(it was stripped\)"
    expect_stderr "do not strip it"
    sleep 0.5
    left=$(pgrep -f -- "^$MP_TMP/stripped") && fail "processes of the job are still running: $left"
    echo "PASS: stripped: refused, naming the cause"
    ;;
  *) fail "unknown mode $MODE" ;;
esac
