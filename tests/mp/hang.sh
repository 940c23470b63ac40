#!/bin/bash
# hang.sh RDSM FAIL_NODE MODE
#
# Hang detection (a timeout of 2 s: --hang-timeout for stop, RDSM_HANG_TIMEOUT
# for compute).  A job of 3 nodes in which
# node 2, after the first barrier, sleeps outside rdsm while the others wait
# for it in a second barrier (fail_node's "hang" mode).  MODE:
#   stop     the test SIGSTOPs node 2: the launcher must call it hung
#            within the timeout + 2 s, name it, exit non-zero, and leave
#            no process behind;
#   compute  node 2 just goes on sleeping: a long phase without rdsm calls
#            is not a hang, so the job runs until its --timeout of 6 s;
#   badvalue --hang-timeout -1 is refused with a message naming the option;
#   forked   FAIL_NODE is a SPLASH program (fork-join): its forked worker 1
#            stops itself (RDSM_FAULT=barrier:1:1:stop); the master watches
#            its workers' heartbeats and must end the program within the
#            timeout + 2 s, naming the worker, with nothing left behind.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || fail "usage: hang.sh RDSM FAIL_NODE MODE"
RDSM=$1
PROG=$2
MODE=$3
if [ "$MODE" = badvalue ]; then
  run_cmd 10 "$RDSM" run -n 2 --hang-timeout -1 "$PROG" hang 1 - "$MP_MARKER"
  expect_status 2
  expect_stderr "hang timeout '-1' \\(--hang-timeout\\) is not a number of seconds"
  check_no_leftovers
  echo "PASS: badvalue"
  exit 0
fi
if [ "$MODE" = forked ]; then
  shm_snapshot
  # The program takes no extra argument: its name carries the marker.
  ln -s "$PROG" "$MP_TMP/splash-$MP_MARKER"
  start_bg env RDSM_FAULT=barrier:1:1:stop "$RDSM" run -n 1 --quiet --timeout 15 --hang-timeout 2 \
    "$MP_TMP/splash-$MP_MARKER" -p2 -n65536
  until grep -q "node 1 stops at barrier" "$MP_TMP/err"; do
    kill -0 "$MP_BG_PID" 2>/dev/null || fail "the program ended before its worker stopped: $(cat "$MP_TMP/err")"
    sleep 0.01
  done
  t0=$(now_us)
  wait_bg 15
  expect_status nonzero
  [ "$STATUS" -ne 124 ] || fail "the job ran into its --timeout instead of finding the stopped worker"
  expect_stderr "error: node 1 \(pid [0-9]*\) made no progress for 2 s"
  ms=$(elapsed_ms "$t0" "$END_US")
  [ "$ms" -le 4000 ] || fail "the program ended ${ms} ms after the worker stopped (limit 2 s + 2 s)"
  check_no_leftovers
  check_shm
  echo "PASS: forked: exit status $STATUS after ${ms} ms"
  exit 0
fi
if [ "$MODE" = stop ]; then
  hang_flag=(--hang-timeout 2)
else
  hang_flag=()
  export RDSM_HANG_TIMEOUT=2
fi

shm_snapshot
start_bg "$RDSM" run -n 3 --quiet --timeout 6 "${hang_flag[@]}" "$PROG" hang 2 "$MP_TMP" "$MP_MARKER"
wait_for_file "$MP_TMP/failtime" 20
victim=$(cat "$MP_TMP/pid.2")
case $MODE in
  stop)
    t0=$(now_us)
    kill -STOP "$victim"
    wait_bg 15
    expect_status nonzero
    [ "$STATUS" -ne 124 ] || fail "the job ran into its --timeout instead of finding the stopped node"
    expect_stderr "^rdsm: error: node 2 \\(pid $victim\\) made no progress for 2 s"
    ms=$(elapsed_ms "$t0" "$END_US")
    [ "$ms" -le 4000 ] || fail "the launcher ended ${ms} ms after the node stopped (limit 2 s + 2 s)"
    ;;
  compute)
    wait_bg 20
    expect_status 124
    if grep -q "made no progress" "$MP_TMP/err"; then fail "a node outside rdsm was called hung"; fi
    ms=0
    ;;
  *) fail "unknown mode $MODE" ;;
esac
check_no_leftovers
check_shm
echo "PASS: $MODE: exit status $STATUS (${ms} ms after the stop)"
