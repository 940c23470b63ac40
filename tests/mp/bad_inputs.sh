#!/bin/bash
# bad_inputs.sh TABLE CASE NAME=PATH...
#
# Runs one case of the bad-input catalogue TABLE (tests/mp/bad_inputs.txt,
# whose header describes the fields) and checks that
#   - the command ends (within 20 s) with the expected exit status;
#   - a line of stderr that starts with "rdsm" matches the case's cause, and
#     one matches its fix;
#   - nothing is left behind: no process of the job (they carry a marker
#     word), no new entry in /dev/shm, nothing in the job's $TMPDIR (a
#     private empty directory) or its working directory, and no new entry
#     in /tmp that names rdsm or the marker (entries of other concurrent
#     work in /tmp are not counted; the harness's own rdsm-mp.* directories
#     neither).
# NAME=PATH arguments become variables of the command ($RDSM, $TRIVIAL ...).
# Exit status 77: the case cannot run here (skipped).
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || fail "usage: bad_inputs.sh TABLE CASE NAME=PATH..."
TABLE=$1
CASE=$2
shift 2
for arg in "$@"; do
  case $arg in
    [A-Z]*=*) export "${arg%%=*}=${arg#*=}" ;;
    *) fail "not NAME=PATH: $arg" ;;
  esac
done

# ---- the case's record --------------------------------------------------
record=$(awk -v id="$CASE" '
  $1 == "case" { on = ($2 == id); next }
  on && /^$/ { exit }
  on { print }' "$TABLE")
[ -n "$record" ] || fail "no case '$CASE' in $TABLE"
field() { sed -n "s/^$1 //p" <<<"$record"; }
WANT_EXIT=$(field exit)
RUN=$(field run)
CAUSE=$(field cause)
FIX=$(field fix)
MAPS=$(field max_map_count)
[ -n "$WANT_EXIT" ] && [ -n "$RUN" ] && [ -n "$CAUSE" ] && [ -n "$FIX" ] ||
  fail "case '$CASE': exit, run, cause and fix are all needed"

# ---- a clean environment ------------------------------------------------
for v in $(compgen -e); do
  case $v in RDSM_*) unset "$v" ;; esac
done
export TMP="$MP_TMP/case" MARKER="$MP_MARKER"
mkdir -p "$TMP" "$MP_TMP/tmpdir" "$MP_TMP/cwd"

# ---- vm.max_map_count, lowered for the command only ---------------------
MAPS_ORIG=""
restore_maps() {
  if [ -n "$MAPS_ORIG" ]; then
    echo "$MAPS_ORIG" >/proc/sys/vm/max_map_count || echo "bad_inputs.sh: cannot restore vm.max_map_count=$MAPS_ORIG" >&2
    MAPS_ORIG=""
  fi
}
bad_inputs_cleanup() {
  restore_maps
  mp_cleanup
}
trap bad_inputs_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
if [ -n "$MAPS" ]; then
  if [ "$(id -u)" -ne 0 ] || [ ! -w /proc/sys/vm/max_map_count ]; then
    echo "SKIP: $CASE needs root to change vm.max_map_count"
    exit 77
  fi
fi

# ---- run ----------------------------------------------------------------
list_dir() { ls -A "$1" 2>/dev/null | sort; }
tmp_before=$(list_dir /tmp)
shm_snapshot
if [ -n "$MAPS" ]; then
  MAPS_ORIG=$(cat /proc/sys/vm/max_map_count)
  echo "$MAPS" >/proc/sys/vm/max_map_count || fail "cannot set vm.max_map_count=$MAPS"
fi
cd "$MP_TMP/cwd" || fail "cannot enter $MP_TMP/cwd"
run_cmd 20 env TMPDIR="$MP_TMP/tmpdir" bash -c "$RUN"
restore_maps

# ---- checks -------------------------------------------------------------
if grep -q '^no_uffd: cannot install the seccomp filter' "$MP_TMP/err"; then
  echo "SKIP: $CASE: $(head -n 1 "$MP_TMP/err")"
  exit 77
fi
expect_status "$WANT_EXIT"
rdsm_lines=$(grep -E '^rdsm' "$MP_TMP/err")
grep -Eq -- "$CAUSE" <<<"$rdsm_lines" || fail "no line of rdsm names the cause: $CAUSE"
grep -Eq -- "$FIX" <<<"$rdsm_lines" || fail "no line of rdsm says what to do: $FIX"

check_no_leftovers
check_shm
left=$(list_dir "$MP_TMP/tmpdir")
[ -z "$left" ] || fail "the job left files in its TMPDIR: $left"
left=$(list_dir "$MP_TMP/cwd")
[ -z "$left" ] || fail "the job left files in its working directory: $left"
new=$(list_dir /tmp | comm -13 <(echo "$tmp_before") - | grep -Ei -- "rdsm|$MP_MARKER" |
  grep -Ev '^rdsm-mp\.[A-Za-z0-9]{6}$')
for name in $new; do
  [ -e "/tmp/$name" ] && fail "new entry left in /tmp: $name"
done

echo "PASS: $CASE: exit status $STATUS"
grep -E '^rdsm' "$MP_TMP/err"
