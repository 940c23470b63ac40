#!/bin/bash
# bench.sh RDSM
#
# `rdsm bench --fabric shm,mpi`: SOR and the SPLASH LU (a fork-join app:
# forked on shm, a rank per process on mpi) at test size, 2 nodes,
# protocols rdsm and async, runs every configuration on both fabrics and hw
# and plain threads (one process of 2 threads) on shm only, once each (no
# extra rounds for short runs: --short-runs 1), each run recording the
# fabric the launcher ran with its statistics; then `rdsm report` shows the
# fabrics side by side, a row each (rdsm@shm, rdsm@mpi), in its tables, its
# --brief table and summary.json, and hw and threads under their own names.
. "$(dirname "$0")/../mp/lib.sh"

[ $# -eq 1 ] || fail "usage: bench.sh RDSM"
RDSM=$1
BUILD=$(dirname "$RDSM")
JSON="$MP_TMP/bench.json"

shm_snapshot
run_cmd 300 "$RDSM" bench --build "$BUILD" --fabric shm,mpi --apps sor,splash_lu --sizes test --nodes 2 --protocols rdsm,async \
  --short-runs 1 \
  --out "$JSON"
expect_status 0
grep -q '^12 runs, 0 failed' "$MP_TMP/out" || fail "not 12 runs without a failure: $(cat "$MP_TMP/out")"
python3 - "$JSON" <<'PY' || fail "the bench file is not as expected"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
def check(cond, what):
    if not cond:
        sys.exit("bench: " + what)
check(doc["config"]["fabric"] == ["shm", "mpi"], "config fabric %r" % doc["config"]["fabric"])
ran = sorted((r["app"], r["protocol"], r["fabric"], r["stats"]["fabric"]) for r in doc["runs"])
want = sorted((app,) + w for app in ("sor", "splash_lu")
              for w in [("rdsm", "shm", "shm"), ("rdsm", "mpi", "mpi"), ("async", "shm", "shm"),
                        ("async", "mpi", "mpi"), ("hw", "shm", "shm"), ("threads", "shm", "shm")])
check(ran == want, "runs (protocol, fabric, launcher's fabric) %r" % ran)
for r in doc["runs"]:
    nodes = r["stats"]["per_node"]
    # Plain threads: one node of 2 threads.
    want_nodes = 1 if r["protocol"] == "threads" else 2
    check(len(nodes) == want_nodes and all(n["total"] > 0 for n in nodes), "%s %s on %s: per-node statistics %r" % (
        r["app"], r["protocol"], r["fabric"], nodes))
    check(r["parallel_seconds"] is not None, "%s %s on %s: no parallel time" % (r["app"], r["protocol"], r["fabric"]))
PY

run_cmd 120 "$RDSM" report "$JSON" --out "$MP_TMP/report"
expect_status 0
for row in rdsm@shm rdsm@mpi async@shm async@mpi; do
  # In the times table and in the breakdown, of both apps.
  [ "$(grep -Ec "^$row +[0-9]" "$MP_TMP/out")" -ge 4 ] || fail "the report has too few rows for $row: $(cat "$MP_TMP/out")"
done
grep -Eq '^hw +[0-9]' "$MP_TMP/out" || fail "the report has no hw row"
grep -Eq '^threads +[0-9]' "$MP_TMP/out" || fail "the report has no row for plain threads"
grep -Eq '^(hw|threads)@' "$MP_TMP/out" && fail "hw or threads is named after a fabric"
python3 - "$MP_TMP/report/summary.json" <<'PY' || fail "summary.json is not as expected"
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
if s["fabrics"] != ["shm", "mpi"]:
    sys.exit("fabrics %r" % s["fabrics"])
got = sorted({r["protocol"] for g in s["groups"] for r in g["results"]})
if got != ["async@mpi", "async@shm", "hw", "rdsm@mpi", "rdsm@shm", "threads"]:
    sys.exit("protocols %r" % got)
PY
cp "$MP_TMP/out" "$MP_TMP/full"
run_cmd 60 "$RDSM" report "$JSON" --brief
expect_status 0
for row in rdsm@shm rdsm@mpi async@shm async@mpi hw threads; do
  grep -Eq "^$row +[0-9]" "$MP_TMP/out" || fail "the brief report has no row for $row: $(cat "$MP_TMP/out")"
done
sed -n '/^== sor/,/^$/p' "$MP_TMP/full"

check_no_leftovers
check_shm
echo "PASS: rdsm bench and report on shm and mpi"
