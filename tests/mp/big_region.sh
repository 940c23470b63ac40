#!/bin/bash
# big_region.sh RDSM SPARSE
#
# Regions larger than vm.max_map_count lets page-granular mprotect cover at
# its default work under the uffd backend: pages spread over nearly all of
# a 1 GiB region, over 4 GiB of the default region (no flag) and of an
# explicit 64 GiB one are written and read by both nodes.
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || fail "usage: big_region.sh RDSM SPARSE"
RDSM=$1
PROG=$2

run_cmd 120 "$RDSM" run -n 2 --memory uffd --region-size 1G --quiet "$PROG" 1000 "$MP_MARKER"
expect_status 0
grep -q "^PASS sparse: 1000 MiB" "$MP_TMP/out" || fail "no PASS: $(cat "$MP_TMP/out" "$MP_TMP/err")"

for size in "" 64G; do
  run_cmd 120 "$RDSM" run -n 2 ${size:+--region-size $size} --stats "$MP_TMP/stats.json" --quiet "$PROG" 4096 "$MP_MARKER"
  expect_status 0
  grep -q "^PASS sparse: 4096 MiB" "$MP_TMP/out" || fail "no PASS (region ${size:-default}): $(cat "$MP_TMP/out" "$MP_TMP/err")"
  grep -q '"region_size": 68719476736' "$MP_TMP/stats.json" || fail "the region is not 64 GiB: $(grep region_size "$MP_TMP/stats.json")"
done

# Where the limit is the kernel's default, mprotect refuses the same region
# before it starts, naming the limit.
if [ "$(cat /proc/sys/vm/max_map_count)" -lt 262144 ]; then
  run_cmd 30 "$RDSM" run -n 2 --memory mprotect --region-size 1G --quiet "$PROG" 1000 "$MP_MARKER"
  expect_status nonzero
  expect_stderr "vm.max_map_count"
fi
check_no_leftovers
echo "PASS: 1 GiB region under uffd"
