#!/bin/bash
# stats_threads.sh RDSM SOR STRESS
#
# Per-thread statistics of multi-threaded nodes (--threads): SOR at 2 nodes x
# 2 threads and the stress at 1 node x 4 threads (locks handed over inside
# the node), each with --stats.  Every node has a row per compute thread in
# the JSON (per_thread) and in the summary (0.t0, 0.t1, ...), and the rows
# add up to their node: in every time column, in faults (SOR: read and write
# faults of the node) and in locks (the stress: at least the node's
# protocol-level acquires, the rest are local hand-offs).  A run without
# --threads has no per-thread rows.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || fail "usage: stats_threads.sh RDSM SOR STRESS"
RDSM=$1
SOR=$2
STRESS=$3

check_rows() {  # check_rows JSON NODES THREADS
  python3 - "$@" <<'PY' || fail "the per-thread statistics are not as expected: $(cat "$1")"
import json, sys
path, nodes, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, encoding="utf-8") as f:
    s = json.load(f)
def check(cond, what):
    if not cond:
        sys.exit("stats: " + what)
check(s["threads"] == threads, "threads is %r" % s["threads"])
check(len(s["per_node"]) == nodes, "%d per_node entries" % len(s["per_node"]))
times = ("total", "compute", "data_wait", "lock_wait", "barrier_wait", "barrier_protocol")
for n in s["per_node"]:
    rows = n.get("per_thread")
    check(rows is not None and len(rows) == threads, "node %d: per_thread is %r" % (n["rank"], rows))
    check([r["thread"] for r in rows] == list(range(threads)), "node %d: threads %r" % (n["rank"], rows))
    for r in rows:
        for f in times + ("faults", "locks"):
            check(isinstance(r[f], (int, float)) and r[f] >= 0, "node %d thread %d: %s is %r" %
                  (n["rank"], r["thread"], f, r[f]))
        check(r["total"] > 0, "node %d thread %d never ran" % (n["rank"], r["thread"]))
        busy = sum(r[f] for f in times[2:])
        check(abs(r["compute"] + busy - r["total"]) <= 1e-6, "node %d thread %d: compute + waits %r != total %r" %
              (n["rank"], r["thread"], r["compute"] + busy, r["total"]))
    for f in times:
        got = sum(r[f] for r in rows)
        check(abs(got - n[f]) <= 1e-6 + 1e-6 * n[f], "node %d: the threads' %s add up to %r, the node's is %r" %
              (n["rank"], f, got, n[f]))
    faults = sum(r["faults"] for r in rows)
    check(faults >= n["read_faults"] + n["write_faults"],
          "node %d: the threads' faults %d < the node's %d" % (n["rank"], faults, n["read_faults"] + n["write_faults"]))
    check(sum(r["locks"] for r in rows) >= n["lock_acquires"], "node %d: fewer thread locks than node acquires" %
          n["rank"])
PY
}

# At least one time row and one event row per thread, under its node.
check_summary() {  # check_summary NODES THREADS
  expect_stderr '^thread +faults +locks$'
  for ((r = 0; r < $1; ++r)); do
    for ((t = 0; t < $2; ++t)); do
      [ "$(grep -Ec "^$r\.t$t +[0-9]" "$MP_TMP/err")" -eq 2 ] || fail "the summary lacks the rows of $r.t$t"
    done
  done
}

JSON="$MP_TMP/sor.json"
run_cmd 120 "$RDSM" run -n 2 --threads 2 --stats "$JSON" "$SOR" -m 256 -n 256 -i 10
expect_status 0
check_rows "$JSON" 2 2
check_summary 2 2

JSON="$MP_TMP/stress.json"
run_cmd 120 "$RDSM" run -n 1 --threads 4 --stats "$JSON" "$STRESS" --seeds 1:2
expect_status 0
check_rows "$JSON" 1 4
check_summary 1 4
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
