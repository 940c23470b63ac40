# Helpers shared by the multi-process test scripts (sourced, bash).
#
# Every script gets a private temporary directory ($MP_TMP, removed on exit)
# and a marker string ($MP_MARKER) to pass as an extra argument to the
# programs it runs, so that the job's processes can be found with pgrep -f.

set -u

MP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdsm-mp.XXXXXX") || exit 1
MP_MARKER="rdsm-mp-marker-$$-${RANDOM}${RANDOM}"
MP_BG_PID=""
STATUS=0

# Shell code for a node started as `sh -c "$RECORD_PID; ..." DIR`: records
# the node's pid in DIR/pid.<rank>, written whole or not at all.
# shellcheck disable=SC2016
RECORD_PID='echo $$ >"$0/pid.$RDSM_RANK.tmp" && mv "$0/pid.$RDSM_RANK.tmp" "$0/pid.$RDSM_RANK"'

# kill_leftovers: kills whatever a job left running: processes that carry
# this test's marker and node processes recorded in $MP_TMP/pid.*.
kill_leftovers() {
  local pid f
  for pid in $(pgrep -f -- "$MP_MARKER"); do
    kill -KILL "$pid" 2>/dev/null
  done
  for f in "$MP_TMP"/pid.*; do
    [ -e "$f" ] || continue
    pid=$(cat "$f")
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
  done
  return 0
}

mp_cleanup() {
  # A launcher still running (the test failed half-way) is killed, and so is
  # whatever the job left behind.
  if [ -n "$MP_BG_PID" ] && kill -0 "$MP_BG_PID" 2>/dev/null; then
    kill -KILL "$MP_BG_PID" 2>/dev/null
    wait "$MP_BG_PID" 2>/dev/null
  fi
  kill_leftovers
  rm -rf "$MP_TMP"
}
trap mp_cleanup EXIT

# fail MESSAGE: reports, shows what rdsm printed, ends the test.
fail() {
  echo "FAIL: $*" >&2
  if [ -s "$MP_TMP/err" ]; then
    echo "--- stderr of the last command:" >&2
    cat "$MP_TMP/err" >&2
  fi
  if [ -s "$MP_TMP/out" ]; then
    echo "--- stdout of the last command:" >&2
    cat "$MP_TMP/out" >&2
  fi
  exit 1
}

# Microseconds since the epoch.
now_us() {
  local t=${EPOCHREALTIME:-}
  if [ -n "$t" ]; then
    t=${t//[.,]/}
    echo "$t"
  else
    date +%s%6N
  fi
}

# start_bg COMMAND...: starts a command in the background, stdout and stderr
# to $MP_TMP/out and $MP_TMP/err; its pid is $MP_BG_PID.
start_bg() {
  : >"$MP_TMP/out"
  : >"$MP_TMP/err"
  "$@" >"$MP_TMP/out" 2>"$MP_TMP/err" &
  MP_BG_PID=$!
}

# wait_bg SECONDS: waits for the background command at most SECONDS;
# sets STATUS to its exit status and END_US to when it ended.  A command
# still running then is killed and the test fails.
wait_bg() {
  local limit_us=$(($1 * 1000000)) start
  start=$(now_us)
  while kill -0 "$MP_BG_PID" 2>/dev/null && ! is_zombie "$MP_BG_PID"; do
    if [ $(($(now_us) - start)) -gt "$limit_us" ]; then
      kill -KILL "$MP_BG_PID" 2>/dev/null
      wait "$MP_BG_PID" 2>/dev/null
      MP_BG_PID=""
      fail "the command did not end within $1 s"
    fi
    sleep 0.01
  done
  END_US=$(now_us)
  wait "$MP_BG_PID" 2>/dev/null
  STATUS=$?
  MP_BG_PID=""
}

# run_cmd SECONDS COMMAND...: runs a command with a time limit; sets STATUS.
run_cmd() {
  local limit=$1
  shift
  start_bg "$@"
  wait_bg "$limit"
}

# wait_for_file PATH SECONDS: waits until PATH exists.
wait_for_file() {
  local limit_us=$(($2 * 1000000)) start
  start=$(now_us)
  until [ -e "$1" ]; do
    if [ -n "$MP_BG_PID" ] && ! kill -0 "$MP_BG_PID" 2>/dev/null; then
      fail "the job ended before $(basename "$1") was written"
    fi
    [ $(($(now_us) - start)) -le "$limit_us" ] || fail "$(basename "$1") was not written within $2 s"
    sleep 0.01
  done
}

is_zombie() {
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ "$state" = Z ]
}

# alive PID: the process exists and is not a zombie.
alive() {
  [ -n "$1" ] && [ -e "/proc/$1" ] && ! is_zombie "$1"
}

# expect_status WANT: WANT is a number or "nonzero".
expect_status() {
  if [ "$1" = nonzero ]; then
    [ "$STATUS" -ne 0 ] || fail "exit status 0, expected a failure"
  else
    [ "$STATUS" -eq "$1" ] || fail "exit status $STATUS, expected $1"
  fi
}

# expect_stderr REGEX: rdsm's stderr matches the extended regular expression.
expect_stderr() {
  grep -Eq -- "$1" "$MP_TMP/err" || fail "stderr does not match: $1"
}

# check_no_leftovers: no process carries the marker, and no process whose
# pid a node recorded in $MP_TMP/pid.* is still running.
check_no_leftovers() {
  local left f pid
  # A subshell of a node, killed with the node's process group, may take a
  # moment to die on a loaded machine, and then waits as a zombie (ended,
  # as alive() counts it) until init reaps it: only what still runs after
  # a second counts.
  for _ in $(seq 10); do
    left=
    for pid in $(pgrep -f -- "$MP_MARKER"); do
      alive "$pid" && left="$left $pid"
    done
    [ -z "$left" ] && break
    sleep 0.1
  done
  if [ -n "$left" ]; then
    ps -o pid,ppid,stat,args -p "$(echo $left | tr ' ' ',')" >&2
    fail "processes of the job are still running"
  fi
  for f in "$MP_TMP"/pid.*; do
    [ -e "$f" ] || continue
    case $f in *.tmp) continue ;; esac
    pid=$(cat "$f")  # empty if the node was killed while writing it
    alive "$pid" && fail "node process $pid ($(basename "$f")) is still running"
  done
  return 0
}

# shm_snapshot / check_shm: /dev/shm has no entry that it did not have at the
# snapshot (an entry that vanishes right away belongs to someone else).
shm_snapshot() {
  ls -A /dev/shm 2>/dev/null | sort >"$MP_TMP/shm.before"
}

check_shm() {
  local new name
  new=$(ls -A /dev/shm 2>/dev/null | sort | comm -13 "$MP_TMP/shm.before" -)
  [ -n "$new" ] || return 0
  sleep 0.2
  for name in $new; do
    [ -e "/dev/shm/$name" ] && fail "new entry left in /dev/shm: $name"
  done
  return 0
}

# private_tmpdir / check_tmpdir: what the job's processes make under
# $TMPDIR (an MPI's session files among them) goes to a directory of this
# test's, which must be empty again once the job has ended.
private_tmpdir() {
  export TMPDIR=$MP_TMP/tmpdir
  mkdir -p "$TMPDIR" || fail "cannot make $TMPDIR"
}

check_tmpdir() {
  local left
  left=$(cd "$TMPDIR" && find . -mindepth 1 -maxdepth 3 | head -20)
  [ -z "$left" ] || fail "left in TMPDIR by the job: $(echo $left)"
}

# elapsed_ms FROM_US TO_US
elapsed_ms() {
  echo $((($2 - $1) / 1000))
}
