#!/bin/bash
# memory_backend.sh RDSM TRIVIAL
#
# The memory backend option: a bad name is a usage error; `--memory uffd`
# where userfaultfd cannot work (simulated with RDSM_UFFD_UNAVAILABLE) ends
# the job with the cause; without --memory the job falls back to mprotect
# with one line saying why when uffd is the default; the summary names the
# backend that ran; RDSM_PROTECT is still accepted.
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: memory_backend.sh RDSM TRIVIAL"
RDSM=$1
PROG=$2

run_cmd 10 "$RDSM" run -n 2 --memory bogus "$PROG" "$MP_MARKER"
expect_status 2
expect_stderr "^rdsm: error: unknown memory backend 'bogus' \(--memory\); use uffd or mprotect"

run_cmd 30 "$RDSM" run -n 2 --memory uffd "$PROG" "$MP_MARKER"
expect_status 0
expect_stderr "^rdsm: protocol .*, memory uffd, 2 nodes"

run_cmd 30 "$RDSM" run -n 2 --memory mprotect "$PROG" "$MP_MARKER"
expect_status 0
expect_stderr "^rdsm: protocol .*, memory mprotect, 2 nodes"

RDSM_PROTECT=uffd run_cmd 30 "$RDSM" run -n 2 "$PROG" "$MP_MARKER"
expect_status 0
expect_stderr "memory uffd, 2 nodes"

RDSM_UFFD_UNAVAILABLE=test run_cmd 30 "$RDSM" run -n 2 --memory uffd "$PROG" "$MP_MARKER"
expect_status nonzero
expect_stderr "error: the uffd memory backend cannot run here: userfaultfd is disabled by RDSM_UFFD_UNAVAILABLE=test"
check_no_leftovers

# The default: when it is uffd, losing uffd costs one line from node 0.
run_cmd 30 "$RDSM" run -n 2 "$PROG" "$MP_MARKER"
expect_status 0
default=$(sed -n 's/^rdsm: protocol .*, memory \([a-z]*\), .*/\1/p' "$MP_TMP/err")
[ -n "$default" ] || fail "the summary names no memory backend: $(cat "$MP_TMP/err")"
RDSM_UFFD_UNAVAILABLE=test run_cmd 30 "$RDSM" run -n 2 "$PROG" "$MP_MARKER"
expect_status 0
expect_stderr "memory mprotect, 2 nodes"
lines=$(grep -c "memory backend mprotect, not uffd" "$MP_TMP/err")
if [ "$default" = uffd ]; then
  [ "$lines" -eq 1 ] || fail "$lines fallback lines, expected 1: $(cat "$MP_TMP/err")"
  expect_stderr "^rdsm\[node 0\]: warning: memory backend mprotect, not uffd: userfaultfd is disabled by RDSM_UFFD_UNAVAILABLE=test; the shared region is limited to about [0-9]+ MiB by vm.max_map_count"
else
  [ "$lines" -eq 0 ] || fail "a fallback line although mprotect is the default: $(cat "$MP_TMP/err")"
fi

echo "PASS: memory backend selection"
