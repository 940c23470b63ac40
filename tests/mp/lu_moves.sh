#!/bin/bash
# lu_moves.sh RDSM SPLASH_LU
#
# A SPLASH-style LU whose master initialises the matrix before CREATE
# (each process's blocks in one chunk of their own, homed half at each
# node): the worker's part of the master's pages moves to it within a few
# barriers, so it sends few diffs (about 515 at this size).  The master
# names the worker's first copies "maybe written" (it wrote those pages
# unnoticed), which keeps their groups from the group rule at first; they
# must move at the next epoch all the same, outside the move budget, and a
# group some of whose pages moved already must still count as the worker's
# (home_migration.cpp).  Left to the budget, the part moves 64, 128...
# pages a barrier, its diffs sent home at each (1,000-1,350 diffs).
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: lu_moves.sh RDSM SPLASH_LU"
RDSM=$1
PROG=$2
JSON="$MP_TMP/stats.json"

run_cmd 60 "$RDSM" run -n 1 --protocol rdsm --stats "$JSON" "$PROG" -p2 -n1024
expect_status 0
python3 - "$JSON" <<'PY' || fail "the worker's diffs are not as expected: $(cat "$JSON")"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    s = json.load(f)
worker = [n for n in s["per_node"] if n.get("forked")]
if len(worker) != 1:
    sys.exit("stats: %d forked workers, not 1" % len(worker))
w = worker[0]
if w["migrations"] < 400:
    sys.exit("stats: the worker became home of %d pages, not its part (about 500)" % w["migrations"])
if w["diffs"] > 900:
    sys.exit("stats: the worker sent %d diffs, more than 900: its part moved by the budget alone" % w["diffs"])
PY
echo "PASS lu_moves"
