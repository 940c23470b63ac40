#!/bin/bash
# stats.sh RDSM SOR MPIRUN_COMMAND...
#
# MPIRUN_COMMAND: how this build starts 2 ranks directly (mpirun -n 2 and its flags).
#
# `rdsm run --fabric mpi` collects the ranks' statistics: SOR on 2 ranks
# prints the summary of the shm fabric (naming the mpi fabric), and
# --stats writes a JSON file whose nodes have every field a shm run of the
# same program gives, plus their host, with figures that agree with each
# other (total = compute + the waits, pages fetched and barriers on every
# node).  With 2 compute threads per node the thread rows come too.  The
# ranks' statistics lines never reach the user, and a program started by
# mpirun directly writes none.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -ge 3 ] || fail "usage: stats.sh RDSM SOR MPIRUN_COMMAND..."
RDSM=$1
SOR=$2
shift 2
ARGS=(-m 256 -n 256 -i 10)

shm_snapshot
run_cmd 60 "$RDSM" run -n 2 --quiet --stats "$MP_TMP/shm.json" "$SOR" "${ARGS[@]}"
expect_status 0
run_cmd 120 "$RDSM" run --fabric mpi -n 2 --stats "$MP_TMP/mpi.json" "$SOR" "${ARGS[@]}"
expect_status 0
grep -q '^PASS sor' "$MP_TMP/out" || fail "SOR did not pass under the mpi fabric"
grep -q 'rdsm-stats' "$MP_TMP/out" "$MP_TMP/err" && fail "a rank's statistics line reached the user"
expect_stderr '^rdsm: protocol rdsm, handler interrupt, memory (uffd|mprotect), 2 nodes, fabric mpi, wall time [0-9.]+ s$'
expect_stderr '^node +total\(s\) +compute +data wait +lock wait +barrier wait +barrier proto +handler$'
expect_stderr '^node +read faults +write faults +fetches +twins +diffs +diff KiB +messages +msg KiB +one-sided$'
expect_stderr '^node +diff ops +invalidations +migrated in +prefetched +used +wasted +refreshed +opened ahead +unwritten +claimed$'
for row in 0 1 mean; do
  [ "$(grep -Ec "^$row +[0-9]" "$MP_TMP/err")" -eq 3 ] || fail "the summary does not have three rows for $row"
done
grep -q '^(-:' "$MP_TMP/err" && fail "the summary misses a node: $(cat "$MP_TMP/err")"

run_cmd 120 "$RDSM" run --fabric mpi -n 2 --threads 2 --quiet --stats "$MP_TMP/threads.json" "$SOR" "${ARGS[@]}"
expect_status 0

python3 - "$MP_TMP/shm.json" "$MP_TMP/mpi.json" "$MP_TMP/threads.json" <<'PY' || fail "the statistics are not as expected: $(cat "$MP_TMP/mpi.json")"
import json, sys
shm, mpi, threads = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:4])
def check(cond, what):
    if not cond:
        sys.exit("stats: " + what)
check(mpi["fabric"] == "mpi" and mpi["exit_status"] == 0 and "error" not in mpi, "fabric, exit status or error")
check(set(shm) <= set(mpi), "top-level members missing under mpi: %s" % sorted(set(shm) - set(mpi)))
check(mpi["memory"] in ("uffd", "mprotect") and mpi["region_size"] > 0, "memory or region size")
check(mpi["wall_seconds"] > 0, "wall_seconds is %r" % mpi["wall_seconds"])
for run in (mpi, threads):
    nodes = run["per_node"]
    check(sorted(n["rank"] for n in nodes) == [0, 1], "ranks are %r" % [n["rank"] for n in nodes])
    for n in nodes:
        r = n["rank"]
        missing = set(shm["per_node"][0]) - set(n)
        check(not missing, "node %d lacks %s" % (r, sorted(missing)))
        check(isinstance(n["host"], str) and n["host"], "node %d has no host" % r)
        check(n["pid"] > 0, "node %d: pid %r" % (r, n["pid"]))
        waits = n["data_wait"] + n["lock_wait"] + n["barrier_wait"] + n["barrier_protocol"]
        check(n["total"] > 0 and n["compute"] >= 0, "node %d: total %r, compute %r" % (r, n["total"], n["compute"]))
        check(abs(n["compute"] + waits - n["total"]) <= 0.01 * n["total"] + 1e-6,
              "node %d: total %r is not compute %r + the waits %r" % (r, n["total"], n["compute"], waits))
        for f in ("pages_fetched", "read_faults", "barriers", "one_sided_ops"):
            check(n[f] > 0, "node %d: %s is %r" % (r, f, n[f]))
        check(n["read_faults"] + n["write_faults"] >= n["pages_fetched"] - n["prefetched"],
              "node %d: more fetches than faults" % r)
    # Two threads per node: each node's rows, whose times add up to the node's.
    if run is threads:
        check(run["threads"] == 2, "threads is %r" % run["threads"])
        for n in nodes:
            rows = n.get("per_thread", [])
            check(len(rows) == 2, "node %d has %d thread rows" % (n["rank"], len(rows)))
            total = sum(t["total"] for t in rows)
            check(abs(total - n["total"]) <= 0.01 * n["total"] + 1e-6,
                  "node %d: its threads' totals %r do not add up to %r" % (n["rank"], total, n["total"]))
print("mpi node 0: total %.4f s, %d fetches, %d barriers, host %s" % (
    mpi["per_node"][0]["total"], mpi["per_node"][0]["pages_fetched"], mpi["per_node"][0]["barriers"],
    mpi["per_node"][0]["host"]))
PY

# Started by mpirun directly: as before, no statistics line.
run_cmd 120 "$@" "$SOR" "${ARGS[@]}"
expect_status 0
grep -q 'rdsm-stats' "$MP_TMP/out" "$MP_TMP/err" && fail "a rank started by mpirun directly wrote a statistics line"

check_no_leftovers
check_shm
echo "PASS: statistics under the mpi fabric"
