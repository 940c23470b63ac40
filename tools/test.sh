#!/usr/bin/env bash
# Builds rdsm and runs the whole test suite: unit tests and multi-process
# tests on the regular build, then the multi-process tests again on an
# AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/deps.sh"
jobs=$(nproc)

echo "== build (RelWithDebInfo)"
"$root/tools/build.sh" "$root/build"
echo "== tests"
ctest --test-dir "$root/build" --output-on-failure -j "$jobs"

echo "== build (ASan + UBSan)"
"$root/tools/build.sh" "$root/build-sanitize" -DRDSM_SANITIZE=ON
echo "== multi-process tests under sanitizers (the applications run on the regular build only)"
# rdsm handles SIGSEGV and SIGBUS itself (page faults are its coherence
# mechanism: SIGSEGV under the mprotect memory backend, SIGBUS under uffd).
export ASAN_OPTIONS=handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1:detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$root/build-sanitize" --output-on-failure -j "$jobs" -L mp -LE apps
