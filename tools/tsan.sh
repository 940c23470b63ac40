#!/usr/bin/env bash
# ThreadSanitizer run of the tests of multi-threaded nodes (ctest label
# `threads`), on demand: not part of tools/test.sh, whose time budget it
# would exceed.  Builds into build-tsan/ (or $1) with -DRDSM_TSAN=ON, then
#   tools/tsan.sh [BUILD_DIR] [CTEST ARGS...]
# runs `ctest -L threads` there (or with the ctest arguments given, e.g.
# -R 'sor\.' to run a subset), under the default memory backend, or the one
# RDSM_MEMORY names (RDSM_MEMORY=mprotect tools/tsan.sh).  A report fails
# its test: every process exits with status 66 on the first one
# (halt_on_error).  tools/tsan.supp lists the reports that are not races
# (orders ThreadSanitizer cannot see, as they pass through another node),
# each with why.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build-tsan}
shift || true
"$root/tools/build.sh" "$dir" -DRDSM_TSAN=ON
# ThreadSanitizer keeps shadow memory for a fixed set of address ranges
# (on x86-64 with GCC 12: [4 KiB, 512 GiB), the PIE binaries' range near
# 0x55.., the heap near 0x7b.., and the libraries and stacks above
# 0x7e80..); the shared region's default base, 0x2000'0000'0000, is outside
# them, and ThreadSanitizer's mmap refuses the mapping ("mmap at bad
# address").  The region goes at 256 GiB instead, inside the first range.
export RDSM_REGION_BASE=${RDSM_REGION_BASE:-0x4000000000}
# die_after_fork=0: a SPLASH program's master forks its workers while its
# handler and fault service threads run, and the workers start threads of
# their own, which ThreadSanitizer refuses by default after such a fork.
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 die_after_fork=0 second_deadlock_stack=1 \
suppressions=$root/tools/tsan.supp ${TSAN_OPTIONS:-}"
if [ $# -eq 0 ]; then
  set -- -L threads
fi
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" "$@"
