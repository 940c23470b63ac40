#!/bin/bash
# fail_node.sh RDSM FAIL_NODE MODE
#
# Runs fail_node as a job of 4 nodes in which node 2 fails (MODE: segv,
# exit3, nofinalize, sigkill: the node hangs and the test kills it with
# SIGKILL, or migrate: fault injection kills it in the middle of moving
# page homes; the environment chooses a protocol with home=migrate).  The launcher must name node 2 and the cause, exit with the
# right status within 2 s of the failure, and leave no process of the job
# and nothing in /dev/shm behind.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || fail "usage: fail_node.sh RDSM FAIL_NODE MODE"
RDSM=$1
PROG=$2
MODE=$3

case $MODE in
  segv)
    want_status=139
    want_msg='node 2 \(pid [0-9]+\) .*segmentation fault \(SIGSEGV\)'
    ;;
  exit3)
    want_status=3
    want_msg='node 2 \(pid [0-9]+\) exited with status 3'
    ;;
  nofinalize)
    want_status=nonzero
    want_msg='node 2 \(pid [0-9]+\) exited without calling rdsm_finalize'
    ;;
  migrate)
    export RDSM_FAULT=home_migration:2
    want_status=137
    want_msg='node 2 \(pid [0-9]+\) was killed by signal 9 \(SIGKILL\)'
    ;;
  sigkill)
    want_status=137
    want_msg='node 2 \(pid [0-9]+\) was killed by signal 9 \(SIGKILL\)'
    ;;
  *) fail "unknown mode $MODE" ;;
esac

# A sanitizer build would report the fault itself and exit with a status of
# its own instead of dying of the signal.
if [ "$MODE" = segv ]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
fi

shm_snapshot

if [ "$MODE" = sigkill ]; then
  start_bg "$RDSM" run -n 4 --quiet "$PROG" hang 2 "$MP_TMP" "$MP_MARKER"
  # Node 2 writes failtime after the first barrier, right before it hangs.
  wait_for_file "$MP_TMP/failtime" 20
  victim=$(cat "$MP_TMP/pid.2")
  alive "$victim" || fail "node 2 (pid $victim) is not running"
  t0=$(now_us)
  kill -KILL "$victim"
  wait_bg 10
  want_msg="node 2 \\(pid $victim\\) was killed by signal 9 \\(SIGKILL\\)"
else
  run_cmd 30 "$RDSM" run -n 4 --quiet "$PROG" "$MODE" 2 "$MP_TMP" "$MP_MARKER"
  [ -e "$MP_TMP/failtime" ] || fail "node 2 never reached the point of failing"
  t0=$(cat "$MP_TMP/failtime")
fi

expect_status "$want_status"
expect_stderr "^rdsm: error: $want_msg"
if [ "$MODE" = migrate ]; then
  expect_stderr '^rdsm\[node 2\]: fault injection: node 2 dies at home_migration'
fi
ms=$(elapsed_ms "$t0" "$END_US")
[ "$ms" -le 2000 ] || fail "the launcher ended ${ms} ms after the failure (limit 2000 ms)"
check_no_leftovers
check_shm
echo "PASS: $MODE: exit status $STATUS, ended ${ms} ms after the failure"
