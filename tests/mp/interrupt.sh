#!/bin/bash
# interrupt.sh RDSM SIGNAL [FAIL_NODE]
#
# Sends SIGNAL (INT or TERM) to the launcher of a job whose nodes all hang:
# fail_node's hang mode when FAIL_NODE is given, else a shell that sleeps.
# The launcher must end the job, say it was interrupted and exit with
# 128+signal, leaving nothing behind.
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || fail "usage: interrupt.sh RDSM INT|TERM [FAIL_NODE]"
RDSM=$1
SIG=$2
PROG=${3:-}
case $SIG in
  INT) want_status=130 ;;
  TERM) want_status=143 ;;
  *) fail "unknown signal $SIG" ;;
esac

# Without job control a background command ignores SIGINT, which the
# launcher (rightly) keeps ignoring.
set -m
shm_snapshot

if [ -n "$PROG" ]; then
  start_bg "$RDSM" run -n 3 --quiet "$PROG" hang 1 "$MP_TMP" "$MP_MARKER"
  wait_for_file "$MP_TMP/failtime" 20
  for r in 0 1 2; do wait_for_file "$MP_TMP/pid.$r" 20; done
else
  start_bg "$RDSM" run -n 3 --quiet sh -c "$RECORD_PID; "'exec sleep 600' "$MP_TMP" "$MP_MARKER"
  for r in 0 1 2; do wait_for_file "$MP_TMP/pid.$r" 20; done
fi

t0=$(now_us)
kill "-$SIG" "$MP_BG_PID"
wait_bg 10
expect_status "$want_status"
expect_stderr '^rdsm: interrupted.*; ending the job'
ms=$(elapsed_ms "$t0" "$END_US")
[ "$ms" -le 2000 ] || fail "the launcher ended ${ms} ms after SIG$SIG (limit 2000 ms)"
check_no_leftovers
check_shm
echo "PASS: SIG$SIG: exit status $STATUS after ${ms} ms"
