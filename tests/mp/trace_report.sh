#!/bin/bash
# trace_report.sh RDSM SOR
#
# `rdsm report TRACE [--against TRACE]`: where a traced job's time went,
# interval by interval between the barriers every node took part in.  A
# made-up trace with known slices gives back exactly its figures (a
# master's lone barriers before and after its workers skipped, the handler
# thread's slices left out, the release before each barrier taken out of
# the work); a real job's report has an interval per barrier after the
# first; --against pairs two traces; a file that is not a trace is an error
# that says so.
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: trace_report.sh RDSM SOR"
RDSM=$1
SOR=$2

# Times in microseconds.  Node 0 waits alone at 0 and at 9000; the three
# barriers of both nodes end at 110, 1500 and 3010.
cat >"$MP_TMP/made.json" <<'JSON'
{"traceEvents": [
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 12, "args": {"name": "handler"}},
 {"ph": "X", "name": "barrier wait", "pid": 0, "tid": 1, "ts": 0, "dur": 1},
 {"ph": "X", "name": "barrier protocol", "pid": 0, "tid": 1, "ts": 1, "dur": 1},
 {"ph": "X", "name": "barrier wait", "pid": 0, "tid": 1, "ts": 100, "dur": 10},
 {"ph": "X", "name": "barrier protocol", "pid": 0, "tid": 1, "ts": 110, "dur": 20},
 {"ph": "X", "name": "read fault", "pid": 0, "tid": 1, "ts": 200, "dur": 30, "args": {"page": 3}},
 {"ph": "X", "name": "lock", "pid": 0, "tid": 1, "ts": 300, "dur": 50, "args": {"lock": 0, "acquired": true}},
 {"ph": "X", "name": "release", "pid": 0, "tid": 1, "ts": 900, "dur": 100},
 {"ph": "X", "name": "barrier wait", "pid": 0, "tid": 1, "ts": 1000, "dur": 500},
 {"ph": "X", "name": "barrier protocol", "pid": 0, "tid": 1, "ts": 1500, "dur": 40},
 {"ph": "X", "name": "write fault", "pid": 0, "tid": 1, "ts": 2000, "dur": 60, "args": {"page": 4}},
 {"ph": "X", "name": "release", "pid": 0, "tid": 1, "ts": 2900, "dur": 100},
 {"ph": "X", "name": "barrier wait", "pid": 0, "tid": 1, "ts": 3000, "dur": 10},
 {"ph": "X", "name": "barrier protocol", "pid": 0, "tid": 1, "ts": 3010, "dur": 6},
 {"ph": "X", "name": "barrier wait", "pid": 0, "tid": 1, "ts": 9000, "dur": 1},
 {"ph": "X", "name": "barrier wait", "pid": 1, "tid": 11, "ts": 105, "dur": 5},
 {"ph": "X", "name": "barrier protocol", "pid": 1, "tid": 11, "ts": 110, "dur": 10},
 {"ph": "X", "name": "write fault", "pid": 1, "tid": 13, "ts": 500, "dur": 40, "args": {"page": 5}},
 {"ph": "X", "name": "write fault", "pid": 1, "tid": 13, "ts": 600, "dur": 40, "args": {"page": 6}},
 {"ph": "X", "name": "read fault", "pid": 1, "tid": 12, "ts": 700, "dur": 90, "args": {"page": 7}},
 {"ph": "X", "name": "release", "pid": 1, "tid": 11, "ts": 1300, "dur": 100},
 {"ph": "X", "name": "barrier wait", "pid": 1, "tid": 11, "ts": 1400, "dur": 100},
 {"ph": "X", "name": "barrier protocol", "pid": 1, "tid": 11, "ts": 1500, "dur": 30},
 {"ph": "X", "name": "release", "pid": 1, "tid": 11, "ts": 1900, "dur": 100},
 {"ph": "X", "name": "barrier wait", "pid": 1, "tid": 11, "ts": 2000, "dur": 1010},
 {"ph": "X", "name": "barrier protocol", "pid": 1, "tid": 11, "ts": 3010, "dur": 8}
]}
JSON
run_cmd 60 "$RDSM" report "$MP_TMP/made.json" --against "$MP_TMP/made.json"
expect_status 0
cat "$MP_TMP/out"
grep -q "^trace .*made.json: 2 nodes, 2 intervals between barriers of them all$" "$MP_TMP/out" ||
  fail "the made-up trace: not 2 nodes and 2 intervals"
# node, work, faults, fault ms, locks, release, barrier wait, barrier protocol, total
grep -Eq "^0 +2\.13 +2 +0\.09 +0\.05 +0\.20 +0\.51 +0\.05 +2\.89$" "$MP_TMP/out" || fail "node 0's totals are wrong"
grep -Eq "^1 +1\.55 +2 +0\.08 +0\.00 +0\.20 +1\.11 +0\.04 +2\.90$" "$MP_TMP/out" ||
  fail "node 1's totals are wrong (the handler thread's fault counted?)"
# per barrier: work / release / wait / protocol, faults
grep -Eq "^1 +0\.77 / 0\.10 / 0\.50 / 0\.04 +1 +1\.18 / 0\.10 / 0\.10 / 0\.03 +2$" "$MP_TMP/out" ||
  fail "the first interval's row is wrong"
# Against itself: no extra time anywhere.
grep -Eq "^1 +2 +0\.0 +0\.00 +0\.09 +-0\.09 +-45\.0$" "$MP_TMP/out" ||
  fail "the paired intervals with one fault: no row of 2 intervals, no extra time"

# A real job, under rdsm and under hw: an interval per barrier after the first.
# (--stats: a file that is not a trace, for the last check.)
for protocol in rdsm hw; do
  run_cmd 120 "$RDSM" run -n 2 --quiet --protocol $protocol --trace "$MP_TMP/$protocol.json" \
    --stats "$MP_TMP/$protocol.stats" "$SOR" -m 256 -n 256 -i 6
  expect_status 0
done
run_cmd 60 "$RDSM" report "$MP_TMP/rdsm.json" --against "$MP_TMP/hw.json"
expect_status 0
cat "$MP_TMP/out"
# Every barrier of SOR's is both nodes' (its statistics count only those after its set-up).
barriers=$(python3 -c "import json, sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents']
                                                if e['name'] == 'barrier wait' and e['pid'] == 1))" "$MP_TMP/rdsm.json")
grep -q "rdsm.json: 2 nodes, $((barriers - 1)) intervals between barriers of them all$" "$MP_TMP/out" ||
  fail "SOR took $barriers barriers: the report should have $((barriers - 1)) intervals"
grep -Eq "^1 +$((barriers - 1)) +[0-9.]+ +[0-9.]+ " "$MP_TMP/out" || fail "node 1's intervals are not paired"

# Not a trace.
run_cmd 60 "$RDSM" report "$MP_TMP/rdsm.json" --against "$MP_TMP/rdsm.stats"
expect_status nonzero
expect_stderr "rdsm.stats: not a trace \(write one with rdsm run --trace FILE\)"
echo "made-up trace exact; SOR: $((barriers - 1)) intervals, paired with hw"
