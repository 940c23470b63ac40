#!/bin/bash
# runtime_globals.sh LIBRARY
#
# Every variable of the runtime library lives in namespace rdsm: a
# fork-join master on the mpi fabric ships its program's globals to the
# workers of other ranks, and tells the runtime's own from the program's by
# that namespace (src/api/program_image.hpp).  A variable outside it would
# be overwritten on the workers by the master's value.  Allowed besides:
# DW.ref.* (the exception-handling personality's address, the same on
# every rank) and names reserved to the implementation, which the image
# keeps each process's own as well (a sanitizer's descriptions of the
# globals, __unnamed_*).
set -u
[ $# -eq 1 ] || { echo "usage: runtime_globals.sh LIBRARY" >&2; exit 2; }
command -v objdump >/dev/null || { echo "SKIP: objdump (binutils) is not installed" >&2; exit 77; }
table=$(objdump -t "$1") || { echo "FAIL: objdump cannot read $1"; exit 1; }
# Symbol lines: ... SECTION SIZE NAME, for data and bss sections (the
# read-only-after-relocation ones excluded), of objects with a size.
outside=$(printf '%s\n' "$table" |
  awk 'NF >= 4 && $(NF-2) ~ /^\.(data|bss)/ && $(NF-2) !~ /^\.data\.rel\.ro/ && $(NF-1) !~ /^0+$/ { print $NF }' |
  grep -Ev '^(_ZN4rdsm|_ZZN4rdsm|_ZZNK4rdsm|_ZGVZN4rdsm|_ZGVZNK4rdsm|DW\.ref\.|__)' | sort -u)
if [ -n "$outside" ]; then
  echo "FAIL: variables of the runtime outside namespace rdsm (put them in it):"
  printf '  %s\n' $outside
  exit 1
fi
count=$(printf '%s\n' "$table" | awk 'NF >= 4 && $(NF-2) ~ /^\.(data|bss)/ && $(NF-1) !~ /^0+$/' | wc -l)
[ "$count" -gt 50 ] || { echo "FAIL: only $count variables found: is $1 the runtime library?"; exit 1; }
echo "PASS: all $count variables of the runtime are in namespace rdsm"
