#!/bin/bash
# failure.sh FAILURES MODE [launcher]
#
# Runs the SPLASH-style program `failures` (alone, or under `rdsm run -n 1`
# with a third argument naming the launcher) in a failing MODE.  The program
# must end promptly with a non-zero status and a message naming the cause,
# and leave no process behind.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -ge 2 ] || fail "usage: failure.sh FAILURES MODE [RDSM]"
PROG=$1
MODE=$2
RDSM=${3:-}

case $MODE in
  crash) want_status=139; want_msg='node [0-9]+ \(pid [0-9]+\) was killed by signal 11 \(SIGSEGV\); ending the program' ;;
  exit) want_status=1; want_msg="node [0-9]+ \\(pid [0-9]+\\) exited before its CREATE'd function returned" ;;
  huge) want_status=2; want_msg='G_MALLOC: .* do not fit in the shared region of [0-9]+ MiB' ;;
  estimate) want_status=2; want_msg='MAIN_INITENV: asks for [0-9]+ bytes of shared memory, but G_MALLOC before it set up a shared region of [0-9]+ bytes; set RDSM_REGION_SIZE' ;;
  barrier) want_status=2; want_msg='BARRIER: 5 processes asked for, but the job has 4' ;;
  ok|leave) want_status=0; want_msg='' ;;
  *) fail "unknown mode $MODE" ;;
esac
if [ "$MODE" = crash ]; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
fi

if [ -n "$RDSM" ]; then
  run_cmd 30 "$RDSM" run -n 1 --quiet "$PROG" "$MODE" "$MP_MARKER"
else
  run_cmd 30 "$PROG" "$MODE" "$MP_MARKER"
fi
if [ -n "$RDSM" ] && [ "$MODE" = crash ]; then
  want_status=nonzero  # the launcher reports the master's status its own way
fi
expect_status "$want_status"
[ -z "$want_msg" ] || expect_stderr "$want_msg"
case $MODE in ok|leave) grep -q "PASS failures" "$MP_TMP/out" || fail "no PASS line" ;; esac
check_no_leftovers
echo "PASS failure.sh $MODE${RDSM:+ (launcher)}"
