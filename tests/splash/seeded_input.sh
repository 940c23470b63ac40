#!/bin/bash
# seeded_input.sh RDSM SEEDED_INPUT PROTOCOL PROCESSES
#
# Where the homes of the data a fork-join master set up start: spread over
# the processes in blocks, each worker's block of the master's arrays is
# at home there, in both jobs, so a worker that reads and overwrites its
# block fetches and twins nothing of it (a page or so at a block's edge,
# and the shared counter it takes its number from; 128 pages of each per
# job if the master's data stayed at the master).  The program checks
# every element itself.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -eq 4 ] || fail "usage: seeded_input.sh RDSM SEEDED_INPUT PROTOCOL PROCESSES"
RDSM=$1
PROG=$2
PROTOCOL=$3
PROCS=$4
JSON="$MP_TMP/stats.json"

run_cmd 120 "$RDSM" run -n 1 --quiet --protocol "$PROTOCOL" --stats "$JSON" "$PROG" -p "$PROCS" -k 64
expect_status 0
grep -q '^PASS seeded_input' "$MP_TMP/out" || fail "the program did not pass: $(cat "$MP_TMP/out")"
python3 - "$JSON" "$PROCS" <<'PY' || fail "the workers' statistics: see above"
import json, sys
s = json.load(open(sys.argv[1]))
workers = [n for n in s["per_node"] if n["forked"]]
if len(workers) != int(sys.argv[2]) - 1:
    sys.exit("expected %d forked workers, found %d" % (int(sys.argv[2]) - 1, len(workers)))
for w in workers:
    print("worker: %d pages fetched, %d twins over 2 jobs" % (w["pages_fetched"], w["twins"]))
    if w["pages_fetched"] > 12 or w["twins"] > 12:
        sys.exit("a worker fetched %d pages and made %d twins: its block of the master's data did not start "
                 "at home there" % (w["pages_fetched"], w["twins"]))
PY
check_no_leftovers
echo "PASS seeded_input $PROTOCOL"
