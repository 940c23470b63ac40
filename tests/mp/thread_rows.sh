# Checks of per-thread statistics rows (--threads), shared by
# stats_threads.sh and stats_threads_forked.sh (sourced after lib.sh).

# check_rows JSON THREADS NODE...: the --stats file lists exactly the nodes
# NODE... (0, 1, ... for launched nodes; w1, w2, ... for the forked workers
# of a fork-join program), each with a row per compute thread; the rows are
# well formed and add up to their node: in every time column, in faults (at
# least the node's read and write faults) and in locks (at least the node's
# protocol-level acquires, the rest are local hand-offs).
check_rows() {
  python3 - "$@" <<'PY' || fail "the per-thread statistics are not as expected: $(cat "$1")"
import json, sys
path, threads, want = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with open(path, encoding="utf-8") as f:
    s = json.load(f)
def check(cond, what):
    if not cond:
        sys.exit("stats: " + what)
check(s["threads"] == threads, "threads is %r" % s["threads"])
labels = [("w" if n.get("forked") else "") + str(n["rank"]) for n in s["per_node"]]
check(labels == want, "per_node lists %r, expected %r" % (labels, want))
times = ("total", "compute", "data_wait", "lock_wait", "barrier_wait", "barrier_protocol")
for n, node in zip(s["per_node"], labels):
    rows = n.get("per_thread")
    check(rows is not None and len(rows) == threads, "node %s: per_thread is %r" % (node, rows))
    check([r["thread"] for r in rows] == list(range(threads)), "node %s: threads %r" % (node, rows))
    for r in rows:
        for f in times + ("faults", "locks"):
            check(isinstance(r[f], (int, float)) and r[f] >= 0, "node %s thread %d: %s is %r" %
                  (node, r["thread"], f, r[f]))
        check(r["total"] > 0, "node %s thread %d never ran" % (node, r["thread"]))
        busy = sum(r[f] for f in times[2:])
        check(abs(r["compute"] + busy - r["total"]) <= 1e-6, "node %s thread %d: compute + waits %r != total %r" %
              (node, r["thread"], r["compute"] + busy, r["total"]))
    for f in times:
        got = sum(r[f] for r in rows)
        check(abs(got - n[f]) <= 1e-6 + 1e-6 * n[f], "node %s: the threads' %s add up to %r, the node's is %r" %
              (node, f, got, n[f]))
    faults = sum(r["faults"] for r in rows)
    check(faults >= n["read_faults"] + n["write_faults"],
          "node %s: the threads' faults %d < the node's %d" % (node, faults, n["read_faults"] + n["write_faults"]))
    check(sum(r["locks"] for r in rows) >= n["lock_acquires"], "node %s: fewer thread locks than node acquires" %
          node)
PY
}

# check_summary THREADS NODE...: the summary has, per thread of each node,
# a time row and an event row (0.t1, w2.t0, ...).
check_summary() {
  local threads=$1 node t
  shift
  expect_stderr '^thread +faults +locks$'
  for node in "$@"; do
    for ((t = 0; t < threads; ++t)); do
      [ "$(grep -Ec "^$node\.t$t +[0-9]" "$MP_TMP/err")" -eq 2 ] || fail "the summary lacks the rows of $node.t$t"
    done
  done
}
