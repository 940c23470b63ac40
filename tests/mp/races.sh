#!/bin/bash
# races.sh RDSM RACY FAIL_NODE SOR SPLASH_FFT
#
# `rdsm run --races` on a program with data races on purpose (progs/racy.c):
# under every software preset and axes that change how writes are found,
# the report names exactly the races the program made (address, bytes,
# nodes, epoch, allocation and the line that made it) and none of the
# writes that are not races (false sharing, a lock, a barrier).  Then: the
# --stats JSON has the report; a log past its cap makes the report say so;
# a job whose node fails leaves no log behind; a fork-join program started
# alone reports from its master and leaves nothing behind either.
. "$(dirname "$0")/lib.sh"

[ $# -eq 5 ] || fail "usage: races.sh RDSM RACY FAIL_NODE SOR SPLASH_FFT"
RDSM=$1
RACY=$2
FAIL_NODE=$3
SOR=$4
SPLASH_FFT=$5
# The race logs go under TMPDIR: it must be empty after every job.
export TMPDIR=$MP_TMP/tmpdir
mkdir -p "$TMPDIR"
logs_gone() {
  [ -z "$(ls -A "$TMPDIR")" ] || fail "$1 left behind: $(ls -A "$TMPDIR")"
}

# The report's lines for the races racy announced on stdout ("expect ...").
expected_races() {
  awk '$1 == "expect" { print }' "$MP_TMP/out" | while read -r _ at bytes a b epoch base size line; do
    local when="after barrier $epoch"
    [ "$epoch" -eq 0 ] && when="before the first barrier"
    echo "$bytes bytes at $at, written by nodes $a and $b in epoch $epoch ($when); offset $((at - base)) of the" \
      "$size-byte allocation at $base made by main at racy.c:$line"
  done | sort
}

shm_snapshot
for variant in "" "--protocol async" "--protocol ardmar" "--protocol draw" "--protocol newgen" \
  "--protocol genima" "--axes detect=scan" "--handler poll" "--memory mprotect" \
  "--protocol async --axes rewrites=compare,writeahead=stream,home=migrate,prefetch=adaptive" \
  "--protocol genima --axes lock=manager" "--axes lockahead=on" "--threads 2"; do
  # shellcheck disable=SC2086
  run_cmd 60 "$RDSM" run -n 2 --races --quiet $variant "$RACY" "$MP_MARKER"
  expect_status 0
  grep -q '^PASS racy' "$MP_TMP/out" || fail "racy ${variant:-(rdsm)}: no PASS"
  want=$(expected_races)
  [ "$(echo "$want" | wc -l)" -eq 4 ] || fail "racy ${variant:-(rdsm)} announced $(echo "$want" | wc -l) races, not 4"
  got=$(sed -n 's/^rdsm: race [0-9]*: //p' "$MP_TMP/err" | sort)
  if [ "$got" != "$want" ]; then
    echo "--- expected:" >&2
    echo "$want" >&2
    echo "--- reported:" >&2
    echo "$got" >&2
    fail "racy ${variant:-(rdsm)}: the report is not the races the program made"
  fi
  expect_stderr '^rdsm: race report: 4 data races: '
  ! grep -q 'incomplete' "$MP_TMP/err" || fail "racy ${variant:-(rdsm)}: the report says it is incomplete"
  logs_gone "racy ${variant:-(rdsm)}"
  echo "racy ${variant:-(rdsm)}: the 4 races, exactly"
done

# The --stats file holds the report.
run_cmd 60 "$RDSM" run -n 2 --races --quiet --stats "$MP_TMP/stats.json" "$RACY" "$MP_MARKER"
expect_status 0
python3 - "$MP_TMP/stats.json" <<'EOF' || fail "the --stats JSON does not hold the race report"
import json, sys
races = json.load(open(sys.argv[1]))["races"]
assert races["count"] == 4 and races["complete"] and len(races["races"]) == 4, races
for r in races["races"]:
    assert r["nodes"] == [0, 1] and r["allocation"]["made_by"].startswith("main at racy.c:"), r
EOF

# A log past its cap: the report says what it did not check.
RDSM_RACE_LOG=8K run_cmd 60 "$RDSM" run -n 2 --races --quiet "$SOR" -m 256 -n 256 -i 10
expect_status 0
expect_stderr "^rdsm: race report: incomplete: job 1: node [01]'s race log reached its cap of 8 KiB in epoch [0-9]+ \(RDSM_RACE_LOG raises it\)"
logs_gone "a capped job"

# A job whose node fails: no report, nothing left.
run_cmd 60 "$RDSM" run -n 2 --races --quiet "$FAIL_NODE" exit3 1 - "$MP_MARKER"
expect_status 3
logs_gone "a failed job"

# A fork-join program alone: its master reports and removes the logs.
RDSM_RACES=on run_cmd 60 "$SPLASH_FFT" -p2 -m 10
expect_status 0
expect_stderr '^rdsm: race report: no data race'
logs_gone "a fork-join program alone"

check_no_leftovers
check_shm
echo "PASS: race reports"
