#!/bin/bash
# launcher_basic.sh RDSM
#
# The launcher with programs that do not use rdsm at all (shell commands):
# environment and arguments of the nodes, exit status and messages of a
# failing node, --timeout, --stats on failure, and no node outliving a
# launcher that is killed.
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || fail "usage: launcher_basic.sh RDSM"
RDSM=$1
shm_snapshot

# ---- a job that succeeds: every node sees its rank, the job's settings,
# its own arguments and an open memory file per node.
NODE_CHECK='
  d=$0
  [ "$RDSM_NODES" = 3 ] || exit 11
  [ "$1" = "two words" ] && [ "$2" = "--quiet" ] && [ $# -eq 3 ] || exit 12
  [ "$RDSM_PROTOCOL" = "$EXPECT_PROTOCOL" ] || exit 13
  [ "$RDSM_HANDLER" = poll ] && [ "$RDSM_PLACEMENT" = cyclic ] && [ "$RDSM_FABRIC" = shm ] || exit 14
  [ "$RDSM_REGION_SIZE" = 1073741824 ] && [ "$RDSM_LOCKS" = 10 ] || exit 15
  n=0
  for fd in $(echo "$RDSM_NODE_FDS" | tr , " "); do
    [ -e "/proc/$$/fd/$fd" ] || exit 16
    n=$((n + 1))
  done
  [ $n = 3 ] || exit 17
  [ "$(ps -o pgid= -p $$)" != "$(ps -o pgid= -p $PPID)" ] || exit 18
  echo "$RDSM_NODE_FDS" >"$d/rank.$RDSM_RANK"
'
protocol=$(sed -n 's/^protocols: \([^,]*\).*/\1/p' <("$RDSM" run --help))
[ -n "$protocol" ] || fail "rdsm run --help lists no protocol"
EXPECT_PROTOCOL=$protocol run_cmd 10 env "RDSM_LOCKS=99" "$RDSM" run -n 3 --protocol="$protocol" --handler poll \
  --placement=cyclic --region-size 1G --locks=10 sh -c "$NODE_CHECK" "$MP_TMP" "two words" --quiet "$MP_MARKER"
expect_status 0
for r in 0 1 2; do [ -f "$MP_TMP/rank.$r" ] || fail "node $r did not run"; done
[ "$(cat "$MP_TMP"/rank.* | sort -u | wc -l)" -eq 1 ] || fail "the nodes were given different RDSM_NODE_FDS"
[ ! -e "$MP_TMP/rank.3" ] || fail "a fourth node ran"
expect_stderr '^rdsm: protocol .*, handler poll, 3 nodes, fabric shm, wall time'

# Settings not given as options come from the environment.
run_cmd 10 env RDSM_HANDLER=poll RDSM_LOCKS=7 "$RDSM" run -n 1 --quiet \
  sh -c '[ "$RDSM_HANDLER" = poll ] && [ "$RDSM_LOCKS" = 7 ] && [ "$RDSM_NODES" = 1 ] && [ "$RDSM_RANK" = 0 ]'
expect_status 0

# ---- a node that exits with status 3 while the others sleep.
run_cmd 10 "$RDSM" run -n 4 sh -c "$RECORD_PID; "'[ "$RDSM_RANK" = 1 ] && exit 3; exec sleep 600' \
  "$MP_TMP" "$MP_MARKER"
expect_status 3
expect_stderr '^rdsm: error: node 1 \(pid [0-9]+\) exited with status 3; ending the job$'
[ "$(grep -c '^rdsm: error:' "$MP_TMP/err")" -eq 1 ] || fail "more than one failure was reported"
grep -q '^rdsm: protocol' "$MP_TMP/err" && fail "a summary was printed for a failed job"
check_no_leftovers
rm -f "$MP_TMP"/pid.*

# ---- a node killed by a signal.
run_cmd 10 "$RDSM" run -n 3 sh -c "$RECORD_PID; "'[ "$RDSM_RANK" = 2 ] && kill -SEGV $$; exec sleep 600' \
  "$MP_TMP" "$MP_MARKER"
expect_status 139
expect_stderr '^rdsm: error: node 2 \(pid [0-9]+\) was killed by signal 11, a segmentation fault \(SIGSEGV\); '\
'ending the job$'
check_no_leftovers
rm -f "$MP_TMP"/pid.*

# ---- a single node that fails: nothing else to end.
run_cmd 10 "$RDSM" run -n 1 sh -c 'exit 5'
expect_status 5
expect_stderr '^rdsm: error: node 0 \(pid [0-9]+\) exited with status 5$'

# ---- --timeout, and --stats of a job that failed.
t0=$(now_us)
run_cmd 10 "$RDSM" run -n 2 --timeout 0.5 --stats "$MP_TMP/timeout.json" \
  sh -c "$RECORD_PID; "'exec sleep 600' "$MP_TMP" "$MP_MARKER"
ms=$(elapsed_ms "$t0" "$END_US")
expect_status 124
expect_stderr '^rdsm: error: .*--timeout of 0.5 s; ending the job$'
[ "$ms" -ge 450 ] && [ "$ms" -le 2500 ] || fail "a --timeout of 0.5 s ended the job after $ms ms"
check_no_leftovers
rm -f "$MP_TMP"/pid.*
python3 - "$MP_TMP/timeout.json" <<'PY' || fail "the statistics of a job that timed out: $(cat "$MP_TMP/timeout.json")"
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
assert s["exit_status"] == 124, s["exit_status"]
assert "timeout" in s["error"], s["error"]
assert s["per_node"] == [], s["per_node"]
assert s["nodes"] == 2 and s["program"] == "sh", s
PY

# ---- --stats of a job that succeeded without using rdsm: no node has
# statistics.  Arguments that are not plain text are still valid JSON.
odd_arg=$(printf 'quote" back\\ tab\t nl\n bad\377 é')
run_cmd 10 "$RDSM" run -n 2 --quiet --stats "$MP_TMP/plain.json" sh -c 'exit 0' "$odd_arg"
expect_status 0
python3 - "$MP_TMP/plain.json" <<'PY' || fail "the statistics of a plain job: $(cat "$MP_TMP/plain.json")"
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
assert s["exit_status"] == 0 and "error" not in s and s["per_node"] == [], s
assert s["args"][0] == "-c" and s["args"][2] == 'quote" back\\ tab\t nl\n bad\ufffd é', s["args"]
PY
[ ! -e "$MP_TMP/plain.json.tmp" ] || fail "the temporary statistics file was left behind"

# ---- a launcher killed with SIGKILL takes its nodes with it; the
# directory it made for the race logs is removed by the next launcher.
mkdir -p "$MP_TMP/tmpdir"
start_bg env TMPDIR="$MP_TMP/tmpdir" "$RDSM" run --races -n 3 sh -c "$RECORD_PID; "'exec sleep 600' "$MP_TMP" "$MP_MARKER"
for r in 0 1 2; do wait_for_file "$MP_TMP/pid.$r" 10; done
kill -KILL "$MP_BG_PID"
wait_bg 5
deadline=$(($(now_us) + 2000000))
for r in 0 1 2; do
  pid=$(cat "$MP_TMP/pid.$r")
  while alive "$pid"; do
    [ "$(now_us)" -le "$deadline" ] || fail "node $r (pid $pid) outlived its launcher by 2 s"
    sleep 0.01
  done
done
check_no_leftovers
left=$(ls -d "$MP_TMP"/tmpdir/rdsm-races.* 2>/dev/null)
[ -n "$left" ] || fail "the killed launcher made no race-log directory under TMPDIR (nothing to check)"
run_cmd 30 env TMPDIR="$MP_TMP/tmpdir" "$RDSM" run --races -n 1 sh -c 'exit 0'
expect_status 0
left=$(ls -A "$MP_TMP/tmpdir")
[ -z "$left" ] || fail "the next launcher left behind what the killed one made: $left"

check_shm
echo "PASS: launcher basics"
