#!/bin/bash
# stats_json.sh RDSM TRIVIAL
#
# A job of three nodes that init, meet at a barrier and finalize: exit status
# 0, a summary on stderr, and with --stats a valid JSON file with one entry
# per node holding every statistic.
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: stats_json.sh RDSM TRIVIAL"
RDSM=$1
PROG=$2
JSON="$MP_TMP/stats.json"

shm_snapshot
run_cmd 30 "$RDSM" run -n 3 --stats "$JSON" "$PROG" "$MP_MARKER"
expect_status 0
[ -f "$JSON" ] || fail "no statistics file"
[ ! -e "$JSON.tmp" ] || fail "the temporary statistics file was left behind"
python3 -m json.tool "$JSON" >/dev/null || fail "the statistics file is not valid JSON: $(cat "$JSON")"
python3 - "$JSON" "$MP_MARKER" <<'PY' || fail "the statistics file is not as expected: $(cat "$JSON")"
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    s = json.load(f)
def check(cond, what):
    if not cond:
        sys.exit("stats: " + what)
for key in ("rdsm_version", "program", "args", "protocol", "handler", "fabric", "nodes",
            "wall_seconds", "exit_status", "per_node"):
    check(key in s, "missing " + key)
check(s["nodes"] == 3, "nodes is %r" % s["nodes"])
check(s["exit_status"] == 0, "exit_status is %r" % s["exit_status"])
check("error" not in s, "an error is reported: %r" % s.get("error"))
check(s["args"] == [sys.argv[2]], "args are %r" % s["args"])
check(s["wall_seconds"] > 0, "wall_seconds is %r" % s["wall_seconds"])
nodes = s["per_node"]
check(len(nodes) == 3, "%d per_node entries" % len(nodes))
check(sorted(n["rank"] for n in nodes) == [0, 1, 2], "ranks are %r" % [n["rank"] for n in nodes])
fields = ("total", "compute", "data_wait", "lock_wait", "barrier_wait", "barrier_protocol", "handler",
          "read_faults", "write_faults", "pages_fetched", "twins", "diffs", "diff_bytes",
          "messages_sent", "message_bytes", "one_sided_ops", "invalidations", "lock_acquires", "barriers",
          "diff_ops", "migrations", "prefetched", "prefetch_used", "prefetch_wasted", "refreshed",
          "written_ahead", "written_ahead_unused", "diffs_claimed", "diffs_withheld", "withheld_unmoved")
# The emu fabric's members appear under that fabric only.
if s["fabric"] != "emu":
    check("emu" not in s, "an emu member under fabric %s" % s["fabric"])
    check(not any("emu_charges" in n for n in nodes), "emu charges under fabric %s" % s["fabric"])
for n in nodes:
    for f in fields:
        check(f in n, "node %d has no %s" % (n["rank"], f))
        check(isinstance(n[f], (int, float)) and n[f] >= 0, "node %d: %s is %r" % (n["rank"], f, n[f]))
PY

# The summary: a first line, then the times, the counts and the protocol's
# counts of every node.
expect_stderr '^rdsm: protocol [a-z0-9_-]+, handler (interrupt|poll), memory (uffd|mprotect), 3 nodes, fabric [a-z0-9_-]+, wall time [0-9.]+ s$'
expect_stderr '^node +total\(s\) +compute +data wait +lock wait +barrier wait +barrier proto +handler$'
expect_stderr '^node +read faults +write faults +fetches +twins +diffs +diff KiB +messages +msg KiB +one-sided$'
expect_stderr '^node +diff ops +invalidations +migrated in +prefetched +used +wasted +refreshed +opened ahead +unwritten +claimed$'
for row in 0 1 2 mean; do
  [ "$(grep -Ec "^$row +[0-9]" "$MP_TMP/err")" -eq 3 ] || fail "the summary does not have three rows for $row"
done
grep -q "fabric shm, wall time" "$MP_TMP/err" && grep -q "^emu charges" "$MP_TMP/err" && fail "the summary has emu charges under the shm fabric"
width=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$MP_TMP/err")
[ "$width" -le 120 ] || fail "the summary is $width columns wide"

# --quiet: no summary.
run_cmd 30 "$RDSM" run -n 2 --quiet "$PROG" "$MP_MARKER"
expect_status 0
grep -q "^rdsm: protocol" "$MP_TMP/err" && fail "--quiet printed the summary"

check_no_leftovers
check_shm
echo "PASS: statistics of 3 nodes"
