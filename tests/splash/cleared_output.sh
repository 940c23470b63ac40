#!/bin/bash
# cleared_output.sh RDSM CLEARED_OUTPUT PROTOCOL
#
# Where the homes of a fork-join program's first allocations start: the
# pages the master cleared or never wrote start in blocks where homes
# migrate (the default preset), else with their first toucher, so the
# worker writes its blocks of them without twins: one for the shared
# counter it takes its number from, under a lock, and under the default
# preset one per array at most, for the page by which the array's blocks
# and the process's (page-aligned inside the allocation) differ; 128 if
# every page started at the master.  Under the default preset the worker's
# 128 pages also cost a few write faults, not one each.  The program checks
# every element itself.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -eq 3 ] || fail "usage: cleared_output.sh RDSM CLEARED_OUTPUT PROTOCOL"
RDSM=$1
PROG=$2
PROTOCOL=$3
JSON="$MP_TMP/stats.json"

run_cmd 60 "$RDSM" run -n 1 --quiet --protocol "$PROTOCOL" --stats "$JSON" "$PROG" -p 2 -k 64
expect_status 0
grep -q '^PASS cleared_output' "$MP_TMP/out" || fail "the program did not pass: $(cat "$MP_TMP/out")"
python3 - "$JSON" "$PROTOCOL" <<'PY' || fail "the worker's statistics: see above"
import json, sys
s = json.load(open(sys.argv[1]))
workers = [n for n in s["per_node"] if n["forked"]]
if len(workers) != 1:
    sys.exit("expected one forked worker, found %d" % len(workers))
w = workers[0]
print("worker: %d twins, %d write faults" % (w["twins"], w["write_faults"]))
if w["twins"] > (3 if sys.argv[2] == "rdsm" else 1):
    sys.exit("the worker made %d twins: pages the master only cleared or never wrote started at the master"
             % w["twins"])
if sys.argv[2] == "rdsm" and w["write_faults"] > 16:
    sys.exit("the worker took %d write faults for 128 pages it touched first: a first touch did not claim the "
             "pages after it" % w["write_faults"])
PY
check_no_leftovers
echo "PASS cleared_output $PROTOCOL"
