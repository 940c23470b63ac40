#!/bin/bash
# stats_threads.sh RDSM SOR STRESS
#
# Per-thread statistics of multi-threaded nodes (--threads): SOR at 2 nodes x
# 2 threads and the stress at 1 node x 4 threads (locks handed over inside
# the node), each with --stats.  Every node has a row per compute thread in
# the JSON (per_thread) and in the summary (0.t0, 0.t1, ...), and the rows
# add up to their node: in every time column, in faults (SOR: read and write
# faults of the node) and in locks (the stress: at least the node's
# protocol-level acquires, the rest are local hand-offs; thread_rows.sh).
# A run without --threads has no per-thread rows.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || fail "usage: stats_threads.sh RDSM SOR STRESS"
RDSM=$1
SOR=$2
STRESS=$3

. "$(dirname "$0")/thread_rows.sh"

JSON="$MP_TMP/sor.json"
run_cmd 120 "$RDSM" run -n 2 --threads 2 --stats "$JSON" "$SOR" -m 256 -n 256 -i 10
expect_status 0
check_rows "$JSON" 2 0 1
check_summary 2 0 1

JSON="$MP_TMP/stress.json"
run_cmd 120 "$RDSM" run -n 1 --threads 4 --stats "$JSON" "$STRESS" --seeds 1:2
expect_status 0
check_rows "$JSON" 4 0
check_summary 4 0
python3 - "$JSON" <<'PY' || fail "the stress's threads took no locks: $(cat "$JSON")"
import json, sys
rows = json.load(open(sys.argv[1], encoding="utf-8"))["per_node"][0]["per_thread"]
sys.exit(0 if all(r["locks"] > 0 for r in rows) else "a thread took no lock")
PY

JSON="$MP_TMP/plain.json"
run_cmd 120 "$RDSM" run -n 2 --stats "$JSON" "$SOR" -m 128 -n 128 -i 2
expect_status 0
python3 -c 'import json, sys; sys.exit(any("per_thread" in n for n in json.load(open(sys.argv[1]))["per_node"]))' \
  "$JSON" || fail "a run of one thread per node has per-thread rows"
! grep -Eq '^(thread +faults|0\.t0 )' "$MP_TMP/err" || fail "a run of one thread per node prints per-thread rows"
echo "PASS stats_threads"
