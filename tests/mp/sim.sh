#!/bin/bash
# sim.sh RDSM SOR TSP
#
# `rdsm sim`: a trace replayed with no network costs gives back the measured
# time of every node (the replay keeps compute, events, barrier and lock
# order: nothing is lost or counted twice), for one-sided (genima) and
# message-based (async) protocols, with barriers (SOR) and locks (TSP); a
# network makes the prediction longer, a slower one longer still; a wrong
# trace or setting is an error that names it.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || fail "usage: sim.sh RDSM SOR TSP"
RDSM=$1
SOR=$2
TSP=$3
TRACE=$MP_TMP/trace.json

ratio() {  # the predicted / measured ratio of the job, from rdsm sim's output
  sed -n 's/^job .*(predicted \/ measured on shm: \([0-9.]*\))$/\1/p' "$MP_TMP/out"
}

for protocol in genima async; do
  for app in sor tsp; do
    if [ $app = sor ]; then prog=("$SOR" -m 512 -n 512 -i 10); else prog=("$TSP" --size test); fi
    run_cmd 120 "$RDSM" run -n 2 --quiet --protocol "$protocol" --trace "$TRACE" "${prog[@]}"
    expect_status 0
    run_cmd 60 "$RDSM" sim "$TRACE"
    expect_status 0
    r=$(ratio)
    [ "$r" = 1.00 ] || fail "$protocol $app: the replay with no network predicts $r of the measured time, not 1.00"
    python3 - "$MP_TMP/out" <<'PY' || fail "$protocol $app: a node's replay differs from its measured time"
import sys
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0].isdigit():
        measured, predicted = float(f[1]), float(f[2])
        if abs(predicted - measured) > 0.0001 + 0.005 * measured:
            sys.exit("node %s: measured %s, predicted %s" % (f[0], f[1], f[2]))
PY
    run_cmd 60 "$RDSM" sim "$TRACE" --emu-preset rdma
    expect_status 0
    fast=$(ratio)
    run_cmd 60 "$RDSM" sim "$TRACE" --emu-preset achievable --emu interrupt=50us
    expect_status 0
    slow=$(ratio)
    python3 -c "import sys; f, s = float('$fast'), float('$slow'); sys.exit(0 if 1.0 <= f < s else 1)" ||
      fail "$protocol $app: predicted/measured $fast on rdma and $slow on a slow network: not 1 <= rdma < slow"
    echo "$protocol $app: replay 1.00, rdma $fast, achievable+interrupt=50us $slow"
  done
done

# Extrapolated to more nodes (SOR, barriers only): the compute of all the
# nodes together stays what the trace's nodes computed; a program that
# takes locks is refused, as is a node count the trace already has.
run_cmd 120 "$RDSM" run -n 2 --quiet --protocol genima --trace "$TRACE" "$SOR" -m 512 -n 512 -i 10
expect_status 0
run_cmd 60 "$RDSM" sim "$TRACE"
expect_status 0
cp "$MP_TMP/out" "$MP_TMP/sim2"
run_cmd 60 "$RDSM" sim "$TRACE" --nodes 8 --emu-preset rdma
expect_status 0
python3 - "$MP_TMP/sim2" "$MP_TMP/out" <<'PY' || fail "the extrapolation to 8 nodes does not conserve the compute"
import sys
def compute(path):
    return sum(float(l.split()[3]) for l in open(path) if l.split() and l.split()[0].isdigit())
rows = sum(1 for l in open(sys.argv[2]) if l.split() and l.split()[0].isdigit())
a, b = compute(sys.argv[1]), compute(sys.argv[2])
# The columns are printed to 0.1 ms: the 2 rows and the 8 may each be off
# by half of that, 0.5 ms in all, beside 1% of the sum.
if rows != 8 or abs(a - b) > 0.0005 + 0.01 * a:
    sys.exit("2 nodes computed %.4f s in all, the 8 predicted %.4f s (%d rows)" % (a, b, rows))
PY
grep -q "extrapolated from the trace's 2 (communication fixed)" "$MP_TMP/out" || fail "no extrapolation line"
run_cmd 60 "$RDSM" sim "$TRACE" --nodes 2
expect_status 2
expect_stderr "the trace has 2 nodes; --nodes predicts for more"
run_cmd 120 "$RDSM" run -n 2 --quiet --protocol genima --trace "$TRACE" "$TSP" --size test
expect_status 0
run_cmd 60 "$RDSM" sim "$TRACE" --nodes 4
expect_status 2
expect_stderr "the trace takes locks: only a program that synchronises by barriers alone can be extrapolated"

# The NIs' queues: two nodes fetch a page from each other at the same
# moment over NIs that take 5 us a packet.  Node 0's request and page
# take both NIs for 10 us (a transfer holds the sending NI and the
# receiving one); node 1's queue behind them: 20 us.  Each node's timed
# part is 100 us, of which its fault is 10 us.
python3 - "$MP_TMP/two_fetches.json" <<'PY'
import json, sys
ev = []
for n in (0, 1):
    ev += [{"ph": "M", "name": "thread_name", "pid": n, "tid": 1, "args": {"name": "compute"}},
           {"ph": "i", "name": "statistics reset", "pid": n, "tid": 1, "ts": 0, "s": "p", "args": {}},
           {"ph": "X", "name": "read fault", "pid": n, "tid": 1, "ts": 10, "dur": 10, "args": {"page": 1}},
           {"ph": "i", "name": "ops", "pid": n, "tid": 1, "ts": 15, "s": "t",
            "args": {"op": "get", "to": 1 - n, "count": 1, "bytes": 4096}},
           {"ph": "i", "name": "statistics read", "pid": n, "tid": 1, "ts": 100, "s": "p", "args": {}}]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
