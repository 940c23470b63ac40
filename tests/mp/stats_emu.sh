#!/bin/bash
# stats_emu.sh RDSM TRIVIAL
#
# Under the emu fabric the statistics hold the modelled network and its
# charges: a job of two nodes under the message-based async preset (its
# barrier is messages, handled in interrupt mode) with every parameter set
# writes an "emu" member with the resolved parameters, and per node the
# charges of each parameter, each a whole number of what one operation,
# transfer or interrupt costs; the summary adds a table of them.  (The shm
# fabric's output without them is checked by stats_json.sh.)
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: stats_emu.sh RDSM TRIVIAL"
RDSM=$1
PROG=$2
JSON="$MP_TMP/stats.json"
SETTINGS=latency=20us,host_overhead=2us,occupancy=3us,bandwidth=100MB/s,interrupt=10us

shm_snapshot
run_cmd 30 "$RDSM" run -n 2 --protocol async --handler interrupt --emu "$SETTINGS" --stats "$JSON" "$PROG" \
  "$MP_MARKER"
expect_status 0
python3 - "$JSON" "$SETTINGS" <<'PY' || fail "the statistics file lacks the emu charges: $(cat "$JSON")"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    s = json.load(f)
def check(cond, what):
    if not cond:
        sys.exit("stats: " + what)
check(s["fabric"] == "emu", "fabric is %r" % s["fabric"])
emu = s.get("emu") or {}
check(emu.get("preset") == "none" and emu.get("settings") == sys.argv[2], "emu member is %r" % emu)
check(emu.get("params") == {"host_overhead_ns": 2000, "occupancy_ns": 3000, "latency_ns": 20000,
                            "bandwidth_bytes_per_second": 100000000, "interrupt_ns": 10000, "packet_bytes": 4096},
      "resolved parameters are %r" % emu.get("params"))
fields = ("host_overhead", "occupancy", "bandwidth", "latency", "ni_wait", "interrupt", "waited")
total = dict.fromkeys(fields, 0.0)
for n in s["per_node"]:
    c = n.get("emu_charges") or {}
    for f in fields:
        check(isinstance(c.get(f), (int, float)) and c[f] >= 0, "node %d: emu_charges %s is %r" % (n["rank"], f, c.get(f)))
        total[f] += c[f]
    # Every transfer is charged the latency and, being under one packet, one occupancy.
    transfers = c["latency"] / 20e-6
    check(abs(transfers - round(transfers)) < 1e-3 and abs(c["occupancy"] - 3e-6 * transfers) < 1e-9,
          "node %d: latency %r and occupancy %r are not of the same transfers" % (n["rank"], c["latency"], c["occupancy"]))
    for f, unit in (("host_overhead", 2e-6), ("interrupt", 10e-6)):
        k = c[f] / unit
        check(abs(k - round(k)) < 1e-3, "node %d: %s %r is not a whole number of %g s" % (n["rank"], f, c[f], unit))
for f in ("host_overhead", "occupancy", "bandwidth", "latency", "interrupt", "waited"):
    check(total[f] > 0, "no node was charged for %s: %r" % (f, total))
PY

expect_stderr '^rdsm: protocol async, handler interrupt, memory (uffd|mprotect), 2 nodes, fabric emu, wall time'
expect_stderr "^emu charges \\(ms\\), network none \\+ $SETTINGS$"
expect_stderr '^\(host_overhead=2us,occupancy=3us,latency=20us,bandwidth=100MB/s,interrupt=10us,packet=4096\)$'
expect_stderr '^node +host overhead +occupancy +bandwidth +latency +NI wait +interrupt +waited$'
charges=$(sed -n '/^node  *host overhead/,/^$/p' "$MP_TMP/err")
for row in 0 1 mean; do
  grep -Eq "^$row( +[0-9]+\.[0-9]{3}){7}$" <<<"$charges" || fail "the emu charges have no row for $row: $charges"
done

check_no_leftovers
check_shm
echo "PASS: emu charges of 2 nodes"
