#!/bin/bash
# rank_stopped.sh RDSM FAIL_NODE MODE
#
# Hang detection under the mpi fabric (a hang timeout of 2 s).  A job of 3
# ranks started by `rdsm run --fabric mpi`, in which rank 2 sleeps outside
# rdsm after the first barrier while the others wait for it in a second one
# (fail_node's "hang" mode).  MODE:
#   stop     the test SIGSTOPs rank 2: the job must end non-zero within the
#            timeout + 2 s, naming rank 2, and leave no process and nothing
#            in /dev/shm behind;
#   compute  rank 2 just goes on sleeping: a long phase without rdsm calls
#            is not a hang, so the job runs until its --timeout of 6 s.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -eq 3 ] || fail "usage: rank_stopped.sh RDSM FAIL_NODE stop|compute"
RDSM=$1
PROG=$2
MODE=$3

shm_snapshot
start_bg "$RDSM" run --fabric mpi -n 3 --hang-timeout 2 --timeout 6 "$PROG" hang 2 "$MP_TMP" "$MP_MARKER"
wait_for_file "$MP_TMP/failtime" 60
wait_for_file "$MP_TMP/pid.2" 10
victim=$(cat "$MP_TMP/pid.2")
case $MODE in
  stop)
    t0=$(now_us)
    kill -STOP "$victim"
    wait_bg 20
    expect_status nonzero
    expect_stderr "node 2 \\(pid $victim on host [^)]*\\) made no progress for 2 s"
    if grep -q "job has exceeded its timeout\|timed out" "$MP_TMP/err"; then
      fail "the job ran into its --timeout instead of finding the stopped rank"
    fi
    ms=$(elapsed_ms "$t0" "$END_US")
    [ "$ms" -le 4000 ] || fail "the job ended ${ms} ms after rank 2 stopped (limit 2 s + 2 s)"
    ;;
  compute)
    wait_bg 30
    expect_status nonzero
    if grep -q "made no progress" "$MP_TMP/err"; then fail "a rank outside rdsm was called hung"; fi
    check_no_leftovers
    check_shm
    echo "PASS: compute: no rank called hung; the job ran into its --timeout (exit status $STATUS)"
    exit 0
    ;;
  *) fail "unknown mode $MODE" ;;
esac
check_no_leftovers
check_shm
echo "PASS: stop: exit status $STATUS, ended ${ms} ms after rank 2 stopped"
