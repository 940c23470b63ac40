#!/bin/bash
# usage.sh RDSM
#
# Mistakes in the command line are reported before anything starts, with a
# message that starts with "rdsm: error: " and says what is wrong, and exit
# status 2.  The help and version requests succeed.
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || fail "usage: usage.sh RDSM"
RDSM=$1
# A program that leaves a trace if it is ever started.
TRACE="$MP_TMP/started"
PROBE=(sh -c ': >"$0"' "$TRACE")

# usage_error REGEX ARGS...: `rdsm ARGS...` fails as a usage error.
usage_error() {
  local want=$1
  shift
  rm -f "$TRACE"
  run_cmd 10 "$RDSM" "$@"
  [ "$STATUS" -eq 2 ] || fail "rdsm $*: exit status $STATUS, expected 2"
  grep -Eq -- "^rdsm: error: .*$want" "$MP_TMP/err" || fail "rdsm $*: stderr does not match: $want"
  [ ! -e "$TRACE" ] || fail "rdsm $*: the program was started"
}

usage_error "unknown option '--frobnicate'.*--protocol.*--timeout" run -n 2 --frobnicate "${PROBE[@]}"
usage_error "unknown option '-x'" run -x -n 2 "${PROBE[@]}"
usage_error "--quiet takes no value" run -n 2 --quiet=yes "${PROBE[@]}"
usage_error "unknown command 'frobnicate'" frobnicate
usage_error "no command given"

# The list of protocols in the message is the one in `rdsm run --help`.
run_cmd 10 "$RDSM" run --help
[ "$STATUS" -eq 0 ] || fail "rdsm run --help: exit status $STATUS"
protocols=$(sed -n 's/^protocols: //p' "$MP_TMP/out")
[ -n "$protocols" ] || fail "rdsm run --help lists no protocols"
grep -q -- "--timeout" "$MP_TMP/out" || fail "rdsm run --help does not describe --timeout"
usage_error "unknown protocol 'no-such-protocol'.*: $protocols\$" run -n 2 --protocol no-such-protocol "${PROBE[@]}"
usage_error "unknown protocol 'no-such-protocol'" run -n 2 --protocol=no-such-protocol "${PROBE[@]}"
RDSM_PROTOCOL=no-such-protocol usage_error "unknown protocol 'no-such-protocol' \\(RDSM_PROTOCOL" run -n 2 "${PROBE[@]}"

usage_error "-n '0' is not a number of nodes" run -n 0 "${PROBE[@]}"
usage_error "-n '1025' is not a number of nodes" run -n 1025 "${PROBE[@]}"
usage_error "-n 'four' is not a number of nodes" run -n four "${PROBE[@]}"
# Without -n one process starts (a fork-join program's master; an SPMD
# program's rdsm_init says -n is missing: mp.bad_inputs.nodes_missing), but
# mpirun needs the number of ranks before anything starts.
usage_error "missing -n N, the number of ranks" run --fabric mpi "${PROBE[@]}"
usage_error "-n needs a value" run -n
usage_error "unknown handler mode 'sometimes'.*interrupt, poll, signal or spin" run -n 2 --handler sometimes "${PROBE[@]}"
usage_error "unknown placement 'random'" run -n 2 --placement random "${PROBE[@]}"
usage_error "unknown fabric 'carrier-pigeon'" run -n 2 --fabric carrier-pigeon "${PROBE[@]}"
usage_error "region size 'lots'.*is not a size" run -n 2 --region-size lots "${PROBE[@]}"
usage_error "region size '0'.*is not a size" run -n 2 --region-size 0 "${PROBE[@]}"
usage_error "lock count '0'" run -n 2 --locks 0 "${PROBE[@]}"
usage_error "--timeout '-1' is not a number of seconds" run -n 2 --timeout -1 "${PROBE[@]}"
usage_error "--stats .*cannot write in directory" run -n 2 --stats "$MP_TMP/no/such/dir/s.json" "${PROBE[@]}"
usage_error "missing the program to run" run -n 2
usage_error "missing the program to run" run -n 2 --quiet --
usage_error "program 'rdsm-no-such-program-$MP_MARKER' not found in PATH" run -n 2 "rdsm-no-such-program-$MP_MARKER"
usage_error "cannot run program '$MP_TMP/absent': no such file" run -n 2 "$MP_TMP/absent"
printf '#!/bin/sh\nexit 0\n' >"$MP_TMP/not-executable"
chmod 644 "$MP_TMP/not-executable"
usage_error "cannot run program '$MP_TMP/not-executable': it is not executable" run -n 2 "$MP_TMP/not-executable"
usage_error "cannot run program '$MP_TMP': it is a directory" run -n 2 "$MP_TMP"

# Requests for help and the version; each names the user guide, which is
# there.
guide_named() {
  local guide
  guide=$(sed -n 's/^user guide: //p' "$MP_TMP/out")
  [ -n "$guide" ] || fail "rdsm $1: does not name the user guide"
  [ -f "$guide" ] || fail "rdsm $1: the user guide it names, $guide, is not there"
}
for args in "--help" "run --help" "run -n 2 --help"; do
  # shellcheck disable=SC2086
  run_cmd 10 "$RDSM" $args
  [ "$STATUS" -eq 0 ] || fail "rdsm $args: exit status $STATUS"
  grep -q "usage: rdsm run" "$MP_TMP/out" || fail "rdsm $args: no usage text"
  guide_named "$args"
done
run_cmd 10 "$RDSM" --version
[ "$STATUS" -eq 0 ] || fail "rdsm --version: exit status $STATUS"
grep -Eq '^rdsm [0-9]+\.[0-9]+' "$MP_TMP/out" || fail "rdsm --version: no version number"
guide_named --version

# Options end at the program: what follows belongs to it, --help included.
rm -f "$TRACE"
run_cmd 10 "$RDSM" run --nodes=2 --quiet sh -c 'test "$1" = --help && : >"$0"' "$TRACE" --help
[ "$STATUS" -eq 0 ] || fail "a program argument that looks like an option: exit status $STATUS"
[ -e "$TRACE" ] || fail "the program did not get --help as its argument"

echo "PASS: usage errors"
