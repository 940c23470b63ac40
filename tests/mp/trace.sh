#!/bin/bash
# trace.sh RDSM STRESS FAIL_NODE CHECK_PY
#
# `rdsm run --trace`: for protocols with and without messages, a job of the
# randomised stress writes a trace whose event counts are its statistics
# (trace_check.py), with its part files gone; a job whose node fails still
# leaves a readable trace of what happened, no part files and no process.
. "$(dirname "$0")/lib.sh"

[ $# -eq 4 ] || fail "usage: trace.sh RDSM STRESS FAIL_NODE CHECK_PY"
RDSM=$1
STRESS=$2
FAIL_NODE=$3
CHECK=$4
TRACE=$MP_TMP/trace.json
STATS=$MP_TMP/stats.json

shm_snapshot
for protocol in rdsm async genima; do
  rm -f "$TRACE" "$STATS"
  run_cmd 120 "$RDSM" run -n 2 --quiet --protocol "$protocol" --trace "$TRACE" --stats "$STATS" "$STRESS" \
    --seeds 1:2 --rounds 10
  expect_status 0
  [ -f "$TRACE" ] || fail "$protocol: no trace written"
  out=$(python3 "$CHECK" "$TRACE" "$STATS" 2>&1) || fail "$protocol: $out"
  echo "$protocol: $out"
  if [ "$protocol" = async ]; then
    grep -q '"name":"send"' "$TRACE" || fail "async sends messages, but its trace has no send"
  fi
  leftovers=$(ls "$TRACE".* 2>/dev/null)
  [ -z "$leftovers" ] || fail "$protocol: left behind: $leftovers"
done

# A node that fails: the job ends non-zero, the nodes that wrote their part
# are in the trace, nothing else is left.
rm -f "$TRACE"
run_cmd 60 "$RDSM" run -n 3 --quiet --trace "$TRACE" "$FAIL_NODE" exit3 2 - "$MP_MARKER"
expect_status 3
leftovers=$(ls "$TRACE".* 2>/dev/null)
[ -z "$leftovers" ] || fail "a failed job left behind: $leftovers"
if [ -e "$TRACE" ]; then
  python3 -m json.tool "$TRACE" >/dev/null || fail "the failed job's trace is not JSON"
fi
check_no_leftovers
check_shm
echo "PASS: timeline traces agree with the statistics"