run_cmd 30 "$RDSM" sim "$MP_TMP/two_fetches.json" --emu occupancy=5us --json "$MP_TMP/two_fetches.out.json"
expect_status 0
python3 - "$MP_TMP/two_fetches.out.json" <<'PY' || fail "the NIs' queueing is not as modelled"
import json, sys
got = {int(n): f["predicted"] * 1e6 for n, f in json.load(open(sys.argv[1]))["nodes"].items()}
want = {0: 110.0, 1: 120.0}
if any(abs(got[n] - want[n]) > 0.01 for n in want):
    sys.exit("predicted %s us, expected %s" % (got, want))
PY

# The same, with node 1's fault resolved by its memory backend's fault
# service thread (a message-based fetch in poll mode, sc, the mpi fabric):
# it blocks the compute thread all the same, and is charged the same.
python3 - "$MP_TMP/two_fetches.json" "$MP_TMP/served_fetch.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "fault service"}})
for e in ev:
    if e["pid"] == 1 and e["name"] in ("read fault", "ops"):
        e["tid"] = 2
json.dump(doc, open(sys.argv[2], "w"))
PY
run_cmd 30 "$RDSM" sim "$MP_TMP/served_fetch.json" --emu occupancy=5us --json "$MP_TMP/served_fetch.out.json"
expect_status 0
cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$MP_TMP/two_fetches.out.json") \
       <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$MP_TMP/served_fetch.out.json") ||
  fail "a fault resolved by the fault service thread is not replayed as the compute thread's own"

# A three-hop read miss (sc's): node 0's fault asks node 2 (the manager),
# whose handler orders node 1 (the owner), whose handler sends node 0 the
# page.  Over NIs of 5 us a packet, the fault waits for the three flights
# one after the other: the request and the order (a packet each) and the
# page (two): 20 us on top of its 10.  The trace's fabric recorded its
# one-sided operations (none here), so the messages go through the NIs.
python3 - "$MP_TMP/three_hops.json" <<'PY'
import json, sys
ev = []
for n in (0, 1, 2):
    ev += [{"ph": "M", "name": "thread_name", "pid": n, "tid": 1, "args": {"name": "compute"}},
           {"ph": "M", "name": "thread_name", "pid": n, "tid": 2, "args": {"name": "handler"}},
           {"ph": "i", "name": "statistics reset", "pid": n, "tid": 1, "ts": 0, "s": "p", "args": {}},
           {"ph": "i", "name": "statistics read", "pid": n, "tid": 1, "ts": 100, "s": "p", "args": {}}]
def message(fid, src, src_tid, at, dst, taken, bytes):
    return [{"ph": "i", "name": "send", "pid": src, "tid": src_tid, "ts": at, "s": "t",
             "args": {"type": 40, "to": dst, "bytes": bytes}},
            {"ph": "s", "name": "message", "id": fid, "pid": src, "tid": src_tid, "ts": at},
            {"ph": "f", "bp": "e", "name": "message", "id": fid, "pid": dst, "tid": 2, "ts": taken},
            {"ph": "X", "name": "handler", "pid": dst, "tid": 2, "ts": taken, "dur": 1,
             "args": {"type": 40, "from": src, "bytes": bytes}}]
ev.append({"ph": "X", "name": "read fault", "pid": 0, "tid": 1, "ts": 10, "dur": 10, "args": {"page": 1}})
ev += message("0x1", 0, 1, 11, 2, 13, 8)       # the request, to the manager
ev += message("0x2", 2, 2, 13.5, 1, 15, 8)     # its order, to the owner
ev += message("0x3", 1, 2, 15.5, 0, 17, 4096)  # the page, to the requestor
json.dump({"otherData": {"producer": "rdsm", "operations": "recorded"}, "traceEvents": ev}, open(sys.argv[1], "w"))
PY
run_cmd 30 "$RDSM" sim "$MP_TMP/three_hops.json" --emu occupancy=5us --json "$MP_TMP/three_hops.out.json"
expect_status 0
python3 - "$MP_TMP/three_hops.out.json" <<'PY' || fail "a three-hop answer is not waited for as modelled"
import json, sys
got = json.load(open(sys.argv[1]))["nodes"]["0"]["predicted"] * 1e6
if abs(got - 120.0) > 0.01:
    sys.exit("node 0 predicted %.3f us, expected 120" % got)
PY

run_cmd 30 "$RDSM" sim "$MP_TMP/no-such-trace.json"
expect_status 2
expect_stderr "rdsm sim: error: cannot read .*no-such-trace.json"
echo '{"x": 1}' > "$MP_TMP/not-a-trace.json"
run_cmd 30 "$RDSM" sim "$MP_TMP/not-a-trace.json"
expect_status 2
expect_stderr "not an rdsm trace: no traceEvents \(write one with rdsm run --trace FILE\)"
run_cmd 30 "$RDSM" sim "$TRACE" --emu-preset nowhere
expect_status 2
expect_stderr "unknown emu preset 'nowhere'; the presets: none, achievable"
echo "PASS: rdsm sim"
